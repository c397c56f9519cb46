//! Subscribers screened (D33), on anvil at depth 2: one a sanctions source lists after
//! subscribing is paused by the keeper (`payer_sanctioned`) and charged nothing more; one
//! listed when it subscribes has its first charge held for review (the money already
//! moved), its subscription recorded paused, and the session completes only once approved.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use ethers::signers::Signer;
use stablepay_e2e::screening::{listed_buyer, oracle_owner, screened_stack};
use stablepay_e2e::subscriptions::{
    chain_time, merchant_plan, send_subscribe, subscribe, subscription_of, succeeded_periods,
    wait_chain_time, wait_sub, INTERVAL,
};
use stablepay_e2e::{poll, PrivateChain, Stack};

/// A screened stack with short plan intervals, dunning and chain polling.
async fn subscription_stack(chain: &PrivateChain) -> Stack {
    screened_stack(
        chain,
        &[
            ("STABLEPAY_PLAN_MIN_INTERVAL", "1s"),
            ("STABLEPAY_DUNNING_DELAYS", "3s"),
            ("STABLEPAY_CHAIN_POLL", "250ms"),
        ],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_listed_after_subscribing_is_paused_and_never_charged_again() {
    let chain = PrivateChain::start_live(Some(1)).await;
    let stack = subscription_stack(&chain).await;
    let (plan, _, _) = merchant_plan(&stack).await;
    let (session, buyer) = subscribe(&stack, plan, 100).await;
    let id = subscription_of(&stack, &session).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // A renewal by the keeper, its subscriber screened clear.
    poll(Duration::from_secs(40), || async {
        (succeeded_periods(&stack, &id).await.len() >= 2).then_some(())
    })
    .await
    .expect("a renewal");

    oracle_owner(&chain)
        .await
        .add_to_sanctions_list(vec![buyer.signer().address()])
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
    let paused = wait_sub(&stack, &id, 40, |s| s["status"] == "paused").await;
    assert_eq!(paused["last_failure_code"], "payer_sanctioned", "{paused}");
    let charged = succeeded_periods(&stack, &id).await;
    // Two more periods fall due on chain: nothing is charged.
    wait_chain_time(&chain, chain_time(&chain).await + 2 * INTERVAL as i64).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(succeeded_periods(&stack, &id).await, charged);
    let still = stack.get(&format!("/api/v1/subscriptions/{id}")).await;
    assert_eq!(still["status"], "paused");
    let checks = stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT path || ' ' || answer AS value FROM screening_checks \
         WHERE subscription_id IS NOT NULL ORDER BY id",
    )
    .await
    .unwrap();
    assert!(
        checks
            .first()
            .is_some_and(|c| c == "subscription_charge clear"),
        "{checks:?}"
    );
    assert_eq!(
        checks.last().map(String::as_str),
        Some("subscription_charge listed")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listed_subscriber_s_first_charge_is_held_and_completes_once_approved() {
    let chain = PrivateChain::start_live(Some(1)).await;
    let stack = subscription_stack(&chain).await;
    let (plan, _, _) = merchant_plan(&stack).await;
    stack.record_events().await;
    let buyer = listed_buyer(&chain, &stack).await;
    let session = send_subscribe(&stack, plan, 100, &buyer).await;
    let held = poll(Duration::from_secs(30), || async {
        let payments = stack.payments_of(&session).await;
        payments
            .first()
            .filter(|p| p["review"]["status"] == "pending")
            .cloned()
    })
    .await
    .expect("the first charge is booked held");
    assert_eq!(held["status"], "confirmed", "{held}");
    let shown = stack
        .get(&format!("/api/v1/checkout/sessions/{session}"))
        .await;
    assert_eq!(shown["status"], "open", "{shown}");
    let sub = subscription_of(&stack, &session).await;
    assert_eq!(sub["status"], "paused", "{sub}");
    assert_eq!(sub["last_failure_code"], "payer_sanctioned");
    assert_eq!(
        stack.events_of_type("payment.requires_review").await.len(),
        1
    );
    assert!(stack
        .events_of_type("checkout.session.completed")
        .await
        .is_empty());

    let pid = held["id"].as_str().unwrap();
    let (status, approved) = stack
        .post(
            &format!("/api/v1/payments/{pid}/review"),
            serde_json::json!({ "decision": "approve" }),
        )
        .await;
    assert_eq!(status, 200, "{approved}");
    let done = stack
        .wait_for_session(&session, "completed", Duration::from_secs(10))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["subscription"], sub["id"]);
    assert_eq!(
        stack
            .events_of_type("checkout.session.completed")
            .await
            .len(),
        1
    );
    // Approving the payment does not resume charging a listed subscriber.
    let still = stack
        .get(&format!(
            "/api/v1/subscriptions/{}",
            sub["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(still["status"], "paused");
    let checks = stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT path || ' ' || answer AS value FROM screening_checks ORDER BY id",
    )
    .await
    .unwrap();
    assert_eq!(
        checks.first().map(String::as_str),
        Some("subscribe listed"),
        "{checks:?}"
    );
}
