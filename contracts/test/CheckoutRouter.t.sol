// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {CheckoutRouter} from "../src/CheckoutRouter.sol";
import {Eip712} from "../src/Eip712.sol";
import {TestToken} from "../src/TestToken.sol";
import {vm, OPERATOR_KEY, TREASURY, RECIPIENT, PAYER} from "./Cheats.sol";

/// `pay` moves exactly what the operator signed, once per ref, before the deadline; any
/// other intent, signer or second use is refused and moves nothing.
contract CheckoutRouterTest {
    CheckoutRouter router;
    TestToken usdc;

    function setUp() public {
        router = new CheckoutRouter(vm.addr(OPERATOR_KEY), TREASURY);
        usdc = new TestToken("USD Coin", "USDC");
    }

    function intent(bytes32 ref, uint256 net, uint256 fee) internal view returns (CheckoutRouter.Intent memory) {
        return CheckoutRouter.Intent({
            ref: ref,
            token: address(usdc),
            recipient: RECIPIENT,
            netAmount: net,
            feeAmount: fee,
            deadline: uint64(block.timestamp + 900)
        });
    }

    function signed(CheckoutRouter.Intent memory i, uint256 key) internal returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, router.hashIntent(i));
        return abi.encodePacked(r, s, v);
    }

    /// The payer holds and approves `amount`, then pays `i` with `sig`.
    function payAs(CheckoutRouter.Intent memory i, bytes memory sig, uint256 amount) internal {
        usdc.mint(PAYER, amount);
        vm.prank(PAYER);
        usdc.approve(address(router), amount);
        vm.prank(PAYER);
        router.pay(i, sig);
    }

    function testFuzz_pay_moves_exactly_the_intent(uint64 net, uint64 fee, uint64 spare) public {
        CheckoutRouter.Intent memory i = intent("exact", net, fee);
        payAs(i, signed(i, OPERATOR_KEY), uint256(net) + fee + spare);
        require(usdc.balanceOf(RECIPIENT) == net, "net to the recipient");
        require(usdc.balanceOf(TREASURY) == fee, "fee to the treasury");
        require(usdc.balanceOf(PAYER) == spare, "nothing more from the payer");
        require(usdc.balanceOf(address(router)) == 0, "the router keeps nothing");
    }

    function test_a_ref_pays_once() public {
        CheckoutRouter.Intent memory i = intent("once", 1_000_000, 10_000);
        bytes memory sig = signed(i, OPERATOR_KEY);
        payAs(i, sig, 2_020_000);
        vm.prank(PAYER);
        vm.expectRevert(CheckoutRouter.RefAlreadyUsed.selector);
        router.pay(i, sig);
        require(usdc.balanceOf(RECIPIENT) == 1_000_000, "paid once");
    }

    function testFuzz_an_intent_changed_after_signing_is_refused(uint64 net, uint64 more) public {
        vm.assume(more > 0 && uint256(net) + more <= type(uint64).max);
        CheckoutRouter.Intent memory i = intent("changed", net, 0);
        bytes memory sig = signed(i, OPERATOR_KEY);
        i.netAmount = uint256(net) + more;
        usdc.mint(PAYER, i.netAmount);
        vm.prank(PAYER);
        usdc.approve(address(router), i.netAmount);
        vm.prank(PAYER);
        vm.expectRevert(Eip712.InvalidSignature.selector);
        router.pay(i, sig);
    }

    function testFuzz_only_the_operator_signs(uint256 key) public {
        // A valid secp256k1 key other than the operator's.
        vm.assume(key != 0 && key != OPERATOR_KEY);
        vm.assume(key < 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141);
        CheckoutRouter.Intent memory i = intent("forged", 5_000_000, 50_000);
        bytes memory sig = signed(i, key);
        vm.prank(PAYER);
        vm.expectRevert(Eip712.InvalidSignature.selector);
        router.pay(i, sig);
    }

    function test_an_expired_intent_is_refused() public {
        CheckoutRouter.Intent memory i = intent("late", 1_000_000, 0);
        bytes memory sig = signed(i, OPERATOR_KEY);
        vm.warp(block.timestamp + 901);
        vm.prank(PAYER);
        vm.expectRevert(CheckoutRouter.Expired.selector);
        router.pay(i, sig);
    }
}
