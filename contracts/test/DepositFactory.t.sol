// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {DepositFactory, DepositForwarder} from "../src/DepositFactory.sol";
import {TestToken} from "../src/TestToken.sol";
import {vm, TREASURY, RECIPIENT} from "./Cheats.sol";

abstract contract Fixture {
    DepositFactory factory;
    TestToken usdc;
    TestToken other;

    function setUpFixture() internal {
        factory = new DepositFactory(TREASURY);
        usdc = new TestToken("USD Coin", "USDC");
        other = new TestToken("Tether USD", "USDT");
    }

    function terms(bytes32 ref, uint256 feeAmount, uint256 feeBps) internal view returns (DepositFactory.Deposit memory) {
        return DepositFactory.Deposit({ref: ref, token: address(usdc), recipient: RECIPIENT, feeAmount: feeAmount, feeBps: feeBps});
    }

    function expectedFee(uint256 received, uint256 feeAmount, uint256 feeBps) internal pure returns (uint256) {
        uint256 fee = received * feeBps / 10_000;
        return fee > feeAmount ? feeAmount : fee;
    }
}

/// Forwarders pay only their recipient and the treasury, by D24's rule, for exact, under,
/// over and repeated deposits, for another token and for ETH; nobody can redirect them.
contract DepositFactoryTest is Fixture {
    function setUp() public {
        setUpFixture();
    }

    function test_an_exact_deposit_splits_net_and_fee() public {
        DepositFactory.Deposit memory d = terms("exact", 200_000, 100);
        address at = factory.depositAddress(d);
        usdc.mint(at, 20_000_000);
        (uint256 net, uint256 fee) = factory.sweep(d, address(usdc));
        require(net == 19_800_000 && fee == 200_000, "split");
        require(usdc.balanceOf(RECIPIENT) == 19_800_000, "recipient");
        require(usdc.balanceOf(TREASURY) == 200_000, "treasury");
        require(usdc.balanceOf(at) == 0, "nothing stays");
    }

    /// Two deposits swept one by one: the fees add up to the rule on the total, capped at
    /// the session's fee, and everything else reaches the recipient.
    function testFuzz_repeated_deposits_follow_the_cumulative_rule(
        uint64 first,
        uint64 second,
        uint64 feeAmount,
        uint16 feeBps
    ) public {
        vm.assume(feeBps <= 10_000);
        DepositFactory.Deposit memory d = terms("repeat", feeAmount, feeBps);
        address at = factory.depositAddress(d);
        usdc.mint(at, first);
        factory.sweep(d, address(usdc));
        usdc.mint(at, second);
        factory.sweep(d, address(usdc));
        uint256 total = uint256(first) + second;
        uint256 fee = expectedFee(total, feeAmount, feeBps);
        require(usdc.balanceOf(TREASURY) == fee, "fee by the rule");
        require(usdc.balanceOf(RECIPIENT) == total - fee, "the rest to the recipient");
        require(usdc.balanceOf(at) == 0, "nothing stays");
    }

    function testFuzz_another_token_goes_wholly_to_the_recipient(uint64 amount) public {
        DepositFactory.Deposit memory d = terms("other", 200_000, 100);
        address at = factory.depositAddress(d);
        other.mint(at, amount);
        factory.sweep(d, address(other));
        require(other.balanceOf(RECIPIENT) == amount, "all to the recipient");
        require(other.balanceOf(TREASURY) == 0, "no fee on another token");
    }

    function testFuzz_eth_goes_wholly_to_the_recipient(uint64 amount) public {
        DepositFactory.Deposit memory d = terms("eth", 200_000, 100);
        address at = factory.depositAddress(d);
        vm.deal(at, amount);
        uint256 before = RECIPIENT.balance;
        factory.sweep(d, address(0));
        require(RECIPIENT.balance - before == amount, "all ETH to the recipient");
        require(at.balance == 0, "nothing stays");
    }

    function testFuzz_nobody_but_the_factory_can_move_a_deposit(address caller) public {
        DepositFactory.Deposit memory d = terms("redirect", 200_000, 100);
        address at = factory.depositAddress(d);
        usdc.mint(at, 5_000_000);
        factory.sweep(d, address(usdc)); // deploys the forwarder
        usdc.mint(at, 5_000_000);
        vm.assume(caller != address(factory));
        vm.prank(caller);
        vm.expectRevert(DepositForwarder.NotFactory.selector);
        DepositForwarder(payable(at)).pay(address(usdc), caller, 5_000_000);
    }

    function test_a_fee_over_100_percent_is_refused() public {
        DepositFactory.Deposit memory d = terms("bad", 200_000, 10_001);
        vm.expectRevert(DepositFactory.FeeTooHigh.selector);
        factory.sweep(d, address(usdc));
    }
}

/// Random deposits of the session's token, another token and ETH, and sweeps by anyone.
contract DepositHandler is Fixture {
    DepositFactory.Deposit[3] deposits;
    uint256 public minted;
    uint256 public mintedOther;

    constructor(DepositFactory factory_, TestToken usdc_, TestToken other_) {
        factory = factory_;
        usdc = usdc_;
        other = other_;
        deposits[0] = terms("a", 200_000, 100);
        deposits[1] = terms("b", 1_000, 10_000);
        deposits[2] = terms("c", 0, 50);
    }

    function deposit(uint8 which, uint32 amount) external {
        usdc.mint(factory.depositAddress(deposits[which % 3]), amount);
        minted += amount;
    }

    function depositOther(uint8 which, uint32 amount) external {
        other.mint(factory.depositAddress(deposits[which % 3]), amount);
        mintedOther += amount;
    }

    function sweep(uint8 which, bool otherToken) external {
        factory.sweep(deposits[which % 3], otherToken ? address(other) : address(usdc));
    }

    function at(uint256 i) external view returns (address) {
        return factory.depositAddress(deposits[i]);
    }

    function feeCap(uint256 i) external view returns (uint256) {
        return deposits[i].feeAmount;
    }
}

/// Whatever happens, every unit minted is at a deposit address, the recipient or the
/// treasury (nobody else ever receives any), and the treasury never takes more than the
/// sessions' fees.
contract DepositInvariants is Fixture {
    DepositHandler handler;

    function setUp() public {
        setUpFixture();
        handler = new DepositHandler(factory, usdc, other);
    }

    /// Only the handler is called at random (forge reads this, as forge-std's would).
    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    function invariant_money_only_reaches_the_recipient_and_the_treasury() public view {
        uint256 held;
        uint256 heldOther;
        for (uint256 i = 0; i < 3; i++) {
            held += usdc.balanceOf(handler.at(i));
            heldOther += other.balanceOf(handler.at(i));
        }
        require(held + usdc.balanceOf(RECIPIENT) + usdc.balanceOf(TREASURY) == handler.minted(), "usdc accounted for");
        require(heldOther + other.balanceOf(RECIPIENT) == handler.mintedOther(), "other token accounted for");
        require(other.balanceOf(TREASURY) == 0, "no fee on another token");
    }

    function invariant_the_treasury_never_takes_more_than_the_fees() public view {
        uint256 cap = handler.feeCap(0) + handler.feeCap(1) + handler.feeCap(2);
        require(usdc.balanceOf(TREASURY) <= cap, "fees capped");
    }
}
