//! The keeper's sender (D26) on a live chain of the test's own (1 s blocks, depth 2).
//! Mining is paused while a charge falls due, so the keeper's transaction is in the pool
//! before the test acts on it: then the next block's base fee is raised over its fee
//! cap (`anvil_setNextBlockBaseFeePerGas`), or the node drops it (`anvil_dropTransaction`).
//! Each time it is replaced at its nonce and mined; a subscription canceled in the portal
//! while its charge is stuck gets a 0-value fill instead, and the charge queued behind
//! it at the next nonce still goes through. Each period is charged at most once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use ethers::signers::{LocalWallet, Signer};
use serde_json::{json, Value};
use stablepay_domain::ports::NewestAttempt;
use stablepay_domain::rules::eip191;
use stablepay_domain::{Address, ChainId};
use stablepay_e2e::subscriptions::*;
use stablepay_e2e::{poll, usdc_balance, PrivateChain, Stack};

fn keeper(stack: &Stack) -> Address {
    let wallet: LocalWallet = stack.chain.keeper_key.parse().unwrap();
    Address::from_bytes(wallet.address().0)
}

/// Stops mining, moves the chain's clock past the next due date of every subscription,
/// and waits until the keeper has `n` charges in the pool; returns their newest attempts.
async fn charges_in_the_pool(chain: &PrivateChain, stack: &Stack, n: usize) -> Vec<NewestAttempt> {
    chain.call("evm_setIntervalMining", json!([0])).await;
    chain.call("evm_increaseTime", json!([INTERVAL + 2])).await;
    let keeper = keeper(stack);
    let open = poll(Duration::from_secs(30), || async {
        let open = stack
            .store
            .open_keeper_charges(ChainId::Base, Some(keeper))
            .await
            .unwrap();
        (open.len() >= n).then_some(open)
    })
    .await
    .expect("the keeper sent its charges");
    let mut attempts = Vec::new();
    for charge in open {
        attempts.push(
            stack
                .store
                .attempt(charge.work.tx_hash)
                .await
                .unwrap()
                .unwrap(),
        );
    }
    attempts
}

/// Sets the next block's base fee to 3× the highest fee cap of `pending`: none of them
/// can be included until replaced.
async fn price_out(chain: &PrivateChain, pending: &[NewestAttempt]) {
    let highest = pending.iter().map(|p| p.fees.max_fee_wei).max().unwrap();
    chain
        .call(
            "anvil_setNextBlockBaseFeePerGas",
            json!([format!("{:#x}", highest * 3)]),
        )
        .await;
}

fn resume(chain: &PrivateChain) -> impl std::future::Future<Output = Value> + '_ {
    chain.call("evm_setIntervalMining", json!([1]))
}

/// Succeeded attempts of the subscription: (period, tx hash), oldest first.
async fn paid_periods(stack: &Stack, id: &str) -> Vec<(i64, String)> {
    let mut paid: Vec<(i64, String)> = list(
        stack,
        &format!("/api/v1/payment_attempts?subscription={id}&status=succeeded&limit=100"),
    )
    .await
    .iter()
    .map(|a| {
        (
            chrono_secs(a["period_key"].as_str().unwrap()),
            a["tx_hash"].as_str().unwrap().to_owned(),
        )
    })
    .collect();
    paid.sort();
    paid
}

