// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import "./Eip712.sol";
import "./SafeTransfer.sol";

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

    /// What the operator signs for `payWithAuthorization`: the intent bound to one payer.
    /// The service signs it only when its relayer sends that payer's authorization, so a
    /// second wallet cannot reuse it, and the token's authorization state (nonce = ref) makes
    /// the payer's signature single-use: a session's ref pays once without a storage write.
    bytes32 public constant PAYER_INTENT_TYPEHASH = keccak256(
        "PayerIntent(bytes32 ref,address token,address recipient,uint256 netAmount,uint256 feeAmount,uint64 deadline,address payer)"
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

    function hashPayerIntent(Intent calldata intent, address payer) public view returns (bytes32) {
        return _digest(
            keccak256(
                abi.encode(
                    PAYER_INTENT_TYPEHASH,
                    intent.ref,
                    intent.token,
                    intent.recipient,
                    intent.netAmount,
                    intent.feeAmount,
                    intent.deadline,
                    payer
                )
            )
        );
    }

    function pay(Intent calldata intent, bytes calldata operatorSignature) external {
        _check(intent, hashIntent(intent), operatorSignature);
        usedRefs[intent.ref] = true;
        if (!SafeTransfer.transferFrom(intent.token, msg.sender, intent.recipient, intent.netAmount)) revert TransferFailed();
        if (intent.feeAmount > 0) {
            if (!SafeTransfer.transferFrom(intent.token, msg.sender, treasury, intent.feeAmount)) revert TransferFailed();
        }
        emit CheckoutPaid(intent.ref, msg.sender, intent.recipient, intent.token, intent.netAmount, intent.feeAmount);
    }

    /// One-signature payment (EIP-3009, D23): anyone (the service's relayer) submits the
    /// payer's `ReceiveWithAuthorization` for net + fee to this router, whose nonce is the
    /// session ref, so the signature pays this session only and cannot be front-run into a
    /// transfer elsewhere; the router then splits exactly as `pay` does.
    /// The operator's signature covers the intent and the payer (`PayerIntent`), and the
    /// ref is checked against `pay` but not recorded: recording it would cost 22k gas on
    /// every payment, and the payer binding plus the token's nonce already make it pay once.
    function payWithAuthorization(
        Intent calldata intent,
        bytes calldata operatorSignature,
        address payer,
        uint256 validBefore,
        bytes calldata payerSignature
    ) external {
        _check(intent, hashPayerIntent(intent, payer), operatorSignature);
        IERC3009(intent.token).receiveWithAuthorization(
            payer, address(this), intent.netAmount + intent.feeAmount, 0, validBefore, intent.ref, payerSignature
        );
        if (!SafeTransfer.transfer(intent.token, intent.recipient, intent.netAmount)) revert TransferFailed();
        if (intent.feeAmount > 0) {
            if (!SafeTransfer.transfer(intent.token, treasury, intent.feeAmount)) revert TransferFailed();
        }
        emit CheckoutPaid(intent.ref, payer, intent.recipient, intent.token, intent.netAmount, intent.feeAmount);
    }

    /// An unexpired intent whose ref `pay` has not used, and whose `digest` the operator signed.
    function _check(Intent calldata intent, bytes32 digest, bytes calldata operatorSignature) internal view {
        if (block.timestamp > intent.deadline) revert Expired();
        if (usedRefs[intent.ref]) revert RefAlreadyUsed();
        if (_recover(digest, operatorSignature) != operator) revert InvalidSignature();
    }
}

interface IERC3009 {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}
