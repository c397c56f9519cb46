//! Payers screened after the money moved (D33): a router payment from a payer the dev
//! sanctions oracle lists is booked held for review at depth (2), its session left open
//! and only `payment.requires_review` fired; the merchant approves it (the session
//! completes and the usual events fire, once) or returns it (a refund request to its
//! sender for the whole amount).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{json, Value};
use stablepay_e2e::screening::{booked_router_payment, listed_buyer};
use stablepay_e2e::*;

/// A stack screening test-mode payers with the dev oracle, a verified wallet, events kept.
async fn screened_stack(chain: &PrivateChain) -> Stack {
    let stack = stablepay_e2e::screening::screened_stack(chain, &[]).await;
    stack.record_events().await;
    stack
}

async fn count(stack: &Stack, event_type: &str) -> usize {
    stack.events_of_type(event_type).await.len()
}

#[tokio::test]
async fn a_listed_router_payer_is_held_then_approved_once_or_returned() {
    let chain = PrivateChain::start(None).await;
    let stack = screened_stack(&chain).await;
    let buyer = listed_buyer(&chain, &stack).await;

    let (session, payment) = booked_router_payment(&chain, &stack, &buyer, "12.5").await;
    assert_eq!(payment["review"]["status"], "pending", "{payment}");
    assert_eq!(payment["review"]["source"], "sanctions_oracle");
    assert_eq!(payment["amount"], "12.5");
    let shown = stack
        .get(&format!("/api/v1/checkout/sessions/{session}"))
        .await;
    assert_eq!(
        shown["status"], "open",
        "held: the session is not completed"
    );
    assert_eq!(count(&stack, "payment.requires_review").await, 1);
    assert_eq!(count(&stack, "checkout.session.completed").await, 0);
    assert_eq!(count(&stack, "payment.succeeded").await, 0);
    held_past_expiry_stays_open(&stack, &session).await;

    let pid = payment["id"].as_str().unwrap();
    assert_eq!(ledger_review(&stack, pid).await, ["pending", "pending"]);
    let proof = stack
        .get(&format!("/api/v1/payments/{pid}/screening_checks"))
        .await;
    let check = &proof["data"][0];
    assert_eq!(check["object"], "screening_check", "{proof}");
    assert_eq!(check["path"], "router");
    assert_eq!(check["answer"], "listed");
    assert_eq!(check["source"], "sanctions_oracle");
    assert_eq!(check["list"], "sanctions_oracle");
    assert_eq!(
        check["address"].as_str().unwrap().to_lowercase(),
        format!("{:#x}", buyer.address())
    );
    let missing = stack
        .get_raw("/api/v1/payments/pay_0355RGziS6Gwe8zF5hRoCU/screening_checks")
        .await;
    assert_eq!(missing.status(), 404);
    let review = format!("/api/v1/payments/{pid}/review");
    let (status, body) = stack.post(&review, json!({ "decision": "keep" })).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["details"][0]["field"], "decision");
    let (status, approved) = stack.post(&review, json!({ "decision": "approve" })).await;
    assert_eq!(status, 200, "{approved}");
    assert_eq!(approved["review"]["status"], "approved");
    let shown = stack
        .wait_for_session(&session, "completed", Duration::from_secs(10))
        .await;
    assert_eq!(shown["status"], "completed", "{shown}");
    let (status, again) = stack.post(&review, json!({ "decision": "approve" })).await;
    assert_eq!(status, 409, "{again}");
    assert_eq!(count(&stack, "checkout.session.completed").await, 1);
    assert_eq!(count(&stack, "payment.succeeded").await, 1);
    assert_eq!(ledger_review(&stack, pid).await, ["approved", "approved"]);

    // Returned: a refund request to the sender for the whole amount; the session waits.
    let (session, payment) = booked_router_payment(&chain, &stack, &buyer, "12.5").await;
    let pid = payment["id"].as_str().unwrap();
    let (status, returned) = stack
        .post(
            &format!("/api/v1/payments/{pid}/review"),
            json!({ "decision": "return" }),
        )
        .await;
    assert_eq!(status, 200, "{returned}");
    assert_eq!(returned["review"]["status"], "returned");
    let requests = stack
        .get(&format!("/api/v1/refund_requests?payment={pid}"))
        .await;
    let request: &Value = &requests["data"][0];
    assert_eq!(request["amount"], "12.5", "{requests}");
    assert_eq!(request["status"], "awaiting_address");
    let shown = stack
        .get(&format!("/api/v1/checkout/sessions/{session}"))
        .await;
    assert_eq!(shown["status"], "open");
    assert_eq!(count(&stack, "payment.requires_review").await, 2);
    assert_eq!(count(&stack, "payment.succeeded").await, 1);
    let checks = stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT path || ' ' || answer AS value FROM screening_checks ORDER BY id",
    )
    .await
    .unwrap();
    // One check per settling pass at depth (the watcher and a re-check may both pass).
    assert!(checks.len() >= 2, "{checks:?}");
    assert!(checks.iter().all(|c| c == "router listed"), "{checks:?}");
}

