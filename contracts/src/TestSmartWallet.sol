// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @notice A minimal ERC-1271 smart wallet owned by one EOA: a signature is valid when the
/// owner produced it over the given hash. Used to test smart-wallet verification.
contract TestSmartWallet {
    bytes4 internal constant MAGIC = 0x1626ba7e;
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata sig) external view returns (bytes4) {
        if (sig.length != 65) return 0xffffffff;
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        if (v < 27) v += 27;
        return ecrecover(hash, v, r, s) == owner ? MAGIC : bytes4(0xffffffff);
    }

    /// Lets the owner move tokens the wallet holds (e.g. to send a refund).
    function execute(address target, bytes calldata data) external returns (bytes memory) {
        require(msg.sender == owner, "not owner");
        (bool ok, bytes memory out) = target.call(data);
        require(ok, "call failed");
        return out;
    }
}
