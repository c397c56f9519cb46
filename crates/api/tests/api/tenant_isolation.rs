//! Every mutating route that takes a resource id is scoped to the key's merchant and mode:
//! a stranger gets the spec's 404 (`not_found_error`) and the owner's resource is unchanged.
//!
//! Strangers are merchant B's test key and A's own live key. Wallets are the exception: they
//! belong to the merchant, not the mode (spec: "usable for test and live sessions"), so their
//! strangers are B's two keys.
//!
//! `webhook_endpoints::test_events_and_resends_over_http` already sends strangers' DELETEs, but
//! it only checks that the pending delivery survives. The DELETE test here checks the endpoint.
//! `POST /refunds` is covered without a chain because the payment lookup comes before any chain
//! read. There is no owner-side control for refunds, because recording a refund needs a mined
//! transfer.

use serde_json::{json, Value};
use stablepay_domain::rules::eip191;
use stablepay_postgres::testing::{execute_sql, fixtures};

use crate::support::*;

/// Another merchant, and the owner's other mode.
fn other_tenants(app: &TestApp) -> [&str; 2] {
    [app.b.test_key.as_str(), app.a.live_key.as_str()]
}

/// Wallets are per merchant, so only another merchant's keys are strangers.
fn other_merchant(app: &TestApp) -> [&str; 2] {
    [app.b.test_key.as_str(), app.b.live_key.as_str()]
}

/// `GET path` with `key`: must be 200; its JSON body.
async fn view(app: &TestApp, key: &str, path: &str) -> Value {
    let res = app.get(key, path).await;
    assert_eq!(res.status(), 200, "GET {path}");
    res.json().await.unwrap()
}

/// Each stranger's POST of `body` (a DELETE when `None`) to `path` is a 404 in the envelope.
async fn refused(app: &TestApp, strangers: [&str; 2], path: &str, body: Option<Value>) {
    for key in strangers {
        let res = match &body {
            Some(b) => app.post(key, path, b.clone()).await,
            None => app.delete(key, path).await,
        };
        assert_error(res, 404, "not_found_error").await;
    }
}

/// The owner's view of `path` is exactly what it was before the strangers tried.
async fn assert_untouched(app: &TestApp, key: &str, path: &str, before: &Value) {
    assert_eq!(
        &view(app, key, path).await,
        before,
        "{path} changed under a stranger's request"
    );
}

/// Nothing was enqueued or recorded in the strangers' own event lists either.
async fn assert_no_events_for(app: &TestApp, strangers: [&str; 2]) {
    for key in strangers {
        assert_eq!(view(app, key, "/webhook_events").await["data"], json!([]));
    }
}

