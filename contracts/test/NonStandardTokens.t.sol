// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {CheckoutRouter} from "../src/CheckoutRouter.sol";
import {SubscriptionManager} from "../src/SubscriptionManager.sol";
import {DepositFactory} from "../src/DepositFactory.sol";
import {NoReturnToken, FalseToken} from "./OddTokens.sol";
import {vm, OPERATOR_KEY, TREASURY, RECIPIENT, PAYER} from "./Cheats.sol";

/// Tokens that return nothing (mainnet USDT) move through every contract as standard ones
/// do; a token that answers `false`, or an address without code, moves nothing and reverts.
contract NonStandardTokensTest {
    address constant KEEPER = address(0x4EE9);
    CheckoutRouter router;
    SubscriptionManager manager;
    DepositFactory factory;
    NoReturnToken usdt;

    function setUp() public {
        router = new CheckoutRouter(vm.addr(OPERATOR_KEY), TREASURY);
        manager = new SubscriptionManager(vm.addr(OPERATOR_KEY), KEEPER, TREASURY);
        factory = new DepositFactory(TREASURY);
        usdt = new NoReturnToken();
    }

    function intent(address token, bytes32 ref) internal returns (CheckoutRouter.Intent memory i, bytes memory sig) {
        i = CheckoutRouter.Intent({
            ref: ref,
            token: token,
            recipient: RECIPIENT,
            netAmount: 9_900_000,
            feeAmount: 100_000,
            deadline: uint64(block.timestamp + 900)
        });
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(OPERATOR_KEY, router.hashIntent(i));
        sig = abi.encodePacked(r, s, v);
    }

    function test_router_pays_with_a_token_that_returns_nothing() public {
        (CheckoutRouter.Intent memory i, bytes memory sig) = intent(address(usdt), "usdt");
        usdt.mint(PAYER, 10_000_000);
        vm.prank(PAYER);
        usdt.approve(address(router), 10_000_000);
        vm.prank(PAYER);
        router.pay(i, sig);
        require(usdt.balanceOf(RECIPIENT) == 9_900_000, "net to the recipient");
        require(usdt.balanceOf(TREASURY) == 100_000, "fee to the treasury");
        require(usdt.balanceOf(PAYER) == 0, "all of it from the payer");
    }

    function test_router_refuses_a_token_that_answers_false() public {
        FalseToken liar = new FalseToken();
        liar.mint(PAYER, 10_000_000);
        (CheckoutRouter.Intent memory i, bytes memory sig) = intent(address(liar), "false");
        vm.prank(PAYER);
        vm.expectRevert(CheckoutRouter.TransferFailed.selector);
        router.pay(i, sig);
    }

    function test_router_refuses_a_token_address_without_code() public {
        (CheckoutRouter.Intent memory i, bytes memory sig) = intent(address(0xC0DE), "no code");
        vm.prank(PAYER);
        vm.expectRevert(CheckoutRouter.TransferFailed.selector);
        router.pay(i, sig);
    }

    function subscribeTo(uint256 planId, bytes32 ref, uint256 fee) internal returns (uint256) {
        uint64 deadline = uint64(block.timestamp + 900);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(OPERATOR_KEY, manager.hashSubscribe(planId, ref, fee, deadline));
        vm.prank(PAYER);
        return manager.subscribe(planId, ref, fee, deadline, abi.encodePacked(r, s, v));
    }

    function test_manager_subscribes_and_charges_with_a_token_that_returns_nothing() public {
        vm.prank(RECIPIENT);
        uint256 planId = manager.createPlan(address(usdt), RECIPIENT, 5_000_000, 30 days);
        usdt.mint(PAYER, 10_000_000);
        vm.prank(PAYER);
        usdt.approve(address(manager), type(uint256).max);
        uint256 id = subscribeTo(planId, "usdt plan", 50_000);
        vm.warp(block.timestamp + 30 days);
        vm.prank(KEEPER);
        manager.charge(id);
        require(usdt.balanceOf(RECIPIENT) == 2 * 4_950_000, "two nets to the recipient");
        require(usdt.balanceOf(TREASURY) == 2 * 50_000, "two fees to the treasury");
        require(usdt.balanceOf(PAYER) == 0, "two amounts from the subscriber");
    }

    function test_manager_refuses_a_plan_token_without_code() public {
        vm.prank(RECIPIENT);
        uint256 planId = manager.createPlan(address(0xC0DE), RECIPIENT, 5_000_000, 30 days);
        uint64 deadline = uint64(block.timestamp + 900);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(OPERATOR_KEY, manager.hashSubscribe(planId, "eoa", 50_000, deadline));
        vm.prank(PAYER);
        vm.expectRevert(SubscriptionManager.TransferFailed.selector);
        manager.subscribe(planId, "eoa", 50_000, deadline, abi.encodePacked(r, s, v));
    }

    function test_a_forwarder_sweeps_a_token_that_returns_nothing() public {
        DepositFactory.Deposit memory d =
            DepositFactory.Deposit({ref: "usdt", token: address(usdt), recipient: RECIPIENT, feeAmount: 200_000, feeBps: 100});
        address at = factory.depositAddress(d);
        usdt.mint(at, 20_000_000);
        (uint256 net, uint256 fee) = factory.sweep(d, address(usdt));
        require(net == 19_800_000 && fee == 200_000, "split");
        require(usdt.balanceOf(RECIPIENT) == 19_800_000, "recipient");
        require(usdt.balanceOf(TREASURY) == 200_000, "treasury");
        require(usdt.balanceOf(at) == 0, "nothing stays");
    }
}
