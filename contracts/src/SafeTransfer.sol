// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @notice ERC-20 transfers that accept tokens returning nothing (mainnet USDT) as well as
/// `true`, and report a revert, a `false`, or an address without code (a call to it
/// "succeeds" with nothing) as failure. The caller reverts with its own error. In assembly:
/// a high-level call would decode a `bool` (reverting on tokens that return nothing) and
/// costs the router's `pay` more than DESIGN §10's gas bar allows. The token's code size is
/// read only when it answered nothing: a token that answers `true` has code.
library SafeTransfer {
    function transfer(address token, address to, uint256 amount) internal returns (bool ok) {
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, shl(224, 0xa9059cbb))
            mstore(add(m, 0x04), to)
            mstore(add(m, 0x24), amount)
            ok := call(gas(), token, 0, m, 0x44, 0x00, 0x20)
            if ok {
                switch returndatasize()
                case 0 { ok := gt(extcodesize(token), 0) }
                default { ok := and(gt(returndatasize(), 31), eq(mload(0x00), 1)) }
            }
        }
    }

    function transferFrom(address token, address from, address to, uint256 amount) internal returns (bool ok) {
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, shl(224, 0x23b872dd))
            mstore(add(m, 0x04), from)
            mstore(add(m, 0x24), to)
            mstore(add(m, 0x44), amount)
            ok := call(gas(), token, 0, m, 0x64, 0x00, 0x20)
            if ok {
                switch returndatasize()
                case 0 { ok := gt(extcodesize(token), 0) }
                default { ok := and(gt(returndatasize(), 31), eq(mload(0x00), 1)) }
            }
        }
    }
}
