//! Several RPC providers for one chain (D27): `STABLEPAY_RPC_URL_<chain>` lists two fault
//! proxies in front of the same anvil. The first one is down, then stuck at a block (a
//! node that stopped syncing: its head, receipts and logs end there), then flapping
//! between down and up. Buyers pay on anvil directly in each phase. Every payment settles
//! exactly once on its own transaction, sessions nobody paid stay open, and the worker's
//! metrics show the failovers and the stuck provider's exclusion.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use ethers::providers::Middleware;
use futures_util::StreamExt;
use stablepay_e2e::*;

/// Payments per phase.
const PER_PHASE: usize = 6;

/// Pays `PER_PHASE` new sessions (every other one also through the fast path, whose
/// answer may be a 503 while no provider answers) and waits until they all completed.
/// Returns (session, tx) pairs.
async fn pay_a_round(stack: &Stack, phase: &str) -> Vec<(String, String)> {
    let mut sessions = Vec::new();
    for _ in 0..PER_PHASE {
        sessions.push(stack.open_session("2.50").await);
    }
    let paid: Vec<(String, String)> = futures_util::stream::iter(sessions.into_iter().enumerate())
        .map(|(i, session)| async move {
            let (status, intent) = stack.intent(&session).await;
            assert_eq!(status, 200, "{phase}: {intent}");
            let buyer = funded_buyer(&stack.chain).await;
            let tx = pay_intent(&buyer, &intent).await;
            if i % 2 == 0 {
                let (status, _, body) = stack.confirm(&session, &tx).await;
                assert!(status == 200 || status == 503, "{phase}: {status} {body}");
            }
            (session, tx)
        })
        .buffer_unordered(PER_PHASE)
        .collect()
        .await;
    for (session, _) in &paid {
        let s = stack
            .wait_for_session(session, "completed", Duration::from_secs(60))
            .await;
        assert_eq!(
            s["status"], "completed",
            "{phase}: {session} never completed"
        );
    }
    paid
}

/// The value of the metric line that starts with `series` (labels in the exporter's order).
fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(series))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

#[tokio::test(flavor = "multi_thread")]
async fn payments_settle_once_through_a_first_provider_that_is_down_then_stuck_then_flapping() {
    let chain = PrivateChain::start(Some(1)).await;
    let first = Arc::new(FaultProxy::start(&chain.rpc).await);
    let second = FaultProxy::start(&chain.rpc).await;
    let down = Faults {
        down: true,
        max_log_range: u64::MAX,
        ..Faults::default()
    };
    let healthy = Faults {
        max_log_range: u64::MAX,
        ..Faults::default()
    };
    first.inject(down);
    let mut stack = Stack::start_with(StackOptions {
        service_rpc: Some(format!("{},{}", first.url, second.url)),
        env: vec![("STABLEPAY_RPC_TIMEOUT_MS".into(), "1000".into())],
        ..StackOptions::on(&chain)
    })
    .await;
    // One worker, whose metrics the test reads.
    stack.kill_worker();
    let (_worker, metrics) = stack.spawn_worker_with_metrics();
    let scrape = || async {
        stack
            .http
            .get(format!("http://{metrics}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    let (recipient, _) = stack.fresh_verified_wallet().await;
    stack.record_events().await;
    let never_paid = stack.open_session("2.50").await;

    // Down: every call moves on to the second provider.
    let mut paid = pay_a_round(&stack, "first provider down").await;
    assert!(first.counts.downs.load(Ordering::Relaxed) > 0);

    // Stuck at the current block: healthy answers, from a past that never moves.
    let stuck_at = chain.head().await;
    first.inject(Faults {
        stuck_at: Some(stuck_at),
        ..healthy
    });
    let chain_id = chain.chain_id;
    let excluded =
        format!("stablepay_rpc_provider_excluded{{chain=\"{chain_id}\",provider=\"1\"}}");
    let head = format!("stablepay_rpc_provider_head{{chain=\"{chain_id}\",provider=\"1\"}}");
    // Excluded for lagging, not still resting from the down phase (up to `MAX_REST`): the
    // first provider has answered its stuck head (it never answered a head before), and
    // is excluded with it.
    let seen_excluded = poll(Duration::from_secs(60), || async {
        let text = scrape().await;
        let stuck_head = metric(&text, &head) == Some(stuck_at as f64);
        (stuck_head && metric(&text, &excluded) == Some(1.0)).then_some(())
    })
    .await;
    assert!(
        seen_excluded.is_some(),
        "the stuck provider was never excluded for its stuck head"
    );
    paid.extend(pay_a_round(&stack, "first provider stuck").await);

    // Flapping: down and up by turns.
    let flapper = {
        let first = first.clone();
        tokio::spawn(async move {
            for turn in 0u64.. {
                first.inject(if turn % 2 == 0 { down } else { healthy });
                tokio::time::sleep(Duration::from_millis(700)).await;
            }
        })
    };
    paid.extend(pay_a_round(&stack, "first provider flapping").await);
    flapper.abort();

    // Each session: one confirmed payment, on the transaction its buyer sent, in the block
    // the chain has it in.
    let buyer = funded_buyer(&stack.chain).await;
    for (session, tx) in &paid {
        let payments = stack.payments_of(session).await;
        assert_eq!(payments.len(), 1, "one payment for {session}: {payments:?}");
        let p = &payments[0];
        assert_eq!(p["status"], "confirmed");
        assert_eq!(p["tx_hash"].as_str().unwrap(), tx);
        let receipt = buyer
            .get_transaction_receipt(tx.parse::<ethers::types::H256>().unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            p["block_number"].as_str().unwrap(),
            receipt.block_number.unwrap().to_string()
        );
    }
    // No confirmation without a payment; each event once.
    let untouched = stack
        .get(&format!("/api/v1/checkout/sessions/{never_paid}"))
        .await;
    assert_eq!(untouched["status"], "open");
    let completed = stack.events_of_type("checkout.session.completed").await;
    assert_eq!(completed.len(), paid.len());
    assert_eq!(
        usdc_balance(&buyer, &stack.chain, &recipient).await,
        paid.len() as u128 * 2_475_000
    );

    let text = scrape().await;
    let failed = format!(
        "stablepay_rpc_provider_calls_total{{chain=\"{chain_id}\",provider=\"1\",outcome=\"failed\"}}"
    );
    let answered = format!(
        "stablepay_rpc_provider_calls_total{{chain=\"{chain_id}\",provider=\"2\",outcome=\"ok\"}}"
    );
    let failovers = format!("stablepay_rpc_failovers_total{{chain=\"{chain_id}\"}}");
    for series in [&failed, &answered, &failovers] {
        assert!(
            metric(&text, series).is_some_and(|n| n > 0.0),
            "{series} in:\n{text}"
        );
    }
}
