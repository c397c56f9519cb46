// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import "./Eip712.sol";

/// @notice Atomic checkout split: the payer's tokens go to the merchant (net) and the
/// treasury (fee) in one transaction, against an operator-signed, single-use, expiring
/// intent. ref = keccak256(checkout session id).
contract CheckoutRouter is Eip712 {
    struct Intent {
        bytes32 ref;
        address token;
        address recipient;
        uint256 netAmount;
        uint256 feeAmount;
        uint64 deadline;
    }

    bytes32 public constant INTENT_TYPEHASH = keccak256(
        "Intent(bytes32 ref,address token,address recipient,uint256 netAmount,uint256 feeAmount,uint64 deadline)"
    );

    address public immutable operator;
    address public immutable treasury;
    mapping(bytes32 => bool) public usedRefs;

    event CheckoutPaid(
        bytes32 indexed ref,
        address indexed payer,
        address indexed recipient,
        address token,
        uint256 netAmount,
        uint256 feeAmount
    );

    error Expired();
    error RefAlreadyUsed();
    error TransferFailed();

    constructor(address operator_, address treasury_) Eip712("stablepay CheckoutRouter") {
        operator = operator_;
        treasury = treasury_;
    }

    function hashIntent(Intent calldata intent) public view returns (bytes32) {
        return _digest(
            keccak256(
                abi.encode(
                    INTENT_TYPEHASH,
                    intent.ref,
                    intent.token,
                    intent.recipient,
                    intent.netAmount,
                    intent.feeAmount,
                    intent.deadline
                )
            )
        );
    }

    function pay(Intent calldata intent, bytes calldata operatorSignature) external {
        if (block.timestamp > intent.deadline) revert Expired();
        if (usedRefs[intent.ref]) revert RefAlreadyUsed();
        if (_recover(hashIntent(intent), operatorSignature) != operator) revert InvalidSignature();
        usedRefs[intent.ref] = true;
        if (!IERC20(intent.token).transferFrom(msg.sender, intent.recipient, intent.netAmount)) revert TransferFailed();
        if (intent.feeAmount > 0) {
            if (!IERC20(intent.token).transferFrom(msg.sender, treasury, intent.feeAmount)) revert TransferFailed();
        }
        emit CheckoutPaid(intent.ref, msg.sender, intent.recipient, intent.token, intent.netAmount, intent.feeAmount);
    }
}
