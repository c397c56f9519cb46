// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @notice The dev and test stand-in for the sanctions oracle analytics vendors publish on
/// EVM chains (Chainalysis' `SanctionsList`): the same external interface, so the service
/// reads it exactly as it reads the real one (`isSanctioned`), and an owner-kept list that
/// tests set. Written for this project from the published interface.
contract TestSanctionsOracle {
    address public owner;
    mapping(address => bool) private listed;

    event SanctionedAddressesAdded(address[] addrs);
    event SanctionedAddressesRemoved(address[] addrs);
    event SanctionedAddress(address indexed addr);
    event NonSanctionedAddress(address indexed addr);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    constructor(address owner_) {
        owner = owner_;
        emit OwnershipTransferred(address(0), owner_);
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "Ownable: caller is not the owner");
        _;
    }

    function name() external pure returns (string memory) {
        return "Chainalysis sanctions oracle";
    }

    function addToSanctionsList(address[] memory newSanctions) public onlyOwner {
        for (uint256 i = 0; i < newSanctions.length; i++) {
            listed[newSanctions[i]] = true;
        }
        emit SanctionedAddressesAdded(newSanctions);
    }

    function removeFromSanctionsList(address[] memory removeSanctions) public onlyOwner {
        for (uint256 i = 0; i < removeSanctions.length; i++) {
            listed[removeSanctions[i]] = false;
        }
        emit SanctionedAddressesRemoved(removeSanctions);
    }

    function isSanctioned(address addr) public view returns (bool) {
        return listed[addr];
    }

    /// As published: the same answer, logged.
    function isSanctionedVerbose(address addr) public returns (bool) {
        if (isSanctioned(addr)) {
            emit SanctionedAddress(addr);
            return true;
        }
        emit NonSanctionedAddress(addr);
        return false;
    }

    function transferOwnership(address newOwner) public onlyOwner {
        require(newOwner != address(0), "Ownable: new owner is the zero address");
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }
}