/// 1 while the endpoint's secret was never rotated (no previous secret kept), else 0.
/// The secret is never readable through the API, so this looks at the row.
async fn never_rotated(app: &TestApp, endpoint: stablepay_domain::WebhookEndpointId) -> usize {
    execute_sql(
        &app.store,
        &format!(
            "UPDATE webhook_endpoints SET previous_secret_ciphertext = NULL \
             WHERE id = '{}' AND previous_secret_ciphertext IS NULL",
            endpoint.uuid()
        ),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn another_tenant_cannot_update_a_webhook_endpoint() {
    let app = spawn_app().await;
    let key = app.a.test_key.as_str();
    let (_, id) = app.webhook_endpoint(key).await;
    let path = format!("/webhook_endpoints/{id}");
    let before = view(&app, key, &path).await;
    assert_eq!(
        (before["url"].as_str(), before["status"].as_str()),
        (Some("https://m.example/h"), Some("enabled"))
    );
    // A valid change of every field: a 400 would come before the lookup, so a 404 is the scope.
    let hijack = json!({
        "url": "https://evil.example/h",
        "description": "hijacked",
        "status": "disabled",
        "enabled_events": ["payment.succeeded"],
    });
    refused(&app, other_tenants(&app), &path, Some(hijack)).await;
    assert_untouched(&app, key, &path, &before).await;
}

#[tokio::test]
async fn another_tenant_cannot_delete_a_webhook_endpoint() {
    let app = spawn_app().await;
    let key = app.a.test_key.as_str();
    let (_, id) = app.webhook_endpoint(key).await;
    let path = format!("/webhook_endpoints/{id}");
    let before = view(&app, key, &path).await;
    refused(&app, other_tenants(&app), &path, None).await;
    // Still retrievable and still enabled (a delete would disable it).
    assert_untouched(&app, key, &path, &before).await;
    assert_eq!(before["status"], "enabled");
}

#[tokio::test]
async fn another_tenant_cannot_rotate_a_webhook_endpoint_secret() {
    let app = spawn_app().await;
    let key = app.a.test_key.as_str();
    let (_, id) = app.webhook_endpoint(key).await;
    let path = format!("/webhook_endpoints/{id}");
    let before = view(&app, key, &path).await;
    let rotate = format!("{path}/rotate_secret");
    refused(&app, other_tenants(&app), &rotate, Some(json!({}))).await;
    assert_untouched(&app, key, &path, &before).await;
    assert_eq!(
        never_rotated(&app, id).await,
        1,
        "a stranger rotated the secret"
    );
    // Control: the owner's rotation is seen by the same probe.
    let res = app.post(key, &rotate, json!({})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(never_rotated(&app, id).await, 0);
}

#[tokio::test]
async fn another_tenant_cannot_send_a_test_event_to_a_webhook_endpoint() {
    let app = spawn_app().await;
    let key = app.a.test_key.as_str();
    let (_, id) = app.webhook_endpoint(key).await;
    let path = format!("/webhook_endpoints/{id}/test");
    // One event of the owner's own, so that the list compared below is not empty.
    let res = app.post(key, &path, json!({})).await;
    assert_eq!(res.status(), 201);
    let before = view(&app, key, "/webhook_events").await;
    assert_eq!(before["data"].as_array().unwrap().len(), 1);
    refused(&app, other_tenants(&app), &path, Some(json!({}))).await;
    assert_untouched(&app, key, "/webhook_events", &before).await;
    assert_no_events_for(&app, other_tenants(&app)).await;
}

#[tokio::test]
async fn another_tenant_cannot_recover_a_webhook_endpoint() {
    let app = spawn_app().await;
    let key = app.a.test_key.as_str();
    let (_, id) = app.webhook_endpoint(key).await;
    // A failed delivery since `since`: a recovery that got through would enqueue its resend.
    fixtures::webhook_event(&app.store, app.a.id, false, id, "payment.failed", "failed").await;
    let before = view(&app, key, "/webhook_events").await;
    let since = (chrono::Utc::now() - chrono::Duration::hours(1)).to_rfc3339();
    let path = format!("/webhook_endpoints/{id}/recover");
    let body = json!({ "since": since });
    refused(&app, other_tenants(&app), &path, Some(body.clone())).await;
    assert_untouched(&app, key, "/webhook_events", &before).await;
    assert_no_events_for(&app, other_tenants(&app)).await;
    // Control: the owner's recovery finds that delivery, so the 404s were the scope.
    let recovered = view_post(&app, key, &path, body).await;
    assert_eq!(recovered["enqueued"], 1);
}

#[tokio::test]
async fn another_tenant_cannot_resend_a_webhook_event() {
    let app = spawn_app().await;
    let key = app.a.test_key.as_str();
    let (_, endpoint) = app.webhook_endpoint(key).await;
    let event = fixtures::webhook_event(
        &app.store,
        app.a.id,
        false,
        endpoint,
        "payment.failed",
        "failed",
    )
    .await;
    let before = view(&app, key, "/webhook_events").await;
    let path = format!("/webhook_events/{event}/resend");
    refused(&app, other_tenants(&app), &path, Some(json!({}))).await;
    // No redelivery was enqueued under the owner's name or the strangers'.
    assert_untouched(&app, key, "/webhook_events", &before).await;
    assert_no_events_for(&app, other_tenants(&app)).await;
    // Control: the event was resendable all along.
    let res = app.post(key, &path, json!({})).await;
    assert_eq!(res.status(), 201);
}

#[tokio::test]
async fn another_merchant_cannot_revoke_a_wallet() {
    let app = spawn_app().await;
    let key = app.a.test_key.as_str();
    app.verified_wallet(key, &WALLET_KEY).await;
    let list = view(&app, key, "/wallets").await;
    let id = list["data"][0]["id"].as_str().unwrap();
    let path = format!("/wallets/{id}");
    let before = view(&app, key, &path).await;
    assert_eq!(before["status"], "verified");
    refused(&app, other_merchant(&app), &path, None).await;
    assert_untouched(&app, key, &path, &before).await;
    // Still usable as a session recipient (a revoked wallet is not).
    app.create_session(
        key,
        json!({ "mode": "payment", "title": "T", "amount": "1" }),
    )
    .await;
}

#[tokio::test]
async fn another_merchant_cannot_verify_a_wallet() {
    let app = spawn_app().await;
    let key = app.a.test_key.as_str();
    let reg = app.registered_wallet(key, &WALLET_KEY).await;
    let id = reg["id"].as_str().unwrap();
    let message = reg["verification"]["message"].as_str().unwrap();
    // A correct signature: only the wallet's owner merchant may spend the challenge.
    let sig = eip191::sign(message.as_bytes(), &WALLET_KEY)
        .unwrap()
        .to_hex();
    let path = format!("/wallets/{id}");
    let before = view(&app, key, &path).await;
    assert_eq!(before["status"], "pending");
    let verify = format!("{path}/verify");
    let body = json!({ "signature": sig });
    refused(&app, other_merchant(&app), &verify, Some(body.clone())).await;
    assert_untouched(&app, key, &path, &before).await;
    // Control: the challenge was not consumed; the owner can still verify with it.
    let verified = view_post(&app, key, &verify, body).await;
    assert_eq!(verified["status"], "verified");
}

#[tokio::test]
async fn another_tenant_cannot_refund_a_payment() {
    let app = spawn_app().await;
    let key = app.a.test_key.as_str();
    let payment = fixtures::payment(&app.store, app.a.id, false, "confirmed", None, None).await;
    let path = format!("/payments/{payment}");
    let refunds = format!("/refunds?payment={payment}");
    let before = view(&app, key, &path).await;
    let refunds_before = view(&app, key, &refunds).await;
    assert_eq!(refunds_before["data"], json!([]));
    // A valid body: the only reason to refuse it is that the payment is not the caller's.
    let body = json!({
        "payment": payment.to_string(),
        "tx_hash": format!("0x{}", "ab".repeat(32)),
        "amount": "1",
    });
    refused(&app, other_tenants(&app), "/refunds", Some(body)).await;
    assert_untouched(&app, key, &path, &before).await;
    assert_untouched(&app, key, &refunds, &refunds_before).await;
    for stranger in other_tenants(&app) {
        assert_eq!(view(&app, stranger, "/refunds").await["data"], json!([]));
    }
}

/// `POST path` with `key`: must be 200; its JSON body.
async fn view_post(app: &TestApp, key: &str, path: &str, body: Value) -> Value {
    let res = app.post(key, path, body).await;
    assert_eq!(res.status(), 200, "POST {path}");
    res.json().await.unwrap()
}
