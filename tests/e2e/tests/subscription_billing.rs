//! Billing under stress on a live chain (8453) of each test's own: two workers, a keeper
//! outage of three periods, a paused recipient, and a renewal the node dropped while the
//! worker was down. Each period is charged once; the books equal the chain.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::json;
use stablepay_e2e::subscriptions::*;
use stablepay_e2e::{poll, usdc_balance, PrivateChain};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_a_keeper_outage_and_a_paused_recipient_charge_each_period_once() {
    let chain = PrivateChain::start_live(Some(1)).await;
    let mut stack = live_stack(&chain, "3s").await;
    let (plan, recipient, key) = merchant_plan(&stack).await;
    let (session, buyer) = subscribe(&stack, plan, 100).await;
    let id = subscription_of(&stack, &session).await["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Two workers bill the same database: each period is charged once.
    let second = stack.spawn_worker();
    let two = poll(Duration::from_secs(40), || async {
        let p = succeeded_periods(&stack, &id).await;
        (p.len() >= 3).then_some(p)
    })
    .await
    .expect("two renewals with two workers");
    assert!(
        two.windows(2).all(|w| w[1] - w[0] == INTERVAL as i64),
        "{two:?}"
    );

    // Keeper down (every worker killed) for three periods, then one back: one charge, for
    // the current period; the missed ones are skipped, not pulled back to back.
    drop(second);
    stack.kill_worker();
    let before = succeeded_periods(&stack, &id).await;
    // Three due dates pass on chain with no keeper.
    wait_chain_time(&chain, chain_time(&chain).await + 3 * INTERVAL as i64).await;
    stack.start_worker();
    let after = poll(Duration::from_secs(20), || async {
        let p = succeeded_periods(&stack, &id).await;
        (p.len() > before.len()).then_some(p)
    })
    .await
    .expect("a charge after the outage");
    assert_eq!(after.len(), before.len() + 1, "{after:?}");
    let gap = after[after.len() - 1] - before[before.len() - 1];
    assert!(
        gap >= 3 * INTERVAL as i64,
        "missed periods were skipped: {after:?}"
    );
    assert_eq!(
        gap % INTERVAL as i64,
        0,
        "the schedule keeps its anchor: {after:?}"
    );

    // The recipient wallet is revoked: paused at once, nothing charged while paused.
    let wallets = list(&stack, "/api/v1/wallets?limit=100").await;
    let wallet = wallets
        .iter()
        .find(|w| {
            w["address"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case(&recipient)
        })
        .unwrap();
    let r = stack
        .http
        .delete(format!(
            "{}/api/v1/wallets/{}",
            stack.api,
            wallet["id"].as_str().unwrap()
        ))
        .bearer_auth(&stack.key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let paused = stack.get(&format!("/api/v1/subscriptions/{id}")).await;
    assert_eq!(paused["status"], "paused");
    let charged = succeeded_periods(&stack, &id).await.len();
    // Two due dates pass on chain while paused: nothing is charged.
    wait_chain_time(&chain, chain_time(&chain).await + 2 * INTERVAL as i64).await;
    assert_eq!(succeeded_periods(&stack, &id).await.len(), charged);

    // Verified again: active, and the current period is charged once.
    reverify(&stack, &recipient, &key).await;
    let resumed = stack.get(&format!("/api/v1/subscriptions/{id}")).await;
    assert_eq!(resumed["status"], "active");
    let back = poll(Duration::from_secs(20), || async {
        let p = succeeded_periods(&stack, &id).await;
        (p.len() > charged).then_some(p)
    })
    .await
    .expect("a charge after resuming");
    assert_eq!(back.len(), charged + 1);

    // The books equal the chain.
    let net = back.len() as u128 * 2_475_000;
    assert_eq!(usdc_balance(&buyer, &stack.chain, &recipient).await, net);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_charge_dropped_by_the_node_while_the_worker_was_down_is_sent_again_once() {
    let chain = PrivateChain::start_live(None).await;
    let mut stack = live_stack(&chain, "3s").await;
    let (plan, recipient, _) = merchant_plan(&stack).await;
    // Blocks come when this test mines them (automine, then manual).
    let miner = async {
        loop {
            chain.mine(1).await;
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    };
    let setup = async {
        let (session, buyer) = subscribe(&stack, plan, 10).await;
        (subscription_of(&stack, &session).await, buyer)
    };
    let (sub, buyer) = tokio::select! {
        done = setup => done,
        _ = miner => unreachable!(),
    };
    let id = sub["id"].as_str().unwrap().to_owned();
    chain.call("evm_setAutomine", json!([false])).await;

    // The renewal is sent: the node holds it unmined. The worker dies, the node drops it.
    let sent = poll(Duration::from_secs(30), || async {
        let status = chain.call("txpool_status", json!([])).await;
        (status["pending"].as_str() != Some("0x0")).then_some(())
    })
    .await;
    assert!(sent.is_some(), "the keeper never sent the renewal");
    stack.kill_worker();
    chain.call("anvil_dropAllTransactions", json!([])).await;

    // A worker comes back: the stored charge is broadcast again (after 30 s without a
    // receipt), mined, and recorded once.
    stack.start_worker();
    let mining = async {
        loop {
            chain.mine(1).await;
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    };
    let charged = async {
        poll(Duration::from_secs(60), || async {
            let p = list(
                &stack,
                &format!("/api/v1/payments?subscription={id}&status=confirmed"),
            )
            .await;
            (p.len() >= 2).then_some(p)
        })
        .await
    };
    let payments = tokio::select! {
        p = charged => p.expect("the dropped renewal was sent again and recorded"),
        _ = mining => unreachable!(),
    };
    assert_eq!(payments.len(), 2, "{payments:?}");
    assert_eq!(
        usdc_balance(&buyer, &stack.chain, &recipient).await,
        2 * 2_475_000,
        "each period once, on chain"
    );
}
