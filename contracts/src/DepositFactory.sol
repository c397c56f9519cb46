// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @notice Deposit addresses (D24): every checkout session gets a CREATE2 address computed
/// off-chain from its terms; a buyer sends a plain token transfer there (from any wallet or
/// exchange), and anyone may sweep it. The first sweep deploys a minimal clone of
/// `DepositForwarder` at that address; every sweep splits what is there: the fee, capped in
/// total at the session's `feeAmount`, to the treasury, the rest to the recipient. No
/// function can send a forwarder's money anywhere else, for any token or for ETH.
contract DepositFactory {
    /// A session's terms; the deposit address commits to all of them (the salt is their
    /// hash, and the treasury is this factory's).
    struct Deposit {
        bytes32 ref;
        address token;
        address recipient;
        uint256 feeAmount;
        uint256 feeBps;
    }

    /// What the session's own token has brought so far, and the fee taken from it.
    struct Swept {
        uint128 received;
        uint128 fee;
    }

    address public immutable implementation;
    address public immutable treasury;
    /// keccak256 of the clone creation code: computed once, hashed into every address.
    bytes32 private immutable cloneCodeHash;
    /// By deposit salt.
    mapping(bytes32 => Swept) public swept;

    /// One per sweep that moved money; `token` is address(0) for ETH.
    event DepositSwept(
        bytes32 indexed ref,
        address indexed depositAddress,
        address indexed token,
        address recipient,
        uint256 netAmount,
        uint256 feeAmount
    );

    /// A batch entry that could not be swept (its recipient refused ETH, say); the rest of
    /// the batch went through.
    event SweepFailed(bytes32 indexed ref, address indexed token);

    error FeeTooHigh();
    error LengthMismatch();
    error OutOfGas();
    error Reentered();
    error TooLarge();

    constructor(address treasury_) {
        treasury = treasury_;
        address impl = address(new DepositForwarder());
        implementation = impl;
        cloneCodeHash = keccak256(_cloneCode(impl));
    }

    function salt(Deposit calldata d) public pure returns (bytes32) {
        return keccak256(abi.encode(d.ref, d.token, d.recipient, d.feeAmount, d.feeBps));
    }

    /// The CREATE2 address of `d`'s forwarder, deployed or not.
    function depositAddress(Deposit calldata d) public view returns (address) {
        return _addressOf(salt(d));
    }

    /// Sweeps `token` (address(0): ETH) from `d`'s deposit address, deploying its forwarder
    /// on first use. A zero balance moves nothing. Returns what went where.
    function sweep(Deposit calldata d, address token) public nonReentrant returns (uint256 net, uint256 fee) {
        if (d.feeBps > 10_000) revert FeeTooHigh();
        bytes32 s = salt(d);
        address forwarder = _forwarder(s);
        uint256 balance = token == address(0) ? forwarder.balance : IERC20Balance(token).balanceOf(forwarder);
        if (balance == 0) return (0, 0);
        if (token == d.token) {
            // The fee of everything received is min(feeAmount, floor(received × bps / 10000));
            // this sweep takes what that total has not taken yet.
            Swept memory before = swept[s];
            uint256 received = uint256(before.received) + balance;
            if (received > type(uint128).max) revert TooLarge();
            uint256 total = received * d.feeBps / 10_000;
            if (total > d.feeAmount) total = d.feeAmount;
            fee = total - before.fee;
            if (fee > balance) fee = balance;
            swept[s] = Swept(uint128(received), uint128(before.fee + fee));
        }
        // Other tokens and ETH carry no fee terms: all of it goes to the recipient.
        net = balance - fee;
        if (net > 0) DepositForwarder(payable(forwarder)).pay(token, d.recipient, net);
        if (fee > 0) DepositForwarder(payable(forwarder)).pay(token, treasury, fee);
        emit DepositSwept(d.ref, forwarder, token, d.recipient, net, fee);
    }

    /// A token with transfer hooks must not re-enter a sweep between its two payments. The
    /// lock lives in transient storage and is lifted on every way out, early returns included.
    modifier nonReentrant() {
        bool entered;
        assembly {
            entered := tload(0)
        }
        if (entered) revert Reentered();
        assembly {
            tstore(0, 1)
        }
        _;
        assembly {
            tstore(0, 0)
        }
    }

    /// Sweeps many deposits in one transaction (the relayer's batches), each as `sweep`; an
    /// entry that fails is skipped with `SweepFailed` and never blocks the others.
    function sweepMany(Deposit[] calldata ds, address[] calldata tokens) external {
        if (ds.length != tokens.length) revert LengthMismatch();
        for (uint256 i = 0; i < ds.length; i++) {
            try this.sweep(ds[i], tokens[i]) {}
            catch {
                // An entry that ran out of gas leaves 1/64 behind: the whole batch fails
                // then, so a gas estimate covers every entry rather than skipping some.
                if (gasleft() < 50_000) revert OutOfGas();
                emit SweepFailed(ds[i].ref, tokens[i]);
            }
        }
    }

    function _addressOf(bytes32 s) internal view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), s, cloneCodeHash)))));
    }

    function _forwarder(bytes32 s) internal returns (address forwarder) {
        forwarder = _addressOf(s);
        if (forwarder.code.length > 0) return forwarder;
        bytes memory code = _cloneCode(implementation);
        assembly {
            forwarder := create2(0, add(code, 0x20), mload(code), s)
        }
        require(forwarder != address(0), "deploy failed");
    }

    /// EIP-1167 minimal proxy creation code delegating to `implementation`.
    function _cloneCode(address impl) internal pure returns (bytes memory) {
        return abi.encodePacked(hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", impl, hex"5af43d82803e903d91602b57fd5bf3");
    }
}

/// @notice The code behind every deposit address: it holds what was sent and pays only when
/// its factory says, which only ever names the session's recipient or the treasury.
contract DepositForwarder {
    /// Read from the implementation's code, so every clone obeys the same factory.
    address private immutable factory;

    error NotFactory();
    error TransferFailed();

    constructor() {
        factory = msg.sender;
    }

    /// ETH sent after deployment is accepted and swept like any token.
    receive() external payable {}

    function pay(address token, address to, uint256 amount) external {
        if (msg.sender != factory) revert NotFactory();
        if (token == address(0)) {
            (bool sent,) = to.call{value: amount}("");
            if (!sent) revert TransferFailed();
            return;
        }
        // Tokens that return nothing (USDT on some chains) count as success; false does not.
        (bool ok, bytes memory data) = token.call(abi.encodeWithSelector(0xa9059cbb, to, amount));
        if (!ok || (data.length > 0 && !abi.decode(data, (bool)))) revert TransferFailed();
    }
}

interface IERC20Balance {
    function balanceOf(address who) external view returns (uint256);
}
