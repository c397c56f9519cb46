use serde_json::json;

use crate::support::*;

/// Revokes merchant A's test key (`app.a.test_key`).
async fn revoke_test_key_of_a(app: &TestApp) {
    let keys = app.store.list_api_keys(Some(app.a.id)).await.unwrap();
    let test_key = keys
        .iter()
        .find(|k| app.a.test_key.ends_with(&k.last4) && k.mode == stablepay_domain::Mode::Test)
        .unwrap();
    app.store.revoke_api_key(test_key.id).await.unwrap();
}

#[tokio::test]
async fn missing_malformed_unknown_and_revoked_keys_are_401() {
    let app = spawn_app().await;
    let res = app
        .client
        .get(app.url("/checkout/sessions"))
        .send()
        .await
        .unwrap();
    assert_error(res, 401, "authentication_error").await;
    let res = app
        .client
        .get(app.url("/checkout/sessions"))
        .header("Authorization", "Basic abc")
        .send()
        .await
        .unwrap();
    assert_error(res, 401, "authentication_error").await;
    let res = app
        .get(
            "svc_sk_test_00000000000000000000000000000000",
            "/checkout/sessions",
        )
        .await;
    assert_error(res, 401, "authentication_error").await;

    assert_eq!(
        app.get(&app.a.test_key, "/checkout/sessions")
            .await
            .status(),
        200
    );
    revoke_test_key_of_a(&app).await;
    assert_error(
        app.get(&app.a.test_key, "/checkout/sessions").await,
        401,
        "authentication_error",
    )
    .await;
}

/// A GET by a key this process has seen starts its read before the key is checked (the
/// two are pipelined); the read must never be answered once the key is revoked.
#[tokio::test]
async fn a_revoked_key_never_sees_a_pipelined_read() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    app.verified_wallet(key, &WALLET_KEY).await;
    let s = app
        .create_session(
            key,
            json!({ "mode": "payment", "title": "T", "amount": "10" }),
        )
        .await;
    let path = format!("/checkout/sessions/{}", s["id"].as_str().unwrap());
    for _ in 0..2 {
        let res = app.get(key, &path).await;
        assert_eq!(res.status(), 200);
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["id"], s["id"]);
    }
    revoke_test_key_of_a(&app).await;
    for _ in 0..2 {
        let body = assert_error(app.get(key, &path).await, 401, "authentication_error").await;
        assert!(!body.to_string().contains(s["id"].as_str().unwrap()));
    }
    // Merchant B's key, seen before, reading A's session: 404, as without pipelining.
    assert_eq!(
        app.get(&app.b.test_key, "/checkout/sessions")
            .await
            .status(),
        200
    );
    assert_error(
        app.get(&app.b.test_key, &path).await,
        404,
        "not_found_error",
    )
    .await;
}

/// An idempotent create by a key this process has seen starts its transaction before the
/// key is checked (the check travels inside it); nothing may commit once the key is
/// revoked, and the key's Idempotency-Key stays unused.
#[tokio::test]
async fn a_revoked_key_never_writes_through_a_pipelined_create() {
    use stablepay_domain::ports::SessionRepository;
    let app = spawn_app().await;
    let key = &app.a.test_key;
    app.verified_wallet(key, &WALLET_KEY).await;
    let body = json!({ "mode": "payment", "title": "T", "amount": "10" });
    let create = |idem: &'static str| {
        app.client
            .post(app.url("/checkout/sessions"))
            .bearer_auth(key)
            .header("Idempotency-Key", idem)
            .json(&body)
            .send()
    };
    // Seen twice, so the third create runs with the key's last standing.
    for idem in ["seen-1", "seen-2"] {
        assert_eq!(create(idem).await.unwrap().status(), 201);
    }
    let sessions = || async {
        app.store
            .list(
                app.a.id,
                stablepay_domain::Mode::Test,
                &Default::default(),
                &Default::default(),
                stablepay_domain::ports::Clock::now(&stablepay_domain::ports::SystemClock),
            )
            .await
            .unwrap()
            .data
            .len()
    };
    assert_eq!(sessions().await, 2);
    revoke_test_key_of_a(&app).await;
    for _ in 0..2 {
        assert_error(
            create("after-revoke").await.unwrap(),
            401,
            "authentication_error",
        )
        .await;
    }
    assert_eq!(
        sessions().await,
        2,
        "a revoked key's create must not commit"
    );
}

