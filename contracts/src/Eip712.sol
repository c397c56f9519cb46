// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @notice EIP-712 domain and strict signature recovery shared by the router and the
/// subscription manager. The operator (the service's key) signs intents; contracts
/// accept only its signatures.
abstract contract Eip712 {
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    /// secp256k1's n / 2: a larger s is the malleable twin of a valid signature.
    uint256 private constant HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;
    bytes32 public immutable DOMAIN_SEPARATOR;

    error InvalidSignature();

    constructor(string memory name_) {
        DOMAIN_SEPARATOR = keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(name_)), keccak256("1"), block.chainid, address(this))
        );
    }

    /// keccak256("\x19\x01" ‖ DOMAIN_SEPARATOR ‖ structHash). In assembly, as every
    /// payment hashes once: `abi.encodePacked` costs the router's `pay` more than DESIGN
    /// §10's gas bar allows.
    function _digest(bytes32 structHash) internal view returns (bytes32 digest) {
        bytes32 separator = DOMAIN_SEPARATOR;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, shl(240, 0x1901))
            mstore(add(m, 0x02), separator)
            mstore(add(m, 0x22), structHash)
            digest := keccak256(m, 0x42)
        }
    }

    /// Recovers the signer of a 65-byte r ‖ s ‖ v signature (v = 27/28, or 0/1) or of its
    /// 64-byte EIP-2098 form r ‖ vs (v - 27 in the top bit of s), rejecting malleable
    /// (high-s) ones; reverts `InvalidSignature` on anything that recovers no signer.
    function _recover(bytes32 digest, bytes calldata sig) internal view returns (address signer) {
        assembly ("memory-safe") {
            let r := calldataload(sig.offset)
            let s := calldataload(add(sig.offset, 0x20))
            let v := 0
            switch sig.length
            case 65 {
                v := byte(0, calldataload(add(sig.offset, 0x40)))
                if lt(v, 27) { v := add(v, 27) }
            }
            case 64 {
                v := add(27, shr(255, s))
                s := and(s, shr(1, not(0)))
            }
            // v stays 0 on any other length: the precompile recovers nothing from it.
            if gt(s, HALF_N) { v := 0 }
            let m := mload(0x40)
            mstore(m, digest)
            mstore(add(m, 0x20), v)
            mstore(add(m, 0x40), r)
            mstore(add(m, 0x60), s)
            // ecrecover answers nothing (returndatasize 0) when it recovers no key.
            pop(staticcall(gas(), 0x01, m, 0x80, 0x00, 0x20))
            signer := mul(mload(0x00), eq(returndatasize(), 0x20))
        }
        if (signer == address(0)) revert InvalidSignature();
    }
}

interface IERC20 {
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function balanceOf(address who) external view returns (uint256);
    function allowance(address owner, address spender) external view returns (uint256);
}
