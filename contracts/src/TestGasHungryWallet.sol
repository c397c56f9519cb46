// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @notice An ERC-1271 wallet owned by one EOA whose check passes only when the call still
/// has at least `minGas` left: an `eth_call` with the node's default gas (tens of millions)
/// accepts the owner's signature, the same call under a relay's own gas limit refuses it.
/// A griefer's wallet would do this to make the relayer pay for a payment that reverts on
/// chain; the relayer must simulate exactly what it sends (D30). Test use only.
contract TestGasHungryWallet {
    bytes4 internal constant MAGIC = 0x1626ba7e;
    address public immutable owner;
    uint256 public immutable minGas;

    constructor(address owner_, uint256 minGas_) {
        owner = owner_;
        minGas = minGas_;
    }

    function isValidSignature(bytes32 hash, bytes calldata sig) external view returns (bytes4) {
        if (gasleft() < minGas || sig.length != 65) return 0xffffffff;
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        if (v < 27) v += 27;
        return ecrecover(hash, v, r, s) == owner ? MAGIC : bytes4(0xffffffff);
    }
}
