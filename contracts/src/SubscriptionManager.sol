// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import "./Eip712.sol";
import "./SafeTransfer.sol";

/// @notice Recurring charges against immutable, merchant-created plans. The first charge
/// is taken at subscribe (operator-signed, single-use, expiring); later charges are pulled
/// by the keeper when due, at most once per period (a keeper back from downtime charges the
/// current period only). Failure reasons are checked before transferFrom so the keeper
/// can simulate with eth_call and map the custom error to a failure code.
contract SubscriptionManager is Eip712 {
    struct Plan {
        address merchant;
        address token;
        address recipient;
        uint256 amount;
        uint64 interval;
    }

    struct Subscription {
        uint256 planId;
        address subscriber;
        uint256 feeAmount;
        uint64 nextChargeAt;
        bool active;
    }

    bytes32 public constant SUBSCRIBE_TYPEHASH =
        keccak256("Subscribe(uint256 planId,bytes32 ref,uint256 feeAmount,uint64 deadline)");

    address public immutable operator;
    address public immutable keeper;
    address public immutable treasury;
    uint256 public planCount;
    uint256 public subscriptionCount;
    mapping(uint256 => Plan) public plans;
    mapping(uint256 => Subscription) public subscriptions;
    mapping(bytes32 => bool) public usedRefs;

    event PlanCreated(uint256 indexed planId, address indexed merchant, address token, address recipient, uint256 amount, uint64 interval);
    event Subscribed(uint256 indexed subscriptionId, uint256 indexed planId, address indexed subscriber, bytes32 ref, uint256 feeAmount);
    event Charged(
        uint256 indexed subscriptionId,
        uint256 indexed planId,
        address indexed subscriber,
        uint256 netAmount,
        uint256 feeAmount,
        uint64 nextChargeAt
    );
    event Canceled(uint256 indexed subscriptionId, address by);

    error Expired();
    error RefAlreadyUsed();
    error UnknownPlan();
    error InvalidPlan();
    error NotDue();
    error Inactive();
    error InsufficientAllowance();
    error InsufficientBalance();
    error NotKeeper();
    error NotAllowed();
    error TransferFailed();

    constructor(address operator_, address keeper_, address treasury_) Eip712("stablepay SubscriptionManager") {
        operator = operator_;
        keeper = keeper_;
        treasury = treasury_;
    }

    function createPlan(address token, address recipient, uint256 amount, uint64 interval) external returns (uint256 planId) {
        if (token == address(0) || recipient == address(0) || amount == 0 || interval == 0) revert InvalidPlan();
        planId = ++planCount;
        plans[planId] = Plan(msg.sender, token, recipient, amount, interval);
        emit PlanCreated(planId, msg.sender, token, recipient, amount, interval);
    }

    function hashSubscribe(uint256 planId, bytes32 ref, uint256 feeAmount, uint64 deadline) public view returns (bytes32) {
        return _digest(keccak256(abi.encode(SUBSCRIBE_TYPEHASH, planId, ref, feeAmount, deadline)));
    }

    function subscribe(uint256 planId, bytes32 ref, uint256 feeAmount, uint64 deadline, bytes calldata operatorSig)
        external
        returns (uint256 subscriptionId)
    {
        Plan memory plan = plans[planId];
        if (plan.merchant == address(0)) revert UnknownPlan();
        if (block.timestamp > deadline) revert Expired();
        if (usedRefs[ref]) revert RefAlreadyUsed();
        if (_recover(hashSubscribe(planId, ref, feeAmount, deadline), operatorSig) != operator) revert InvalidSignature();
        if (feeAmount > plan.amount) revert InvalidPlan();
        usedRefs[ref] = true;
        subscriptionId = ++subscriptionCount;
        uint64 next = uint64(block.timestamp) + plan.interval;
        subscriptions[subscriptionId] = Subscription(planId, msg.sender, feeAmount, next, true);
        emit Subscribed(subscriptionId, planId, msg.sender, ref, feeAmount);
        _collect(plan, msg.sender, feeAmount);
        emit Charged(subscriptionId, planId, msg.sender, plan.amount - feeAmount, feeAmount, next);
    }

    function charge(uint256 subscriptionId) external {
        if (msg.sender != keeper) revert NotKeeper();
        Subscription storage sub = subscriptions[subscriptionId];
        if (!sub.active) revert Inactive();
        if (block.timestamp < sub.nextChargeAt) revert NotDue();
        Plan memory plan = plans[sub.planId];
        IERC20 token = IERC20(plan.token);
        if (token.allowance(sub.subscriber, address(this)) < plan.amount) revert InsufficientAllowance();
        if (token.balanceOf(sub.subscriber) < plan.amount) revert InsufficientBalance();
        // One charge per period, for the current one: periods missed while the keeper was
        // down are skipped, never pulled back to back. The schedule keeps its anchor.
        uint64 missed = (uint64(block.timestamp) - sub.nextChargeAt) / plan.interval;
        sub.nextChargeAt = sub.nextChargeAt + (missed + 1) * plan.interval;
        _collect(plan, sub.subscriber, sub.feeAmount);
        emit Charged(subscriptionId, sub.planId, sub.subscriber, plan.amount - sub.feeAmount, sub.feeAmount, sub.nextChargeAt);
    }

    function cancel(uint256 subscriptionId) external {
        Subscription storage sub = subscriptions[subscriptionId];
        if (!sub.active) revert Inactive();
        if (msg.sender != sub.subscriber && msg.sender != plans[sub.planId].recipient) revert NotAllowed();
        sub.active = false;
        emit Canceled(subscriptionId, msg.sender);
    }

    function _collect(Plan memory plan, address from, uint256 feeAmount) internal {
        if (!SafeTransfer.transferFrom(plan.token, from, plan.recipient, plan.amount - feeAmount)) revert TransferFailed();
        if (feeAmount > 0) {
            if (!SafeTransfer.transferFrom(plan.token, from, treasury, feeAmount)) revert TransferFailed();
        }
    }
}