async fn paid_more(stack: &Stack, id: &str, than: usize) -> Vec<(i64, String)> {
    poll(Duration::from_secs(60), || async {
        let paid = paid_periods(stack, id).await;
        (paid.len() > than).then_some(paid)
    })
    .await
    .unwrap_or_else(|| panic!("{id}: no charge recorded after {than}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn stuck_charges_are_replaced_and_a_canceled_one_is_filled_without_blocking_the_next() {
    let chain = PrivateChain::start_live(Some(1)).await;
    // Dunning far off: a failed try would only muddle what is counted here.
    let stack = live_stack(&chain, "1d").await;
    let (plan, recipient, _) = merchant_plan(&stack).await;
    let (session, buyer) = subscribe(&stack, plan, 100).await;
    let a = subscription_of(&stack, &session).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (session_b, buyer_b) = subscribe(&stack, plan, 100).await;
    let b = subscription_of(&stack, &session_b).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Let the schedules settle into the keeper's rhythm.
    paid_more(&stack, &a, 1).await;
    paid_more(&stack, &b, 1).await;

    // 1. The base fee jumps over the pending charges' fee cap: replaced at higher fees.
    let before = paid_periods(&stack, &a).await.len();
    let pending = charges_in_the_pool(&chain, &stack, 2).await;
    price_out(&chain, &pending).await;
    let first_hashes: Vec<String> = pending.iter().map(|p| p.tx_hash.to_string()).collect();
    resume(&chain).await;
    let paid = paid_more(&stack, &a, before).await;
    let (_, mined) = paid.last().unwrap();
    assert!(
        !first_hashes.contains(mined),
        "the period was paid by a replacement, not the underpriced first send"
    );
    assert_eq!(paid.len(), before + 1);

    // 2. The node drops a pending charge: replaced at its nonce, mined.
    let before_a = paid_periods(&stack, &a).await.len();
    let before_b = paid_periods(&stack, &b).await.len();
    let pending = charges_in_the_pool(&chain, &stack, 2).await;
    for p in &pending {
        chain
            .call("anvil_dropTransaction", json!([p.tx_hash.to_string()]))
            .await;
    }
    resume(&chain).await;
    paid_more(&stack, &a, before_a).await;
    paid_more(&stack, &b, before_b).await;

    // 3. A is canceled in the portal while its charge is stuck, B's waits behind or
    //    beside it: A's nonce is filled, nothing is charged to A for the period, B is.
    let before_b = paid_periods(&stack, &b).await.len();
    let a_paid = paid_periods(&stack, &a).await;
    let pending = charges_in_the_pool(&chain, &stack, 2).await;
    price_out(&chain, &pending).await;
    let message = portal_cancel_message(&stack, &a).await;
    let key: [u8; 32] = buyer.signer().signer().to_bytes().into();
    let sig = eip191::sign(message.as_bytes(), &key).unwrap().to_hex();
    let (status, state) = portal_cancel(&stack, &a, &sig).await;
    assert_eq!((status, state["status"].as_str()), (200, Some("canceled")));
    let a_balance = usdc_balance(&buyer, &stack.chain, &format!("{:#x}", buyer.address())).await;
    resume(&chain).await;
    paid_more(&stack, &b, before_b).await;
    // A's charge is closed with the fill: nothing of the keeper's stays open for A.
    let keeper = keeper(&stack);
    let closed = poll(Duration::from_secs(30), || async {
        let open = stack
            .store
            .open_keeper_charges(ChainId::Base, Some(keeper))
            .await
            .unwrap();
        open.is_empty().then_some(())
    })
    .await;
    assert!(closed.is_some(), "a charge stayed open");
    assert_eq!(
        paid_periods(&stack, &a).await,
        a_paid,
        "no charge after the cancel"
    );
    assert_eq!(
        usdc_balance(&buyer, &stack.chain, &format!("{:#x}", buyer.address())).await,
        a_balance,
        "the canceled subscriber paid nothing more"
    );
    let s = stack.get(&format!("/api/v1/subscriptions/{a}")).await;
    assert_eq!(s["status"], "canceled");

    // The books equal the chain: the recipient holds the net of every recorded charge.
    let net = 2_475_000u128;
    let equal = poll(Duration::from_secs(30), || async {
        let periods = paid_periods(&stack, &a).await.len() + paid_periods(&stack, &b).await.len();
        let on_chain = usdc_balance(&buyer_b, &stack.chain, &recipient).await;
        (on_chain == periods as u128 * net).then_some(())
    })
    .await;
    assert!(equal.is_some(), "the books differ from the chain");
}
