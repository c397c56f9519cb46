// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// The forge cheatcodes these tests use, and the parties they play, declared here rather than taken from forge-std
/// (which is fetched with git, unreachable from this build).
interface Vm {
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }

    function assume(bool) external;
    function deal(address who, uint256 wei_) external;
    function prank(address sender) external;
    function expectRevert(bytes4 selector) external;
    function warp(uint256 timestamp) external;
    function addr(uint256 privateKey) external returns (address);
    function sign(uint256 privateKey, bytes32 digest) external returns (uint8 v, bytes32 r, bytes32 s);
    function recordLogs() external;
    function getRecordedLogs() external returns (Log[] memory);
}

Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

// The parties every test plays: the service's operator key, the treasury, a merchant's
// recipient and a payer.
uint256 constant OPERATOR_KEY = 0xA11CE;
address constant TREASURY = address(0x7EA5);
address constant RECIPIENT = address(0xBEEF);
address constant PAYER = address(0xB0B);