#[tokio::test]
async fn unknown_routes_methods_and_bad_bodies_get_the_envelope() {
    let app = spawn_app().await;
    let res = app
        .client
        .get(format!("{}/nope", app.base))
        .send()
        .await
        .unwrap();
    assert_error(res, 404, "not_found_error").await;
    let res = app
        .client
        .put(app.url("/checkout/sessions"))
        .bearer_auth(&app.a.test_key)
        .send()
        .await
        .unwrap();
    // RFC 9110: a 405 names the methods the resource has.
    assert_eq!(res.headers()["allow"], "POST, GET");
    assert_error(res, 405, "invalid_request_error").await;

    let key = &app.a.test_key;
    let malformed = app
        .client
        .post(app.url("/checkout/sessions"))
        .bearer_auth(key)
        .header("Content-Type", "application/json")
        .body("{\"mode\": ")
        .send()
        .await
        .unwrap();
    let body = assert_error(malformed, 400, "invalid_request_error").await;
    assert_eq!(detail_fields(&body), ["body"]);

    let wrong_type = app
        .client
        .post(app.url("/checkout/sessions"))
        .bearer_auth(key)
        .header("Content-Type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    let body = assert_error(wrong_type, 400, "invalid_request_error").await;
    assert_eq!(detail_fields(&body), ["Content-Type"]);

    let huge = json!({ "mode": "payment", "title": "x", "amount": "1", "description": "a".repeat(70_000) });
    let body = assert_error(
        app.post(key, "/checkout/sessions", huge).await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&body), ["body"]);

    let unknown = app
        .post(
            key,
            "/checkout/sessions",
            json!({ "mode": "payment", "title": "x", "amount": "1", "colour": "red" }),
        )
        .await;
    let body = assert_error(unknown, 400, "invalid_request_error").await;
    assert_eq!(detail_fields(&body), ["colour"]);

    let res = app.get(key, "/checkout/sessions?limit=101").await;
    assert_eq!(
        detail_fields(&assert_error(res, 400, "invalid_request_error").await),
        ["limit"]
    );
    let res = app.get(key, "/checkout/sessions?status=paid").await;
    assert_eq!(
        detail_fields(&assert_error(res, 400, "invalid_request_error").await),
        ["status"]
    );
    let res = app
        .get(key, "/checkout/sessions?starting_after=pay_123")
        .await;
    assert_eq!(
        detail_fields(&assert_error(res, 400, "invalid_request_error").await),
        ["starting_after"]
    );
    let res = app.get(key, "/checkout/sessions?colour=red").await;
    assert_eq!(
        detail_fields(&assert_error(res, 400, "invalid_request_error").await),
        ["colour"]
    );
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after() {
    let app = spawn_app_with_rate_limit(3).await;
    for _ in 0..3 {
        assert_eq!(app.get(&app.a.test_key, "/payments").await.status(), 200);
    }
    let res = app.get(&app.a.test_key, "/payments").await;
    let retry: u64 = res
        .headers()
        .get("retry-after")
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry >= 1);
    assert_error(res, 429, "rate_limit_error").await;
    // Limits are per key: the live key of the same merchant still works.
    assert_eq!(app.get(&app.a.live_key, "/payments").await.status(), 200);
}

/// A flood of well-formed wrong keys from one address costs a lookup each only up to a
/// budget; then 429 without a lookup until the minute ends, while a key this process has
/// seen authenticate keeps working from the same address.
#[tokio::test]
async fn failed_authentications_are_limited_per_client_address() {
    let app = spawn_app().await;
    assert_eq!(
        app.get(&app.a.test_key, "/checkout/sessions")
            .await
            .status(),
        200
    );
    let wrong = |i: usize| format!("svc_sk_test_{i:032}");
    for i in 0..stablepay_api::request::auth_failures::AUTH_FAILURES_PER_MIN as usize {
        let res = app.get(&wrong(i), "/checkout/sessions").await;
        assert_eq!(res.status(), 401, "attempt {i}");
    }
    let res = app.get(&wrong(999), "/checkout/sessions").await;
    assert!(res.headers().get("retry-after").is_some());
    let body = assert_error(res, 429, "rate_limit_error").await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("invalid API keys"),
        "{body}"
    );
    // The merchant's own key, already seen by this process, is not held back.
    assert_eq!(
        app.get(&app.a.test_key, "/checkout/sessions")
            .await
            .status(),
        200
    );
    // A new minute: wrong keys are looked up (and refused) again.
    app.clock.advance(std::time::Duration::from_secs(60));
    assert_error(
        app.get(&wrong(1000), "/checkout/sessions").await,
        401,
        "authentication_error",
    )
    .await;
}
