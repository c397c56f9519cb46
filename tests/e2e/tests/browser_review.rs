//! The dashboard's review queue in a real Chromium (D33): two router payments from a payer
//! the dev sanctions oracle lists are held; the merchant finds them under "Held for
//! review", approves one (its checkout completes) and returns the other (a refund request
//! to its sender opens).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use stablepay_e2e::browser::{sign_in, Browser};
use stablepay_e2e::screening::{booked_router_payment, listed_buyer, screened_stack};
use stablepay_e2e::PrivateChain;

const WAIT: Duration = Duration::from_secs(60);

#[tokio::test]
async fn a_merchant_approves_and_returns_held_payments_from_the_review_queue() {
    let chain = PrivateChain::start(None).await;
    let stack = screened_stack(&chain, &[]).await;
    let buyer = listed_buyer(&chain, &stack).await;
    let (approved_session, approved) = booked_router_payment(&chain, &stack, &buyer, "7").await;
    let (returned_session, returned) = booked_router_payment(&chain, &stack, &buyer, "3").await;
    let (approved, returned) = (
        approved["id"].as_str().unwrap().to_owned(),
        returned["id"].as_str().unwrap().to_owned(),
    );

    let b = Browser::start(&[], 1280).await;
    sign_in(&b, &stack).await;
    let base = format!("{}/dashboard/test", stack.api);
    b.goto(&format!("{base}/payments")).await;
    b.click("#review-queue").await;
    b.wait_for(&format!("tr[data-id='{approved}']")).await;
    b.wait_for(&format!("tr[data-id='{returned}']")).await;

    b.goto(&format!("{base}/payments/{approved}")).await;
    assert!(b.text("#review-reason").await.contains("sanctions_oracle"));
    assert_eq!(b.text("#review-status").await, "pending");
    let proof = b.text("#screening").await;
    assert!(
        proof.contains("router") && proof.contains("listed"),
        "{proof}"
    );
    b.click("#review-approve button").await;
    b.wait_for_text(".notice", "Approved", WAIT).await;
    assert_eq!(b.text("#review-status").await, "approved");
    let session = stack
        .wait_for_session(&approved_session, "completed", Duration::from_secs(10))
        .await;
    assert_eq!(session["status"], "completed", "{session}");

    b.goto(&format!("{base}/payments/{returned}")).await;
    b.click("#review-return button").await;
    b.wait_for_text(".notice", "Returned", WAIT).await;
    assert_eq!(b.text("#review-status").await, "returned");
    b.goto(&format!("{base}/payments?review=pending")).await;
    assert!(b.page_text().await.contains("No payments match"));
    b.close().await;

    let requests = stack
        .get(&format!("/api/v1/refund_requests?payment={returned}"))
        .await;
    assert_eq!(requests["data"][0]["amount"], "3", "{requests}");
    let open = stack
        .get(&format!("/api/v1/checkout/sessions/{returned_session}"))
        .await;
    assert_eq!(open["status"], "open");
}

/// Settings → Screening payers (D33): live is required by the operator (no way to turn it
/// off); test mode is on by the deployment's default and this merchant turns it off, after
/// which a listed router payer's test payment completes as if nothing screened it.
#[tokio::test]
async fn a_merchant_turns_off_test_mode_screening_where_the_operator_allows_it() {
    let chain = PrivateChain::start(None).await;
    let stack = screened_stack(&chain, &[]).await;
    let buyer = listed_buyer(&chain, &stack).await;

    let b = Browser::start(&[], 1280).await;
    sign_in(&b, &stack).await;
    b.goto(&format!("{}/dashboard/test/settings", stack.api))
        .await;
    assert_eq!(
        b.text("#screening-live-required").await,
        "required by the operator"
    );
    assert_eq!(b.text("#screening-test-now").await, "Now: screened.");
    b.click("#screening-test option[value='off']").await;
    b.click("#screening-form button").await;
    b.wait_for_text(".notice", "Screening was saved", WAIT)
        .await;
    assert_eq!(b.text("#screening-test-now").await, "Now: not screened.");
    b.close().await;

    let (session, payment) = booked_router_payment(&chain, &stack, &buyer, "4").await;
    assert!(payment["review"].is_null(), "{payment}");
    let done = stack
        .wait_for_session(&session, "completed", Duration::from_secs(10))
        .await;
    assert_eq!(done["status"], "completed");
    let audit = stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT action || ' ' || after AS value FROM audit_events \
         WHERE action = 'settings.screening_updated'",
    )
    .await
    .unwrap();
    assert_eq!(
        audit,
        [r#"settings.screening_updated {"live":null,"test":false}"#],
        "{audit:?}"
    );
}
