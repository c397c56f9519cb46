//! Deposit addresses (D24): a plain transfer to a session's CREATE2 address is swept by
//! anyone, split by the rule, and can only ever reach the recipient and the treasury.

use ethers::types::TransactionReceipt;
use stablepay_domain::rules::deposit::{fee_of_received, forwarder_implementation, DepositTerms};
use stablepay_evm::bindings::deposit_factory::{
    Deposit, DepositFactory, DepositSweptFilter, FeeTooHigh,
};

use super::*;

ethers::contract::abigen!(
    Forwarder,
    r#"[function pay(address token, address to, uint256 amount) external]"#
);

fn terms(token: Address) -> DepositTerms {
    DepositTerms {
        reference: eip712::session_ref(&CheckoutSessionId::generate()),
        token,
        recipient: random_address(),
        fee_amount: 200_000,
        fee_bps: 100,
    }
}

fn on_chain(t: &DepositTerms) -> Deposit {
    Deposit {
        ref_: t.reference,
        token: to_h160(&t.token),
        recipient: to_h160(&t.recipient),
        fee_amount: U256::from(t.fee_amount),
        fee_bps: U256::from(t.fee_bps),
    }
}

async fn send_token(sender: &Arc<Client>, token: Address, to: Address, micros: u64) {
    TestToken::new(to_h160(&token), sender.clone())
        .transfer(to_h160(&to), U256::from(micros))
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
}

async fn balance(sender: &Arc<Client>, token: Address, of: Address) -> u64 {
    TestToken::new(to_h160(&token), sender.clone())
        .balance_of(to_h160(&of))
        .call()
        .await
        .unwrap()
        .as_u64()
}

/// Sweeps and returns the receipt and the (net, fee) of its `DepositSwept`, if any.
async fn sweep(
    factory: &DepositFactory<Client>,
    t: &DepositTerms,
    token: Address,
) -> (TransactionReceipt, Option<(u64, u64)>) {
    let receipt = factory
        .sweep(on_chain(t), to_h160(&token))
        .send()
        .await
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(receipt.status.unwrap().as_u64(), 1);
    let swept = receipt.logs.iter().find_map(|log| {
        ethers::contract::parse_log::<DepositSweptFilter>(log.clone())
            .ok()
            .map(|e| (e.net_amount.as_u64(), e.fee_amount.as_u64()))
    });
    (receipt, swept)
}

#[tokio::test]
async fn the_factory_computes_deposit_addresses_as_the_service_does() {
    let c = chain();
    let sender = fresh_sender(&c, 0).await;
    let factory = DepositFactory::new(to_h160(&c.deposit_factory), sender.clone());
    assert_eq!(
        from_h160(factory.implementation().call().await.unwrap()),
        forwarder_implementation(&c.deposit_factory)
    );
    assert_eq!(
        from_h160(factory.treasury().call().await.unwrap()),
        c.treasury
    );
    let t = terms(c.usdc);
    assert_eq!(
        from_h160(factory.deposit_address(on_chain(&t)).call().await.unwrap()),
        t.address(&c.deposit_factory)
    );
    assert_eq!(factory.salt(on_chain(&t)).call().await.unwrap(), t.salt());
}

