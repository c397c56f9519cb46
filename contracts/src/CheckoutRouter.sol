// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import "./Eip712.sol";
import "./SafeTransfer.sol";

/// @notice Atomic checkout split: the payer's tokens go to the merchant (net) and the
/// treasury (fee) in one transaction, against an operator-signed, single-use, expiring
/// intent. ref = keccak256(checkout session id). A ref is spent once, whichever way:
/// `pay`, `payWithAuthorization` or the operator's `cancel` (DESIGN D30).
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
    /// second wallet cannot reuse it.
    bytes32 public constant PAYER_INTENT_TYPEHASH = keccak256(
        "PayerIntent(bytes32 ref,address token,address recipient,uint256 netAmount,uint256 feeAmount,uint64 deadline,address payer)"
    );

    /// What the operator signs for `cancel`, under this router's EIP-712 domain
    /// {name "stablepay CheckoutRouter", version "1", chainId, verifyingContract}.
    /// The type string is exactly `Cancel(bytes32 ref)`, so
    /// digest = keccak256("\x19\x01" ‖ DOMAIN_SEPARATOR ‖ keccak256(CANCEL_TYPEHASH ‖ ref)).
    bytes32 public constant CANCEL_TYPEHASH = keccak256("Cancel(bytes32 ref)");

    address public immutable operator;
    address public immutable treasury;
    /// True once the ref was paid (`pay`, `payWithAuthorization`) or canceled.
    mapping(bytes32 => bool) public usedRefs;

    event CheckoutPaid(
        bytes32 indexed ref,
        address indexed payer,
        address indexed recipient,
        address token,
        uint256 netAmount,
        uint256 feeAmount
    );

    /// `cancel` spent a ref that no payment had used.
    event RefCanceled(bytes32 indexed ref);

    error Expired();
    error RefAlreadyUsed();
    error TransferFailed();

    constructor(address operator_, address treasury_) Eip712("stablepay CheckoutRouter") {
        operator = operator_;
        treasury = treasury_;
    }

    function hashIntent(Intent calldata intent) public view returns (bytes32) {
        return _digest(_structHash(INTENT_TYPEHASH, intent, 0xe0, address(0)));
    }

    function hashPayerIntent(Intent calldata intent, address payer) public view returns (bytes32) {
        return _digest(_structHash(PAYER_INTENT_TYPEHASH, intent, 0x100, payer));
    }

    function hashCancel(bytes32 ref) public view returns (bytes32) {
        return _digest(keccak256(abi.encode(CANCEL_TYPEHASH, ref)));
    }

    function pay(Intent calldata intent, bytes calldata operatorSignature) external {
        _check(intent, hashIntent(intent), operatorSignature);
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
    /// The operator's signature covers the intent and the payer (`PayerIntent`). The ref is
    /// spent as `pay` spends it, so a session paid here cannot be paid again with an intent
    /// fetched earlier, and a relay whose ref was canceled can never be mined.
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

    /// Spends `ref` without a payment, on the operator's EIP-712 signature over
    /// `Cancel(bytes32 ref)` (65-byte or EIP-2098 64-byte); anyone may send it (the
    /// service's relayer fills the nonce of an unwanted router relay with it, D26), and no
    /// `pay` or `payWithAuthorization` of that ref succeeds afterwards. A ref already spent
    /// (paid, or canceled before) stays so and the call succeeds without an event, so a
    /// fill never reverts for a payment that won the race.
    function cancel(bytes32 ref, bytes calldata operatorSignature) external {
        if (_recover(hashCancel(ref), operatorSignature) != operator) revert InvalidSignature();
        if (!_spend(ref)) emit RefCanceled(ref);
    }

    /// An unexpired intent whose `digest` the operator signed and whose ref no path has
    /// spent; spends the ref. The signature is checked first, so an intent the operator
    /// never signed (another payer's, say) is refused as such, whatever its ref.
    function _check(Intent calldata intent, bytes32 digest, bytes calldata operatorSignature) private {
        if (block.timestamp > intent.deadline) revert Expired();
        if (_recover(digest, operatorSignature) != operator) revert InvalidSignature();
        if (_spend(intent.ref)) revert RefAlreadyUsed();
    }

    /// Marks `ref` used and tells whether it was already: the slot is hashed once and read
    /// once (writing 1 over 1 costs a warm no-op, not a second 20k write).
    function _spend(bytes32 ref) private returns (bool wasUsed) {
        assembly ("memory-safe") {
            mstore(0x00, ref)
            mstore(0x20, usedRefs.slot)
            let slot := keccak256(0x00, 0x40)
            wasUsed := sload(slot)
            sstore(slot, 1)
        }
    }

    /// The EIP-712 hash of an `Intent` (`size` 0xe0) or a `PayerIntent` (`size` 0x100, the
    /// payer last): the type hash, then the intent's six words as they are in calldata.
    /// A word with dirty high bits hashes to something the operator never signed.
    function _structHash(bytes32 typehash, Intent calldata intent, uint256 size, address payer)
        private
        pure
        returns (bytes32 h)
    {
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, typehash)
            calldatacopy(add(m, 0x20), intent, 0xc0)
            mstore(add(m, 0xe0), payer)
            h := keccak256(m, size)
        }
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
