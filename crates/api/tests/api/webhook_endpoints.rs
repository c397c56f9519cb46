use serde_json::{json, Value};

use crate::support::*;

#[tokio::test]
async fn create_shows_the_secret_once_and_manages_the_endpoint() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    let res = app
        .client
        .post(app.url("/webhook_endpoints"))
        .bearer_auth(key)
        .header("Idempotency-Key", "ep-1")
        .json(&json!({ "url": "https://merchant.example/hooks", "enabled_events": ["payment.succeeded", "payment.refunded"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let e: Value = res.json().await.unwrap();
    let id = e["id"].as_str().unwrap();
    assert!(id.starts_with("we_"));
    assert_eq!(e["object"], "webhook_endpoint");
    assert_eq!(e["livemode"], false);
    assert_eq!(e["status"], "enabled");
    assert!(e["secret"].as_str().unwrap().starts_with("whsec_"));
    assert_eq!(
        e["enabled_events"],
        json!(["payment.succeeded", "payment.refunded"])
    );

    // An idempotent replay returns the endpoint without the secret.
    let replay = app
        .client
        .post(app.url("/webhook_endpoints"))
        .bearer_auth(key)
        .header("Idempotency-Key", "ep-1")
        .json(&json!({ "url": "https://merchant.example/hooks", "enabled_events": ["payment.succeeded", "payment.refunded"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        replay.headers().get("idempotency-replayed").unwrap(),
        "true"
    );
    let replay: Value = replay.json().await.unwrap();
    assert_eq!(replay["id"], id);
    assert!(replay.get("secret").is_none());

    let got: Value = app
        .get(key, &format!("/webhook_endpoints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert!(got.get("secret").is_none());
    let list: Value = app
        .get(key, "/webhook_endpoints")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert!(list["data"][0].get("secret").is_none());
    // Mode-scoped.
    let live: Value = app
        .get(&app.a.live_key, "/webhook_endpoints")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(live["data"], json!([]));

    let updated: Value = app
        .post(key, &format!("/webhook_endpoints/{id}"), json!({ "status": "disabled", "enabled_events": [], "url": "http://localhost:4242/hooks" }))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (updated["status"].as_str(), updated["url"].as_str()),
        (Some("disabled"), Some("http://localhost:4242/hooks"))
    );
    assert_eq!(updated["enabled_events"], json!([]));

    let rotated: Value = app
        .post(
            key,
            &format!("/webhook_endpoints/{id}/rotate_secret"),
            json!({}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert!(rotated["secret"].as_str().unwrap().starts_with("whsec_"));
    assert_ne!(rotated["secret"], e["secret"]);

    let deleted: Value = app
        .delete(key, &format!("/webhook_endpoints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        deleted,
        json!({ "id": id, "object": "webhook_endpoint", "deleted": true })
    );
    assert_error(
        app.get(key, &format!("/webhook_endpoints/{id}")).await,
        404,
        "not_found_error",
    )
    .await;
    assert_error(
        app.delete(key, &format!("/webhook_endpoints/{id}")).await,
        404,
        "not_found_error",
    )
    .await;
}

#[tokio::test]
async fn url_and_event_rules() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    for (body, field) in [
        (json!({}), "url"),
        (json!({ "url": "http://merchant.example/hooks" }), "url"),
        (json!({ "url": "not a url" }), "url"),
        (
            json!({ "url": format!("https://merchant.example/{}", "a".repeat(2000)) }),
            "url",
        ),
        (
            json!({ "url": "https://merchant.example", "enabled_events": ["payment.created"] }),
            "enabled_events[0]",
        ),
        (
            json!({ "url": "https://merchant.example", "enabled_events": "payment.succeeded" }),
            "enabled_events",
        ),
    ] {
        let err = assert_error(
            app.post(key, "/webhook_endpoints", body.clone()).await,
            400,
            "invalid_request_error",
        )
        .await;
        assert_eq!(detail_fields(&err), [field], "{body}");
    }
    let all: Value = app
        .post(
            key,
            "/webhook_endpoints",
            json!({ "url": "http://localhost:9999/x" }),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(all["enabled_events"], json!([]));
    let id = all["id"].as_str().unwrap();
    let err = assert_error(
        app.post(
            key,
            &format!("/webhook_endpoints/{id}"),
            json!({ "status": "paused" }),
        )
        .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["status"]);
    assert_error(
        app.post(
            &app.b.test_key,
            &format!("/webhook_endpoints/{id}"),
            json!({ "status": "disabled" }),
        )
        .await,
        404,
        "not_found_error",
    )
    .await;
}

#[tokio::test]
async fn test_events_and_resends_over_http() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    let ep: Value = app.post(key, "/webhook_endpoints", json!({ "url": "https://m.example/h", "enabled_events": ["payment.succeeded", "checkout.session.completed"] })).await.json().await.unwrap();
    let id = ep["id"].as_str().unwrap();
    let res = app
        .post(key, &format!("/webhook_endpoints/{id}/test"), json!({}))
        .await;
    assert_eq!(res.status(), 201);
    let event: Value = res.json().await.unwrap();
    assert_eq!(
        (
            event["object"].as_str(),
            event["type"].as_str(),
            event["status"].as_str()
        ),
        (
            Some("webhook_event"),
            Some("payment.succeeded"),
            Some("pending")
        )
    );
    assert_eq!(event["endpoint"], id);
    assert_eq!(event["payload"]["id"], event["id"]);
    assert_eq!(event["payload"]["data"]["object"]["livemode"], false);
    // Synthetic ids never resolve.
    let synthetic = event["payload"]["data"]["object"]["id"].as_str().unwrap();
    assert!(synthetic.starts_with("pay_test_"));
    assert_error(
        app.get(key, &format!("/payments/{synthetic}")).await,
        404,
        "not_found_error",
    )
    .await;
    let session_id = event["payload"]["data"]["object"]["checkout_session"]
        .as_str()
        .unwrap();
    assert_error(
        app.get(key, &format!("/checkout/sessions/{session_id}"))
            .await,
        404,
        "not_found_error",
    )
    .await;

    let typed: Value = app
        .post(
            key,
            &format!("/webhook_endpoints/{id}/test"),
            json!({ "type": "checkout.session.completed" }),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        typed["payload"]["data"]["object"]["object"],
        "checkout.session"
    );
    let err = assert_error(
        app.post(
            key,
            &format!("/webhook_endpoints/{id}/test"),
            json!({ "type": "payment.refunded" }),
        )
        .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["type"]);
    let err = assert_error(
        app.post(
            key,
            &format!("/webhook_endpoints/{id}/test"),
            json!({ "type": "nope" }),
        )
        .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["type"]);
    assert_error(
        app.post(
            &app.a.live_key,
            &format!("/webhook_endpoints/{id}/test"),
            json!({}),
        )
        .await,
        404,
        "not_found_error",
    )
    .await;

    // Still pending (no worker runs here): a resend is a conflict.
    let eid = event["id"].as_str().unwrap();
    assert_error(
        app.post(key, &format!("/webhook_events/{eid}/resend"), json!({}))
            .await,
        409,
        "conflict_error",
    )
    .await;
    assert_error(
        app.post(key, "/webhook_events/evt_nope/resend", json!({}))
            .await,
        404,
        "not_found_error",
    )
    .await;
    // A disabled endpoint: 400.
    app.post(
        key,
        &format!("/webhook_endpoints/{id}"),
        json!({ "status": "disabled" }),
    )
    .await;
    assert_error(
        app.post(key, &format!("/webhook_events/{eid}/resend"), json!({}))
            .await,
        400,
        "invalid_request_error",
    )
    .await;
    let listed: Value = app
        .get(key, "/webhook_events?type=payment.succeeded")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["data"][0]["id"], eid);
    // Another merchant's DELETE, and this merchant's other mode: 404, nothing changes
    // (the delivery stays pending).
    for other in [&app.b.test_key, &app.a.live_key] {
        assert_error(
            app.delete(other, &format!("/webhook_endpoints/{id}")).await,
            404,
            "not_found_error",
        )
        .await;
    }
    let untouched: Value = app
        .get(key, &format!("/webhook_events/{eid}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(untouched["status"], "pending");
    // Deleting the endpoint closes its pending deliveries.
    app.delete(key, &format!("/webhook_endpoints/{id}")).await;
    let closed: Value = app
        .get(key, &format!("/webhook_events/{eid}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (closed["status"].as_str(), closed["last_error"].as_str()),
        (Some("failed"), Some("the endpoint was deleted"))
    );
}

#[tokio::test]
async fn synthetic_objects_have_the_production_shape() {
    use std::collections::BTreeSet;
    let app = spawn_app().await;
    let key = &app.a.test_key;
    app.verified_wallet(key, &WALLET_KEY).await;
    let real = app
        .create_session(
            key,
            json!({ "mode": "payment", "title": "T", "amount": "1" }),
        )
        .await;
    let now = stablepay_domain::Timestamp::new(chrono::Utc::now());
    let synthetic = stablepay_domain::rules::test_events::synthetic_object(
        stablepay_domain::EventType::CheckoutSessionCompleted,
        false,
        now,
    );
    let keys = |v: &Value| {
        v.as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(
        keys(&synthetic),
        keys(&real),
        "test checkout.session objects have every real field"
    );
    let payment = fixtures_payment(&app).await;
    let synthetic = stablepay_domain::rules::test_events::synthetic_object(
        stablepay_domain::EventType::PaymentSucceeded,
        false,
        now,
    );
    assert_eq!(keys(&synthetic), keys(&payment));
}

async fn fixtures_payment(app: &TestApp) -> Value {
    let id = stablepay_postgres::testing::fixtures::payment(
        &app.store,
        app.a.id,
        false,
        "confirmed",
        None,
        None,
    )
    .await;
    app.get(&app.a.test_key, &format!("/payments/{id}"))
        .await
        .json()
        .await
        .unwrap()
}

/// After an outage: every failed delivery of the endpoint since a time is resent once.
#[tokio::test]
async fn recover_resends_each_failed_delivery_since_a_time_once() {
    use stablepay_postgres::testing::{execute_sql, fixtures};
    let app = spawn_app().await;
    let leak = |k: &String| -> &'static str { Box::leak(k.clone().into_boxed_str()) };
    let (key, b_key, live_key) = (
        leak(&app.a.test_key),
        leak(&app.b.test_key),
        leak(&app.a.live_key),
    );
    let (_, endpoint) = app.webhook_endpoint(key).await;
    let id = endpoint.to_string();
    let failed = |status: &'static str| {
        fixtures::webhook_event(
            &app.store,
            app.a.id,
            false,
            endpoint,
            "payment.failed",
            status,
        )
    };
    let before_outage = failed("failed").await;
    execute_sql(
        &app.store,
        &format!(
            "UPDATE webhook_events SET created_at = now() - interval '2 days' WHERE id = '{}'",
            before_outage.uuid()
        ),
    )
    .await
    .unwrap();
    let (first, second) = (failed("failed").await, failed("failed").await);
    failed("succeeded").await;
    let path = format!("/webhook_endpoints/{id}/recover");
    let since = (chrono::Utc::now() - chrono::Duration::hours(1)).to_rfc3339();
    let recover = |k: &'static str, body: Value| app.post(k, &path, body);

    let body: Value = recover(key, json!({ "since": since }))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (
            &body["object"],
            &body["endpoint"],
            &body["enqueued"],
            &body["still_pending"]
        ),
        (&json!("webhook_recovery"), &json!(id), &json!(2), &json!(0))
    );
    let pending: Value = app
        .get(key, "/webhook_events?status=pending")
        .await
        .json()
        .await
        .unwrap();
    let mut resent: Vec<String> = pending["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["resend_of"].as_str().unwrap().to_owned())
        .collect();
    resent.sort();
    let mut expected = vec![first.to_string(), second.to_string()];
    expected.sort();
    assert_eq!(
        resent, expected,
        "one resend per failed delivery since the time"
    );
    // At once again: both redeliveries are pending, so nothing new is enqueued.
    let again: Value = recover(key, json!({ "since": since }))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (&again["enqueued"], &again["still_pending"]),
        (&json!(0), &json!(2))
    );

    // Another merchant's or mode's key: 404; a bad or missing time: 400 on `since`.
    for other in [b_key, live_key] {
        let res = recover(other, json!({ "since": since })).await;
        assert_error(res, 404, "not_found_error").await;
    }
    for bad in [
        json!({ "since": "yesterday" }),
        json!({}),
        json!({ "since": since, "x": 1 }),
    ] {
        let e = assert_error(recover(key, bad).await, 400, "invalid_request_error").await;
        assert!(
            e.to_string().contains("since") || e.to_string().contains("x"),
            "{e}"
        );
    }
    // A disabled endpoint recovers nothing.
    app.post(
        key,
        &format!("/webhook_endpoints/{id}"),
        json!({ "status": "disabled" }),
    )
    .await;
    assert_error(
        recover(key, json!({ "since": since })).await,
        400,
        "invalid_request_error",
    )
    .await;
}

/// A recovery since 1970 over 250 failed deliveries: the request resends one batch (the
/// newest 100) and answers; the worker's use case resends the rest, each once.
#[tokio::test]
async fn a_recovery_far_into_the_past_is_bounded_and_the_rest_is_left_to_the_worker() {
    use stablepay_domain::services::{continue_recovery, RecoverDeps, RECOVER_BATCH};
    use stablepay_postgres::testing::fixtures;
    let app = spawn_app().await;
    let key = app.a.test_key.clone();
    let (_, endpoint) = app.webhook_endpoint(&key).await;
    let mut failed = Vec::new();
    for _ in 0..250 {
        failed.push(
            fixtures::webhook_event(
                &app.store,
                app.a.id,
                false,
                endpoint,
                "payment.failed",
                "failed",
            )
            .await,
        );
    }
    let body: Value = app
        .post(
            &key,
            &format!("/webhook_endpoints/{endpoint}/recover"),
            json!({ "since": "1970-01-01T00:00:00Z" }),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (
            &body["enqueued"],
            &body["still_pending"],
            &body["completed"]
        ),
        (&json!(RECOVER_BATCH), &json!(0), &json!(false)),
        "{body}"
    );
    let resent_roots = || async {
        let rows = stablepay_postgres::testing::query_strings(
            &app.store,
            &format!("SELECT resend_of::text AS value FROM webhook_events WHERE endpoint_id = '{}' AND resend_of IS NOT NULL", endpoint.uuid()),
        )
        .await
        .unwrap();
        rows.into_iter().collect::<std::collections::BTreeSet<_>>()
    };
    // The newest 100 were resent by the request itself.
    let newest: std::collections::BTreeSet<String> =
        failed[150..].iter().map(|e| e.uuid().to_string()).collect();
    assert_eq!(resent_roots().await, newest);

    // The worker continues in batches of 100 until the job is done.
    let deps = RecoverDeps {
        reader: &app.store,
        endpoints: &app.store,
        outbox: &app.store,
        recoveries: &app.store,
        clock: app.clock.as_ref(),
    };
    let mut batches = Vec::new();
    while let Some(batch) = continue_recovery(&deps).await.unwrap() {
        batches.push((batch.enqueued, batch.continues));
    }
    assert_eq!(batches, [(100, true), (50, false)]);
    let all: std::collections::BTreeSet<String> =
        failed.iter().map(|e| e.uuid().to_string()).collect();
    assert_eq!(
        resent_roots().await,
        all,
        "every failed delivery resent exactly once"
    );
    let totals = stablepay_postgres::testing::query_strings(
        &app.store,
        "SELECT enqueued || '/' || still_pending || '/' || (finished_at IS NOT NULL) AS value FROM webhook_recoveries",
    )
    .await
    .unwrap();
    assert_eq!(totals, ["150/0/true"]);
}