#[tokio::test]
async fn deposits_split_by_the_rule_exact_under_over_and_repeated() {
    let c = chain();
    let sender = fresh_sender(&c, 100_000_000).await;
    let factory = DepositFactory::new(to_h160(&c.deposit_factory), sender.clone());

    // Exact: 20.00 for a 20.00 session at 1 % → 19.80 and 0.20.
    let exact = terms(c.usdc);
    let at = exact.address(&c.deposit_factory);
    send_token(&sender, c.usdc, at, 20_000_000).await;
    let (first, swept) = sweep(&factory, &exact, c.usdc).await;
    assert_eq!(swept, Some((19_800_000, 200_000)));
    eprintln!("sweep with deploy gasUsed {}", first.gas_used.unwrap());
    assert_eq!(balance(&sender, c.usdc, exact.recipient).await, 19_800_000);
    assert_eq!(balance(&sender, c.usdc, at).await, 0);

    // Underpaid, topped up, then late money: the fees add up to the fee of the total, and
    // never past the session's fee.
    let under = terms(c.usdc);
    let at = under.address(&c.deposit_factory);
    let mut received = 0u64;
    let mut fees = 0u64;
    for (i, part) in [4_000_000u64, 16_000_000, 5_000_000]
        .into_iter()
        .enumerate()
    {
        send_token(&sender, c.usdc, at, part).await;
        received += part;
        let (receipt, swept) = sweep(&factory, &under, c.usdc).await;
        if i == 1 {
            eprintln!(
                "sweep, forwarder deployed, gasUsed {}",
                receipt.gas_used.unwrap()
            );
        }
        let (net, fee) = swept.unwrap();
        assert_eq!(net + fee, part);
        fees += fee;
        assert_eq!(
            u128::from(fees),
            fee_of_received(u128::from(received), 100, 200_000)
        );
    }
    assert_eq!(fees, 200_000, "the fee stops at the session's fee");
    assert_eq!(balance(&sender, c.usdc, under.recipient).await, 24_800_000);
    // Nothing there: a sweep moves nothing and says nothing.
    let (_, swept) = sweep(&factory, &under, c.usdc).await;
    assert_eq!(swept, None);

    // Overpaid in one transfer: the treasury gets exactly the session's fee.
    let over = terms(c.usdc);
    send_token(
        &sender,
        c.usdc,
        over.address(&c.deposit_factory),
        25_000_000,
    )
    .await;
    let (_, swept) = sweep(&factory, &over, c.usdc).await;
    assert_eq!(swept, Some((24_800_000, 200_000)));
}

#[tokio::test]
async fn another_token_and_eth_reach_the_recipient_only() {
    let c = chain();
    let sender = fresh_sender(&c, 10_000_000).await;
    let factory = DepositFactory::new(to_h160(&c.deposit_factory), sender.clone());
    let t = terms(c.usdc);
    let at = t.address(&c.deposit_factory);
    // ETH sent before the forwarder exists, and USDT to a USDC session's address.
    sender
        .send_transaction(
            ethers::types::TransactionRequest::new()
                .to(to_h160(&at))
                .value(1_000_000u64),
            None,
        )
        .await
        .unwrap()
        .await
        .unwrap();
    send_token(&sender, c.usdt, at, 3_000_000).await;
    let (_, swept) = sweep(&factory, &t, c.usdt).await;
    assert_eq!(
        swept,
        Some((3_000_000, 0)),
        "no fee terms for another token"
    );
    assert_eq!(balance(&sender, c.usdt, t.recipient).await, 3_000_000);
    let (_, swept) = sweep(&factory, &t, Address::from_bytes([0; 20])).await;
    assert_eq!(swept, Some((1_000_000, 0)));
    // ETH sent to the deployed forwarder is accepted and swept the same way.
    sender
        .send_transaction(
            ethers::types::TransactionRequest::new()
                .to(to_h160(&at))
                .value(500u64),
            None,
        )
        .await
        .unwrap()
        .await
        .unwrap();
    sweep(&factory, &t, Address::from_bytes([0; 20])).await;
    assert_eq!(
        sender
            .get_balance(to_h160(&t.recipient), None)
            .await
            .unwrap(),
        U256::from(1_000_500u64)
    );
    assert!(sender
        .get_balance(to_h160(&at), None)
        .await
        .unwrap()
        .is_zero());
}

