//! Settlement through a lagging, flaky provider (D17): the service reads the chain through a
//! fault-injecting JSON-RPC proxy (receipts and blocks `null`, errors, answers past the
//! timeout, wide `eth_getLogs` ranges refused) while buyers pay on anvil directly. Every
//! payment settles exactly once; an unknown answer is never a verdict.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;
use stablepay_e2e::*;

const PAYMENTS: usize = 200;

#[tokio::test(flavor = "multi_thread")]
async fn two_hundred_payments_settle_exactly_once_through_a_faulty_provider() {
    let chain = PrivateChain::start(Some(1)).await;
    // A history longer than the provider's log range, for the first scan to trip over.
    chain.mine(100).await;
    let proxy = FaultProxy::start(&chain.rpc).await;
    // From the first scan (1,000 blocks back), wide log ranges are refused.
    let refuse_wide_ranges = Faults {
        max_log_range: 20,
        ..Faults::default()
    };
    proxy.inject(refuse_wide_ranges);
    let stack = Stack::start_with(StackOptions {
        service_rpc: Some(proxy.url.clone()),
        env: vec![("STABLEPAY_RPC_TIMEOUT_MS".into(), "1000".into())],
        ..StackOptions::on(&chain)
    })
    .await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    stack.record_events().await;
    proxy.inject(Faults {
        null_percent: 30,
        error_percent: 10,
        delay_percent: 5,
        delay: Duration::from_millis(1500),
        ..refuse_wide_ranges
    });

    let mut sessions = Vec::new();
    for _ in 0..PAYMENTS {
        sessions.push(stack.open_session("1.25").await);
    }
    // Buyers pay concurrently; every other one also reports through the fast path (whose
    // answer may be a 503 through this provider), the rest closed the tab.
    let stack_ref = &stack;
    let fast_path_503s: usize = futures_util::stream::iter(sessions.iter().enumerate())
        .map(|(i, session)| async move {
            let (status, intent) = stack_ref.intent(session).await;
            assert_eq!(status, 200, "{intent}");
            let buyer = funded_buyer(&stack_ref.chain).await;
            let tx = pay_intent(&buyer, &intent).await;
            if i % 2 == 0 {
                let (status, _, body) = stack_ref.confirm(session, &tx).await;
                assert!(status == 200 || status == 503, "{status} {body}");
                return usize::from(status == 503);
            }
            0
        })
        .buffer_unordered(100)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .sum();

    let all_done = poll(Duration::from_secs(180), || async {
        let open = stack
            .get("/api/v1/checkout/sessions?status=open&limit=1")
            .await;
        open["data"].as_array().unwrap().is_empty().then_some(())
    })
    .await;
    if all_done.is_none() {
        let mut open = 0;
        for session in &sessions {
            let s = stack
                .get(&format!("/api/v1/checkout/sessions/{session}"))
                .await;
            open += usize::from(s["status"] == "open");
        }
        let pending = stack.get("/api/v1/payments?status=pending&limit=100").await;
        panic!(
            "{open} of {PAYMENTS} sessions still open; {} pending payments",
            pending["data"].as_array().unwrap().len()
        );
    }

    // 200 confirmed payments, one per session, none failed.
    let mut payments: Vec<Value> = Vec::new();
    for session in &sessions {
        let p = stack.payments_of(session).await;
        assert_eq!(p.len(), 1, "one payment for {session}: {p:?}");
        payments.extend(p);
    }
    assert!(payments.iter().all(|p| p["status"] == "confirmed"));
    let failed = stack.get("/api/v1/payments?status=failed").await;
    assert!(failed["data"].as_array().unwrap().is_empty());
    // Exactly one event of each type per session.
    for event_type in ["checkout.session.completed", "payment.succeeded"] {
        let events = stack.events_of_type(event_type).await;
        assert_eq!(events.len(), PAYMENTS, "{event_type}");
        let objects: HashSet<String> = events
            .iter()
            .map(|e| {
                e["payload"]["data"]["object"]["id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(
            objects.len(),
            PAYMENTS,
            "{event_type} fired twice for one object"
        );
    }
    let buyer = funded_buyer(&stack.chain).await;
    assert_eq!(
        usdc_balance(&buyer, &stack.chain, &recipient).await,
        PAYMENTS as u128 * 1_237_500
    );
    // The provider really misbehaved.
    let c = &proxy.counts;
    let counts = [
        c.nulls.load(Ordering::Relaxed),
        c.errors.load(Ordering::Relaxed),
        c.delays.load(Ordering::Relaxed),
        c.refused_ranges.load(Ordering::Relaxed),
    ];
    println!(
        "faults: {} calls, nulls/errors/delays/refused ranges = {counts:?}, fast-path 503s = {fast_path_503s}",
        c.calls.load(Ordering::Relaxed)
    );
    assert!(
        counts.iter().all(|n| *n > 0),
        "every fault was injected: {counts:?}"
    );
}
