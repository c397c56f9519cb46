// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {CheckoutRouter} from "../src/CheckoutRouter.sol";
import {Eip712} from "../src/Eip712.sol";
import {TestToken} from "../src/TestToken.sol";
import {Vm, vm, OPERATOR_KEY, TREASURY, RECIPIENT, PAYER} from "./Cheats.sol";

/// `pay` moves exactly what the operator signed, once per ref, before the deadline; any
/// other intent, signer or second use is refused and moves nothing. A ref is spent once,
/// whichever way: `pay`, `payWithAuthorization` or the operator's `cancel`.
contract CheckoutRouterTest {
    uint256 constant SIGNER_KEY = 0xB0B0; // a one-signature payer: it signs, never sends
    address constant RELAYER = address(0x4E1A);
    uint256 constant HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;
    uint256 constant N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141;
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

    // ---- a ref is spent once, whichever way ----

    /// The payer's `ReceiveWithAuthorization` of net + fee to the router, nonce = ref.
    function authorized(CheckoutRouter.Intent memory i, uint256 validBefore) internal returns (bytes memory) {
        bytes32 structHash = keccak256(
            abi.encode(
                usdc.RECEIVE_WITH_AUTHORIZATION_TYPEHASH(),
                vm.addr(SIGNER_KEY),
                address(router),
                i.netAmount + i.feeAmount,
                0,
                validBefore,
                i.ref
            )
        );
        (uint8 v, bytes32 r, bytes32 s) =
            vm.sign(SIGNER_KEY, keccak256(abi.encodePacked("\x19\x01", usdc.DOMAIN_SEPARATOR(), structHash)));
        return abi.encodePacked(r, s, v);
    }

    /// The relayer's `payWithAuthorization` calldata for `i`, as the service would send it.
    function relay(CheckoutRouter.Intent memory i) internal returns (bytes memory) {
        address payer = vm.addr(SIGNER_KEY);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(OPERATOR_KEY, router.hashPayerIntent(i, payer));
        uint256 validBefore = block.timestamp + 900;
        return abi.encodeCall(
            CheckoutRouter.payWithAuthorization,
            (i, abi.encodePacked(r, s, v), payer, validBefore, authorized(i, validBefore))
        );
    }

    /// Sends `data` to the router as the relayer; the revert data when it reverts.
    function sendAsRelayer(bytes memory data) internal returns (bool ok, bytes memory answer) {
        vm.prank(RELAYER);
        (ok, answer) = address(router).call(data);
    }

    function cancelSigned(bytes32 ref, uint256 key) internal returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, router.hashCancel(ref));
        return abi.encodePacked(r, s, v);
    }

    function test_pay_after_a_one_signature_payment_is_refused() public {
        CheckoutRouter.Intent memory i = intent("one signature, then pay", 1_000_000, 10_000);
        // The buyer fetched the intent for approve + pay, then paid with one signature.
        bytes memory sig = signed(i, OPERATOR_KEY);
        usdc.mint(vm.addr(SIGNER_KEY), 1_010_000);
        (bool ok,) = sendAsRelayer(relay(i));
        require(ok, "the relay pays");
        require(router.usedRefs(i.ref), "the relay spends the ref");
        usdc.mint(PAYER, 1_010_000);
        vm.prank(PAYER);
        usdc.approve(address(router), 1_010_000);
        vm.prank(PAYER);
        vm.expectRevert(CheckoutRouter.RefAlreadyUsed.selector);
        router.pay(i, sig);
        // An intent the operator never signed is refused as such, spent ref or not.
        bytes memory forged = signed(i, SIGNER_KEY);
        vm.prank(PAYER);
        vm.expectRevert(Eip712.InvalidSignature.selector);
        router.pay(i, forged);
        require(usdc.balanceOf(RECIPIENT) == 1_000_000 && usdc.balanceOf(TREASURY) == 10_000, "paid once");
        require(usdc.balanceOf(PAYER) == 1_010_000, "the second buyer keeps its money");
    }

    function test_a_one_signature_payment_after_pay_is_refused() public {
        CheckoutRouter.Intent memory i = intent("pay, then one signature", 1_000_000, 10_000);
        payAs(i, signed(i, OPERATOR_KEY), 1_010_000);
        usdc.mint(vm.addr(SIGNER_KEY), 1_010_000);
        (bool ok, bytes memory answer) = sendAsRelayer(relay(i));
        require(!ok && bytes4(answer) == CheckoutRouter.RefAlreadyUsed.selector, "RefAlreadyUsed");
        require(usdc.balanceOf(RECIPIENT) == 1_000_000, "paid once");
        require(usdc.balanceOf(vm.addr(SIGNER_KEY)) == 1_010_000, "the signer keeps its money");
        require(!usdc.authorizationState(vm.addr(SIGNER_KEY), i.ref), "its authorization unused");
    }

    function test_a_canceled_ref_pays_no_way() public {
        CheckoutRouter.Intent memory i = intent("canceled", 1_000_000, 10_000);
        bytes memory paySig = signed(i, OPERATOR_KEY);
        bytes memory relayed = relay(i);
        vm.recordLogs();
        vm.prank(RELAYER); // anyone sends it: the operator key only signs
        router.cancel(i.ref, cancelSigned(i.ref, OPERATOR_KEY));
        Vm.Log[] memory logs = vm.getRecordedLogs();
        require(logs.length == 1 && logs[0].emitter == address(router), "one event");
        require(logs[0].topics[0] == keccak256("RefCanceled(bytes32)") && logs[0].topics[1] == i.ref, "RefCanceled(ref)");
        require(router.usedRefs(i.ref), "the ref is spent");

        usdc.mint(PAYER, 1_010_000);
        vm.prank(PAYER);
        usdc.approve(address(router), 1_010_000);
        vm.prank(PAYER);
        vm.expectRevert(CheckoutRouter.RefAlreadyUsed.selector);
        router.pay(i, paySig);

        usdc.mint(vm.addr(SIGNER_KEY), 1_010_000);
        (bool ok, bytes memory answer) = sendAsRelayer(relayed);
        require(!ok && bytes4(answer) == CheckoutRouter.RefAlreadyUsed.selector, "RefAlreadyUsed");
        require(usdc.balanceOf(RECIPIENT) == 0 && usdc.balanceOf(TREASURY) == 0, "nothing paid");
    }

    function testFuzz_only_the_operator_cancels(uint256 key) public {
        vm.assume(key != 0 && key != OPERATOR_KEY && key < N);
        bytes32 ref = "not yours to cancel";
        bytes memory sig = cancelSigned(ref, key);
        vm.prank(RELAYER);
        vm.expectRevert(Eip712.InvalidSignature.selector);
        router.cancel(ref, sig);
        require(!router.usedRefs(ref), "the ref stays unspent");
    }

    function test_a_cancel_signs_one_ref_on_one_router() public {
        bytes memory sig = cancelSigned("this ref", OPERATOR_KEY);
        vm.expectRevert(Eip712.InvalidSignature.selector);
        router.cancel("another ref", sig);
        CheckoutRouter other = new CheckoutRouter(vm.addr(OPERATOR_KEY), TREASURY);
        vm.expectRevert(Eip712.InvalidSignature.selector);
        other.cancel("this ref", sig);
    }

    function test_a_relay_replayed_after_cancel_is_refused() public {
        CheckoutRouter.Intent memory i = intent("unwanted relay", 1_000_000, 10_000);
        usdc.mint(vm.addr(SIGNER_KEY), 1_010_000);
        // The relay's calldata is public once sent; its nonce is filled with the cancel.
        bytes memory relayed = relay(i);
        vm.prank(RELAYER);
        router.cancel(i.ref, cancelSigned(i.ref, OPERATOR_KEY));
        (bool ok, bytes memory answer) = sendAsRelayer(relayed);
        require(!ok && bytes4(answer) == CheckoutRouter.RefAlreadyUsed.selector, "RefAlreadyUsed");
        vm.prank(PAYER); // by anyone, not only the relayer
        (ok,) = address(router).call(relayed);
        require(!ok, "refused for anyone");
        require(usdc.balanceOf(vm.addr(SIGNER_KEY)) == 1_010_000, "the signer keeps its money");
        require(!usdc.authorizationState(vm.addr(SIGNER_KEY), i.ref), "its authorization unused");
    }

    function test_a_cancel_of_a_spent_ref_changes_nothing() public {
        CheckoutRouter.Intent memory i = intent("paid, then canceled", 1_000_000, 10_000);
        payAs(i, signed(i, OPERATOR_KEY), 1_010_000);
        bytes memory sig = cancelSigned(i.ref, OPERATOR_KEY);
        vm.recordLogs();
        vm.prank(RELAYER);
        router.cancel(i.ref, sig); // a fill that lost the race to a payment does not revert
        router.cancel(i.ref, sig); // nor does a replay
        require(vm.getRecordedLogs().length == 0, "no RefCanceled for a paid ref");
        require(router.usedRefs(i.ref) && usdc.balanceOf(RECIPIENT) == 1_000_000, "still paid once");
    }

    // ---- operator signatures: 65 bytes or EIP-2098's 64, low s only ----

    function compact(bytes memory sig) internal pure returns (bytes memory) {
        (bytes32 r, bytes32 s) = abi.decode(sig, (bytes32, bytes32));
        uint8 v = uint8(sig[64]);
        return abi.encodePacked(r, uint256(s) | (uint256(v - 27) << 255));
    }

    function test_a_compact_operator_signature_pays_and_cancels() public {
        CheckoutRouter.Intent memory i = intent("compact", 1_000_000, 10_000);
        payAs(i, compact(signed(i, OPERATOR_KEY)), 1_010_000);
        require(usdc.balanceOf(RECIPIENT) == 1_000_000, "paid");
        // Refs until both recovery ids have been seen, as the top bit of s or not.
        bool[2] memory seen;
        for (uint256 n = 0; n < 32 && !(seen[0] && seen[1]); n++) {
            bytes32 ref = keccak256(abi.encode("compact cancel", n));
            bytes memory sig = cancelSigned(ref, OPERATOR_KEY);
            seen[uint8(sig[64]) - 27] = true;
            router.cancel(ref, compact(sig));
            require(router.usedRefs(ref), "canceled");
        }
        require(seen[0] && seen[1], "both values of v");
    }

    function test_a_malleable_or_misshapen_operator_signature_is_refused() public {
        CheckoutRouter.Intent memory i = intent("misshapen", 1_000_000, 0);
        bytes memory sig = signed(i, OPERATOR_KEY);
        (bytes32 r, bytes32 s) = abi.decode(sig, (bytes32, bytes32));
        uint8 v = uint8(sig[64]);
        require(uint256(s) <= HALF_N, "vm.sign gives low s");
        bytes[4] memory bad = [
            abi.encodePacked(r, bytes32(N - uint256(s)), v == 27 ? uint8(28) : uint8(27)), // the high-s twin
            abi.encodePacked(sig, uint8(0)), // 66 bytes
            abi.encodePacked(r, s), // 64 bytes with v lost: another signer, or none
            abi.encodePacked(r, s, uint8(29)) // no such v
        ];
        usdc.mint(PAYER, 1_000_000);
        vm.prank(PAYER);
        usdc.approve(address(router), 1_000_000);
        for (uint256 n = 0; n < bad.length; n++) {
            if (n == 2 && v == 27) continue; // r ‖ s is then the right compact form
            vm.prank(PAYER);
            vm.expectRevert(Eip712.InvalidSignature.selector);
            router.pay(i, bad[n]);
        }
        require(!router.usedRefs(i.ref), "the ref stays unspent");
    }
}
