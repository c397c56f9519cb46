use serde_json::{json, Value};
use stablepay_postgres::testing::fixtures;

use crate::support::*;

fn ids(list: &Value) -> Vec<String> {
    list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn payments_and_refunds_are_readable_and_filterable() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    app.verified_wallet(key, &WALLET_KEY).await;
    let s = app
        .create_session(
            key,
            json!({ "mode": "payment", "title": "T", "amount": "10" }),
        )
        .await;
    let session = stablepay_domain::CheckoutSessionId::parse(s["id"].as_str().unwrap()).unwrap();
    let confirmed = fixtures::payment(
        &app.store,
        app.a.id,
        false,
        "confirmed",
        Some(session),
        None,
    )
    .await;
    let pending = fixtures::payment(&app.store, app.a.id, false, "pending", None, None).await;
    let _live = fixtures::payment(&app.store, app.a.id, true, "confirmed", None, None).await;
    let _other = fixtures::payment(&app.store, app.b.id, false, "confirmed", None, None).await;

    let all: Value = app.get(key, "/payments").await.json().await.unwrap();
    assert_eq!(ids(&all), [pending.to_string(), confirmed.to_string()]);
    let p = &all["data"][1];
    assert_eq!(p["object"], "payment");
    assert_eq!(
        (
            p["amount"].as_str(),
            p["fee_amount"].as_str(),
            p["merchant_amount"].as_str(),
            p["refunded_amount"].as_str()
        ),
        (Some("10"), Some("0.1"), Some("9.9"), Some("0"))
    );
    assert_eq!(
        (p["charge_type"].as_str(), p["block_number"].as_str()),
        (Some("one_time"), Some("1234"))
    );
    assert_eq!(p["checkout_session"], s["id"]);
    assert_eq!(p["customer_reference"], "cust-7");
    assert!(p["customer"].as_str().unwrap().starts_with("cus_"));

    let by_status: Value = app
        .get(key, "/payments?status=pending")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ids(&by_status), [pending.to_string()]);
    let by_session: Value = app
        .get(
            key,
            &format!("/payments?checkout_session={}", s["id"].as_str().unwrap()),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ids(&by_session), [confirmed.to_string()]);
    let one: Value = app
        .get(key, &format!("/payments/{confirmed}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(one["id"], confirmed.to_string());
    assert_error(
        app.get(&app.a.live_key, &format!("/payments/{confirmed}"))
            .await,
        404,
        "not_found_error",
    )
    .await;
    assert_error(
        app.get(key, "/payments?checkout_session=pay_x").await,
        400,
        "invalid_request_error",
    )
    .await;

    let refund = fixtures::refund(&app.store, app.a.id, false, confirmed).await;
    fixtures::refund(&app.store, app.a.id, false, pending).await;
    let refunds: Value = app
        .get(key, &format!("/refunds?payment={confirmed}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ids(&refunds), [refund.to_string()]);
    let r: Value = app
        .get(key, &format!("/refunds/{refund}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (
            r["object"].as_str(),
            r["amount"].as_str(),
            r["status"].as_str()
        ),
        (Some("refund"), Some("2.5"), Some("succeeded"))
    );
    assert_eq!(r["payment"], confirmed.to_string());
}

#[tokio::test]
async fn subscriptions_attempts_and_webhook_events_are_readable_and_filterable() {
    let app = spawn_app().await;
    let key = &app.a.live_key;
    let active = fixtures::subscription(&app.store, app.a.id, "active", 0xa1).await;
    let past_due = fixtures::subscription(&app.store, app.a.id, "past_due", 0xa2).await;
    let subs: Value = app.get(key, "/subscriptions").await.json().await.unwrap();
    assert_eq!(ids(&subs), [past_due.to_string(), active.to_string()]);
    let filtered: Value = app
        .get(key, "/subscriptions?status=active")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ids(&filtered), [active.to_string()]);
    let wallet = format!("0x{}", "a2".repeat(20));
    let by_wallet: Value = app
        .get(key, &format!("/subscriptions?wallet_address={wallet}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ids(&by_wallet), [past_due.to_string()]);
    let one: Value = app
        .get(key, &format!("/subscriptions/{active}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (
            one["object"].as_str(),
            one["amount"].as_str(),
            one["retry_count"].as_u64()
        ),
        (Some("subscription"), Some("5"), Some(0))
    );
    assert_error(
        app.get(&app.a.test_key, &format!("/subscriptions/{active}"))
            .await,
        404,
        "not_found_error",
    )
    .await;
    assert_error(
        app.get(key, "/subscriptions?status=late").await,
        400,
        "invalid_request_error",
    )
    .await;

    fixtures::attempt(&app.store, app.a.id, past_due, "failed", 1).await;
    fixtures::attempt(&app.store, app.a.id, active, "succeeded", 1).await;
    let failed: Value = app
        .get(key, "/payment_attempts?status=failed")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(failed["data"].as_array().unwrap().len(), 1);
    assert_eq!(failed["data"][0]["failure_code"], "insufficient_allowance");
    assert_eq!(failed["data"][0]["object"], "payment_attempt");
    let for_sub: Value = app
        .get(key, &format!("/payment_attempts?subscription={active}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(for_sub["data"][0]["status"], "succeeded");

    let (ep, endpoint) = app.webhook_endpoint(key).await;
    let ok = fixtures::webhook_event(
        &app.store,
        app.a.id,
        true,
        endpoint,
        "payment.succeeded",
        "succeeded",
    )
    .await;
    let pending = fixtures::webhook_event(
        &app.store,
        app.a.id,
        true,
        endpoint,
        "payment.failed",
        "pending",
    )
    .await;
    let events: Value = app.get(key, "/webhook_events").await.json().await.unwrap();
    assert_eq!(ids(&events), [pending.to_string(), ok.to_string()]);
    let by_type: Value = app
        .get(key, "/webhook_events?type=payment.succeeded")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ids(&by_type), [ok.to_string()]);
    let by_status: Value = app
        .get(key, "/webhook_events?status=pending")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ids(&by_status), [pending.to_string()]);
    let e = &by_type["data"][0];
    assert_eq!(
        (
            e["object"].as_str(),
            e["type"].as_str(),
            e["response_status"].as_u64()
        ),
        (Some("webhook_event"), Some("payment.succeeded"), Some(200))
    );
    assert_eq!(e["payload"]["id"], ok.to_string());
    assert_eq!(e["endpoint"], ep["id"]);
    assert_error(
        app.get(key, "/webhook_events?type=nope").await,
        400,
        "invalid_request_error",
    )
    .await;
}

#[tokio::test]
async fn every_attempt_at_a_delivery_is_listed_newest_first_to_its_owner_only() {
    let app = spawn_app().await;
    let key = &app.a.live_key;
    let (_, endpoint) = app.webhook_endpoint(key).await;
    let delivery = fixtures::webhook_event(
        &app.store,
        app.a.id,
        true,
        endpoint,
        "payment.failed",
        "pending",
    )
    .await;
    let first =
        fixtures::webhook_attempt(&app.store, delivery, Some(500), Some("boom"), None).await;
    let second = fixtures::webhook_attempt(
        &app.store,
        delivery,
        None,
        None,
        Some("timed out after 10 s"),
    )
    .await;
    let path = format!("/webhook_events/{delivery}/attempts");
    let list: Value = app.get(key, &path).await.json().await.unwrap();
    assert_eq!(ids(&list), [second.to_string(), first.to_string()]);
    let a = &list["data"][1];
    assert_eq!(
        (
            a["object"].as_str(),
            a["livemode"].as_bool(),
            a["webhook_event"].as_str(),
            a["response_status"].as_u64(),
            a["response_body"].as_str(),
            a["duration_ms"].as_u64()
        ),
        (
            Some("webhook_attempt"),
            Some(true),
            Some(delivery.to_string().as_str()),
            Some(500),
            Some("boom"),
            Some(42)
        )
    );
    assert!(a["error"].is_null() && a["attempted_at"].is_string());
    assert_eq!(list["data"][0]["error"], "timed out after 10 s");
    let page: Value = app
        .get(key, &format!("{path}?limit=1"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (ids(&page), &page["has_more"]),
        (vec![second.to_string()], &json!(true))
    );
    let rest: Value = app
        .get(key, &format!("{path}?limit=1&starting_after={second}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ids(&rest), [first.to_string()]);
    // Another merchant, the other mode, an unknown or malformed id: 404 in the envelope.
    for (k, p) in [
        (&app.b.live_key, path.clone()),
        (&app.a.test_key, path.clone()),
        (
            key,
            format!(
                "/webhook_events/{}/attempts",
                stablepay_domain::EventId::generate()
            ),
        ),
        (key, "/webhook_events/nope/attempts".to_owned()),
    ] {
        assert_error(app.get(k, &p).await, 404, "not_found_error").await;
    }
}