/// The screening state of `payment`'s ledger entries: as the list shows it, then as the
/// export's `review` column does (both read it now, not when the entry was written).
async fn ledger_review(stack: &Stack, payment: &str) -> [String; 2] {
    let page = stack
        .get(&format!("/api/v1/balance_transactions?payment={payment}"))
        .await;
    let entries = page["data"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{page}");
    let listed = entries[0]["review"].as_str().unwrap_or("null").to_owned();
    let csv = stack
        .get_raw(&format!(
            "/api/v1/balance_transactions/export?payment={payment}"
        ))
        .await
        .text()
        .await
        .unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "review").unwrap();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    [listed, row[column].to_owned()]
}

/// D33: a session whose payment waits for review does not expire. Its expiry is moved
/// into the past (the minimum `expires_in` is 10 minutes); every read still shows it open,
/// and the buyer's page says the money arrived instead of asking for it again.
async fn held_past_expiry_stays_open(stack: &Stack, session: &str) {
    let moved = stablepay_postgres::testing::execute_sql(
        &stack.store,
        &format!(
            "UPDATE checkout_sessions SET expires_at = now() - interval '1 hour' \
             WHERE id = '{}'",
            stablepay_domain::CheckoutSessionId::parse(session)
                .unwrap()
                .uuid()
        ),
    )
    .await
    .unwrap();
    assert_eq!(moved, 1);
    let shown = stack
        .get(&format!("/api/v1/checkout/sessions/{session}"))
        .await;
    assert_eq!(shown["status"], "open", "{shown}");
    let listed = |status: &'static str| async move {
        let page = stack
            .get(&format!("/api/v1/checkout/sessions?status={status}"))
            .await;
        page["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["id"] == session)
    };
    assert!(listed("open").await, "listed as open");
    assert!(!listed("expired").await, "not listed as expired");
    let page = stack.get_raw(&format!("/pay/{session}")).await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains(r#"data-state="processing""#), "{html}");
}

/// Polls `check` for 30 s, mining a block each time (sweeps count at depth).
async fn mining_until<F, Fut>(chain: &PrivateChain, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..150 {
        if check().await {
            return true;
        }
        chain.mine(1).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    false
}

#[tokio::test]
async fn a_listed_deposit_sender_is_booked_held_and_swept_only_once_approved() {
    let chain = PrivateChain::start(None).await;
    let stack = screened_stack(&chain).await;
    let listed = listed_buyer(&chain, &stack).await;
    let clear = funded_buyer(&stack.chain).await;
    let deposit_of = |id: String| {
        let stack = &stack;
        async move {
            let s = stack.get(&format!("/api/v1/checkout/sessions/{id}")).await;
            s["deposit_address"].as_str().unwrap().to_owned()
        }
    };
    let held_session = stack.open_session("12.5").await;
    let held_deposit = deposit_of(held_session.clone()).await;
    let clear_session = stack.open_session("12.5").await;
    let clear_deposit = deposit_of(clear_session.clone()).await;
    send_transfer(&listed, &stack.chain.usdc, &held_deposit, 12_500_000).await;
    send_transfer(&clear, &stack.chain.usdc, &clear_deposit, 12_500_000).await;

    // The clear sender's money completes its session and is swept on; the listed one's is
    // booked held and stays at its deposit address.
    assert!(
        mining_until(&chain, || async {
            usdc_balance(&clear, &stack.chain, &clear_deposit).await == 0
        })
        .await,
        "the clear deposit is swept"
    );
    let held = stack.payments_of(&held_session).await;
    assert_eq!(held.len(), 1, "{held:?}");
    assert_eq!(held[0]["review"]["status"], "pending", "{}", held[0]);
    let shown = stack
        .get(&format!("/api/v1/checkout/sessions/{held_session}"))
        .await;
    assert_eq!(shown["status"], "open");
    assert_eq!(shown["amount_received"], "12.5");
    chain.mine(5).await;
    assert_eq!(
        usdc_balance(&listed, &stack.chain, &held_deposit).await,
        12_500_000,
        "nothing of a session under review is swept"
    );
    assert_eq!(
        stack
            .get(&format!("/api/v1/checkout/sessions/{clear_session}"))
            .await["status"],
        "completed"
    );
    assert_eq!(count(&stack, "payment.requires_review").await, 1);
    assert_eq!(count(&stack, "checkout.session.completed").await, 1);

    let pid = held[0]["id"].as_str().unwrap();
    let (status, body) = stack
        .post(
            &format!("/api/v1/payments/{pid}/review"),
            json!({ "decision": "approve" }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        mining_until(&chain, || async {
            usdc_balance(&listed, &stack.chain, &held_deposit).await == 0
        })
        .await,
        "approved, it is swept"
    );
    assert_eq!(count(&stack, "checkout.session.completed").await, 2);
}