#[tokio::test]
async fn nobody_can_send_a_deposit_anywhere_else() {
    let c = chain();
    let sender = fresh_sender(&c, 10_000_000).await;
    let factory = DepositFactory::new(to_h160(&c.deposit_factory), sender.clone());
    let t = terms(c.usdc);
    let at = t.address(&c.deposit_factory);
    send_token(&sender, c.usdc, at, 1_000_000).await;
    sweep(&factory, &t, c.usdc).await;
    send_token(&sender, c.usdc, at, 2_000_000).await;
    // The forwarder obeys its factory only.
    let thief = random_address();
    let err = Forwarder::new(to_h160(&at), sender.clone())
        .pay(to_h160(&c.usdc), to_h160(&thief), U256::from(2_000_000u64))
        .call()
        .await
        .unwrap_err();
    let data = err.as_revert().cloned().unwrap_or_default();
    assert!(
        data.starts_with(&ethers::utils::keccak256("NotFactory()")[..4]),
        "{err:?}"
    );
    // Other terms are another address: sweeping them moves nothing from this one.
    for other in [
        DepositTerms {
            recipient: thief,
            ..t
        },
        DepositTerms { fee_bps: 0, ..t },
        DepositTerms {
            fee_amount: 2_000_000,
            ..t
        },
    ] {
        let (_, swept) = sweep(&factory, &other, c.usdc).await;
        assert_eq!(swept, None);
    }
    // A fee rate over 100 % is refused outright.
    let err = factory
        .sweep(
            on_chain(&DepositTerms {
                fee_bps: 10_001,
                ..t
            }),
            to_h160(&c.usdc),
        )
        .call()
        .await
        .unwrap_err();
    let data = err.as_revert().cloned().unwrap_or_default();
    assert!(
        data.starts_with(&<FeeTooHigh as ethers::contract::EthError>::selector()),
        "{err:?}"
    );
    assert_eq!(balance(&sender, c.usdc, at).await, 2_000_000);
    assert_eq!(balance(&sender, c.usdc, thief).await, 0);
    // The rightful sweep still works.
    let (_, swept) = sweep(&factory, &t, c.usdc).await;
    assert_eq!(swept, Some((1_980_000, 20_000)));
}

#[tokio::test]
async fn a_batch_sweeps_every_good_entry_and_skips_a_bad_one() {
    let c = chain();
    let sender = fresh_sender(&c, 10_000_000).await;
    let factory = DepositFactory::new(to_h160(&c.deposit_factory), sender.clone());
    let (a, empty, b) = (terms(c.usdc), terms(c.usdc), terms(c.usdc));
    send_token(&sender, c.usdc, a.address(&c.deposit_factory), 1_000_000).await;
    send_token(&sender, c.usdc, b.address(&c.deposit_factory), 2_000_000).await;
    let bad = DepositTerms {
        fee_bps: 10_001,
        ..terms(c.usdc)
    };
    // An empty deposit returns early inside the batch: the next entries still run.
    let batch = [a, empty, bad, b];
    let receipt = factory
        .sweep_many(
            batch.iter().map(on_chain).collect(),
            batch.iter().map(|t| to_h160(&t.token)).collect(),
        )
        .send()
        .await
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(receipt.status.unwrap().as_u64(), 1);
    let failed: Vec<[u8; 32]> = receipt
        .logs
        .iter()
        .filter_map(|log| {
            ethers::contract::parse_log::<
                stablepay_evm::bindings::deposit_factory::SweepFailedFilter,
            >(log.clone())
            .ok()
            .map(|e| e.ref_)
        })
        .collect();
    assert_eq!(failed, [bad.reference], "only the bad entry failed");
    // The adapter reads the same entry, with its token, for the worker to retry.
    let (gas, entries) = adapter(&c)
        .sweep_receipt(
            ChainId::BaseSepolia,
            c.deposit_factory,
            TxHash::from_bytes(receipt.transaction_hash.0),
        )
        .await
        .unwrap()
        .expect("mined");
    assert!(gas.succeeded);
    assert_eq!(entries, [(bad.reference, bad.token)]);
    assert_eq!(balance(&sender, c.usdc, a.recipient).await, 990_000);
    assert_eq!(balance(&sender, c.usdc, b.recipient).await, 1_980_000);
    // Terms and tokens must pair up.
    let err = factory
        .sweep_many(vec![on_chain(&a)], vec![])
        .call()
        .await
        .unwrap_err();
    let data = err.as_revert().cloned().unwrap_or_default();
    assert!(
        data.starts_with(&ethers::utils::keccak256("LengthMismatch()")[..4]),
        "{err:?}"
    );
}
