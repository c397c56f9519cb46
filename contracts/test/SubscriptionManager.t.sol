// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {SubscriptionManager} from "../src/SubscriptionManager.sol";
import {TestToken} from "../src/TestToken.sol";
import {vm, OPERATOR_KEY, TREASURY, RECIPIENT, PAYER} from "./Cheats.sol";

/// At most one charge per period, only by the keeper, never after a cancel, never more
/// than the plan's amount; a subscribe ref is usable once.
contract SubscriptionManagerTest {
    address constant KEEPER = address(0x4EE9);
    address constant SUBSCRIBER = PAYER;
    uint256 constant AMOUNT = 10_000_000;
    uint256 constant FEE = 100_000;
    uint64 constant INTERVAL = 30 days;
    SubscriptionManager manager;
    TestToken usdc;
    uint256 planId;

    function setUp() public {
        manager = new SubscriptionManager(vm.addr(OPERATOR_KEY), KEEPER, TREASURY);
        usdc = new TestToken("USD Coin", "USDC");
        vm.prank(RECIPIENT);
        planId = manager.createPlan(address(usdc), RECIPIENT, AMOUNT, INTERVAL);
        usdc.mint(SUBSCRIBER, 1_000 * AMOUNT);
        vm.prank(SUBSCRIBER);
        usdc.approve(address(manager), type(uint256).max);
    }

    function subscribe(bytes32 ref) internal returns (uint256) {
        uint64 deadline = uint64(block.timestamp + 900);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(OPERATOR_KEY, manager.hashSubscribe(planId, ref, FEE, deadline));
        vm.prank(SUBSCRIBER);
        return manager.subscribe(planId, ref, FEE, deadline, abi.encodePacked(r, s, v));
    }

    function charged() internal view returns (uint256) {
        return usdc.balanceOf(RECIPIENT) + usdc.balanceOf(TREASURY);
    }

    /// However late the keeper comes, and however often it tries, each period is charged
    /// at most once: the money taken never exceeds one amount per period begun.
    function testFuzz_at_most_one_charge_per_period(uint32 wait1, uint32 wait2, uint8 tries) public {
        uint256 id = subscribe("periods");
        uint256 start = block.timestamp;
        vm.warp(start + uint256(wait1) % (400 days));
        for (uint256 i = 0; i < uint256(tries) % 4; i++) {
            vm.prank(KEEPER);
            try manager.charge(id) {} catch {}
        }
        vm.warp(block.timestamp + uint256(wait2) % (400 days));
        vm.prank(KEEPER);
        try manager.charge(id) {} catch {}
        // Periods begun since subscribing (the first was paid at subscribe).
        uint256 periods = (block.timestamp - start) / INTERVAL + 1;
        require(charged() <= periods * AMOUNT, "more than one charge in a period");
        require(charged() % AMOUNT == 0, "only whole amounts");
        require(usdc.balanceOf(TREASURY) == (charged() / AMOUNT) * FEE, "the fee of each charge");
    }

    function test_a_charge_before_its_period_is_refused() public {
        uint256 id = subscribe("early");
        vm.warp(block.timestamp + INTERVAL - 1);
        vm.prank(KEEPER);
        vm.expectRevert(SubscriptionManager.NotDue.selector);
        manager.charge(id);
    }

    function testFuzz_only_the_keeper_charges(address caller) public {
        vm.assume(caller != KEEPER);
        uint256 id = subscribe("keeper");
        vm.warp(block.timestamp + INTERVAL);
        vm.prank(caller);
        vm.expectRevert(SubscriptionManager.NotKeeper.selector);
        manager.charge(id);
    }

    function test_a_canceled_subscription_is_never_charged() public {
        uint256 id = subscribe("cancel");
        vm.prank(SUBSCRIBER);
        manager.cancel(id);
        vm.warp(block.timestamp + INTERVAL);
        vm.prank(KEEPER);
        vm.expectRevert(SubscriptionManager.Inactive.selector);
        manager.charge(id);
        require(charged() == AMOUNT, "only the first period");
    }

    function test_a_subscribe_ref_is_usable_once() public {
        subscribe("once");
        uint64 deadline = uint64(block.timestamp + 900);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(OPERATOR_KEY, manager.hashSubscribe(planId, "once", FEE, deadline));
        vm.prank(SUBSCRIBER);
        vm.expectRevert(SubscriptionManager.RefAlreadyUsed.selector);
        manager.subscribe(planId, "once", FEE, deadline, abi.encodePacked(r, s, v));
    }
}
