use serde_json::{json, Value};

use crate::support::*;

#[tokio::test]
async fn creates_a_payment_session_with_the_fee_snapshot() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    let wallet = app.verified_wallet(key, &WALLET_KEY).await;
    // Raw text, so key order and number spelling in metadata reach the server as written.
    let body = r#"{"mode": "payment", "title": "Espresso beans", "amount": "12.50", "description": "1 kg",
        "customer_reference": "cust-42", "metadata": {"order":"A-1","n":1.50,"nested":{"b":2,"a":1}},
        "success_url": "https://shop.example/thanks", "cancel_url": "https://shop.example/cart",
        "expires_in_seconds": 600, "chain": "base-sepolia", "currency": "USDC"}"#;
    let res = app
        .client
        .post(app.url("/checkout/sessions"))
        .bearer_auth(key)
        .header("Content-Type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let text = res.text().await.unwrap();
    assert!(
        text.contains(r#""metadata":{"order":"A-1","n":1.50,"nested":{"b":2,"a":1}}"#),
        "metadata verbatim: {text}"
    );
    let s: Value = serde_json::from_str(&text).unwrap();
    let id = s["id"].as_str().unwrap();
    assert!(id.starts_with("cs_"));
    assert_eq!(s["object"], "checkout.session");
    assert_eq!(s["livemode"], false);
    assert_eq!(s["url"], format!("https://pay.example/pay/{id}"));
    assert_eq!(
        (s["mode"].as_str(), s["status"].as_str()),
        (Some("payment"), Some("open"))
    );
    assert_eq!(
        (
            s["amount"].as_str(),
            s["fee_amount"].as_str(),
            s["merchant_net_amount"].as_str()
        ),
        (Some("12.5"), Some("0.125"), Some("12.375"))
    );
    assert_eq!(
        (s["fee_bps"].as_u64(), s["fee_tier"].as_str()),
        (Some(100), Some("standard"))
    );
    assert_eq!(s["chain_id"], 84532);
    assert_eq!(
        s["token_address"],
        "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
    );
    assert_eq!(s["recipient_address"], wallet);
    for null_field in [
        "interval_seconds",
        "chain_plan_id",
        "customer",
        "subscription",
        "wallet_address",
        "tx_hash",
        "completed_at",
    ] {
        assert!(s[null_field].is_null(), "{null_field}");
    }
    let created = s["created_at"].as_str().unwrap();
    assert_eq!(created.len(), "2026-01-01T00:00:00.000Z".len());
    assert!(created.ends_with('Z'));

    let got: Value = app
        .get(key, &format!("/checkout/sessions/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(got, s);
    // Invisible to the other mode and to other merchants.
    assert_error(
        app.get(&app.a.live_key, &format!("/checkout/sessions/{id}"))
            .await,
        404,
        "not_found_error",
    )
    .await;
    assert_error(
        app.get(&app.b.test_key, &format!("/checkout/sessions/{id}"))
            .await,
        404,
        "not_found_error",
    )
    .await;
    assert_error(
        app.get(key, "/checkout/sessions/cs_test_a1b2c3").await,
        404,
        "not_found_error",
    )
    .await;
}

#[tokio::test]
async fn defaults_and_live_mode() {
    let app = spawn_app().await;
    // Verified with the live key: a live session's default recipient (D25).
    app.verified_wallet(&app.b.live_key, &WALLET_KEY).await;
    let s = app
        .create_session(
            &app.b.live_key,
            json!({ "mode": "payment", "title": "T", "amount": "100" }),
        )
        .await;
    assert_eq!(s["livemode"], true);
    assert_eq!(s["chain_id"], 8453);
    assert_eq!(
        (
            s["fee_bps"].as_u64(),
            s["fee_tier"].as_str(),
            s["fee_amount"].as_str()
        ),
        (Some(75), Some("growth"), Some("0.75"))
    );
    assert_eq!(s["metadata"], json!({}));
    assert_eq!(s["currency"], "USDC");
    let created = chrono::DateTime::parse_from_rfc3339(s["created_at"].as_str().unwrap()).unwrap();
    let expires = chrono::DateTime::parse_from_rfc3339(s["expires_at"].as_str().unwrap()).unwrap();
    assert_eq!((expires - created).num_seconds(), 86_400);
    // USDT is configured for the test network only in this app.
    let res = app
        .post(
            &app.b.live_key,
            "/checkout/sessions",
            json!({ "mode": "payment", "title": "T", "amount": "1", "currency": "USDT" }),
        )
        .await;
    assert_eq!(
        detail_fields(&assert_error(res, 400, "invalid_request_error").await),
        ["currency"]
    );
    let s = app
        .create_session(
            &app.b.test_key,
            json!({ "mode": "payment", "title": "T", "amount": "1", "currency": "USDT" }),
        )
        .await;
    assert_eq!(s["token_address"], usdt_test().to_string());
}

#[tokio::test]
async fn every_body_rule_is_enforced() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    app.verified_wallet(key, &WALLET_KEY).await;
    let ok = json!({ "mode": "payment", "title": "T", "amount": "1" });
    let with = |field: &str, value: Value| {
        let mut b = ok.clone();
        b[field] = value;
        b
    };
    let without = |field: &str| {
        let mut b = ok.clone();
        b.as_object_mut().unwrap().remove(field);
        b
    };
    let cases: Vec<(Value, &str)> = vec![
        (without("mode"), "mode"),
        (with("mode", json!("donation")), "mode"),
        (with("mode", json!("subscription")), "mode"),
        (without("title"), "title"),
        (with("title", json!("")), "title"),
        (with("title", json!("x".repeat(121))), "title"),
        (with("title", json!(5)), "title"),
        (without("amount"), "amount"),
        (with("amount", json!(10)), "amount"),
        (with("amount", json!("1.0000001")), "amount"),
        (with("amount", json!("0")), "amount"),
        (with("amount", json!("-1")), "amount"),
        (with("amount", json!("1e3")), "amount"),
        (with("amount", json!("1000000000.000001")), "amount"),
        (with("description", json!("d".repeat(501))), "description"),
        (
            with("customer_reference", json!("c".repeat(251))),
            "customer_reference",
        ),
        (with("metadata", json!([1, 2])), "metadata"),
        (with("metadata", json!("text")), "metadata"),
        (with("success_url", json!("not a url")), "success_url"),
        (
            with(
                "success_url",
                json!(format!("https://a.example/{}", "x".repeat(2000))),
            ),
            "success_url",
        ),
        (with("cancel_url", json!("ftp://a.example")), "cancel_url"),
        (with("expires_in_seconds", json!(599)), "expires_in_seconds"),
        (
            with("expires_in_seconds", json!(604_801)),
            "expires_in_seconds",
        ),
        (
            with("expires_in_seconds", json!("600")),
            "expires_in_seconds",
        ),
        (with("chain", json!(8453)), "chain"),
        (with("chain", json!("base")), "chain"),
        (with("chain", json!("ethereum")), "chain"),
        (with("currency", json!("EUR")), "currency"),
        (with("recipient", json!("0x1234")), "recipient"),
        (
            with(
                "recipient",
                json!("0x000000000000000000000000000000000000dEaD"),
            ),
            "recipient",
        ),
        (with("chain_plan_id", json!("7")), "chain_plan_id"),
        (with("interval_seconds", json!(60)), "interval_seconds"),
    ];
    for (body, field) in cases {
        let res = app.post(key, "/checkout/sessions", body.clone()).await;
        let err = assert_error(res, 400, "invalid_request_error").await;
        assert_eq!(detail_fields(&err), [field], "{body}");
    }
    // Several problems are reported together.
    let err = assert_error(
        app.post(
            key,
            "/checkout/sessions",
            json!({"mode": "payment", "title": ""}),
        )
        .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["title", "amount"]);
    // Limits are inclusive.
    let edge = json!({
        "mode": "payment", "title": "é".repeat(120), "amount": "1000000000", "description": "d".repeat(500),
        "customer_reference": "c".repeat(250), "expires_in_seconds": 604_800, "chain": 84532,
        "success_url": format!("https://a.example/{}", "x".repeat(2000 - 18)),
    });
    app.create_session(key, edge).await;
    app.create_session(key, with("expires_in_seconds", json!(600)))
        .await;
    app.create_session(key, with("amount", json!("0.000001")))
        .await;
}

#[tokio::test]
async fn subscription_mode_rules() {
    let app = spawn_app().await;
    app.verified_wallet(&app.a.test_key, &WALLET_KEY).await;
    let body = json!({ "mode": "subscription", "title": "Pro", "chain_plan_id": "1" });
    let err = assert_error(
        app.post(&app.a.test_key, "/checkout/sessions", body.clone())
            .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert!(err["error"]["message"].as_str().unwrap().contains("live"));
    let err = assert_error(
        app.post(&app.a.live_key, "/checkout/sessions", body).await,
        400,
        "invalid_request_error",
    )
    .await;
    // This app has no subscription contract configured: refused on `mode`, by name.
    assert_eq!(err["error"]["details"][0]["field"], "mode");
    assert!(err["error"]["message"]
        .as_str()
        .unwrap()
        .contains("subscriptions are not set up on base (8453)"));
}

#[tokio::test]
async fn recipient_resolution() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    let body = json!({ "mode": "payment", "title": "T", "amount": "1" });
    let err = assert_error(
        app.post(key, "/checkout/sessions", body.clone()).await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["recipient"]);
    let first = app.verified_wallet(key, &WALLET_KEY).await;
    let second = app.verified_wallet(key, &WALLET_KEY_2).await;
    let err = assert_error(
        app.post(key, "/checkout/sessions", body.clone()).await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["recipient"]);
    let mut with_recipient = body.clone();
    with_recipient["recipient"] = json!(second.to_lowercase());
    let s = app.create_session(key, with_recipient).await;
    assert_eq!(s["recipient_address"], second);
    // Merchant B cannot use A's wallet.
    app.verified_wallet(&app.b.test_key, &[0x33; 32]).await;
    let mut foreign = body.clone();
    foreign["recipient"] = json!(first);
    let err = assert_error(
        app.post(&app.b.test_key, "/checkout/sessions", foreign)
            .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["recipient"]);
}

#[tokio::test]
async fn list_filters_paginates_and_expires_lazily() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    app.verified_wallet(key, &WALLET_KEY).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        // The newest expires first (600 s, against the default 86,400 s).
        let expires = if i == 4 { 600 } else { 86_400 };
        let s = app.create_session(key, json!({ "mode": "payment", "title": format!("S{i}"), "amount": "1", "customer_reference": if i % 2 == 0 { "even" } else { "odd" }, "expires_in_seconds": expires })).await;
        ids.push(s["id"].as_str().unwrap().to_owned());
    }
    ids.reverse(); // newest first
    let page1: Value = app
        .get(key, "/checkout/sessions?limit=2")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page1["object"], "list");
    assert_eq!(page1["has_more"], true);
    let got: Vec<&str> = page1["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(got, &ids[..2]);
    let page3: Value = app
        .get(
            key,
            &format!("/checkout/sessions?limit=2&starting_after={}", ids[3]),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page3["has_more"], false);
    assert_eq!(page3["data"][0]["id"], ids[4]);
    let default: Value = app
        .get(key, "/checkout/sessions")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(default["data"].as_array().unwrap().len(), 5);
    let even: Value = app
        .get(key, "/checkout/sessions?customer_reference=even")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(even["data"].as_array().unwrap().len(), 3);
    // Other mode / merchant see nothing.
    let live: Value = app
        .get(&app.a.live_key, "/checkout/sessions")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(live["data"], json!([]));

    app.clock.advance(std::time::Duration::from_secs(601));
    let open: Value = app
        .get(key, "/checkout/sessions?status=open")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(open["data"].as_array().unwrap().len(), 4);
    let s: Value = app
        .get(key, &format!("/checkout/sessions/{}", ids[0]))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(s["status"], "expired");
    assert!(s["url"].is_null());
    let expired: Value = app
        .get(key, "/checkout/sessions?status=expired")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(expired["data"][0]["id"], ids[0]);
}

#[tokio::test]
async fn hosted_endpoints_answer_with_the_envelope() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    app.verified_wallet(key, &WALLET_KEY).await;
    let s = app
        .create_session(
            key,
            json!({ "mode": "payment", "title": "<script>alert(1)</script>", "amount": "2" }),
        )
        .await;
    let id = s["id"].as_str().unwrap();
    // The page embeds the session as JSON with `<` escaped, never as markup.
    let page = app
        .client
        .get(format!("{}/pay/{id}", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .contains("default-src 'none'"));
    let html = page.text().await.unwrap();
    assert!(
        !html.contains("<script>alert(1)"),
        "merchant text must not become markup"
    );
    assert!(html.contains("\\u003cscript>alert(1)"));
    // Public status, no API key needed.
    let status: Value = app
        .client
        .get(format!("{}/pay/{id}/status", app.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (
            status["status"].as_str(),
            status["amount"].as_str(),
            status["network"].as_str()
        ),
        (Some("open"), Some("2"), Some("Base Sepolia"))
    );
    assert!(
        status.get("fee_amount").is_none() && status.get("metadata").is_none(),
        "no merchant internals on the public page"
    );
    // No router configured in this app: the intent is a clear 503, not a 500.
    let res = app
        .client
        .get(format!("{}/pay/{id}/intent", app.base))
        .send()
        .await
        .unwrap();
    assert_error(res, 503, "api_error").await;
    // Bad ids and bodies: the page is a person's, so its 404 is a page; the JSON
    // endpoints answer with the envelope.
    let page = app
        .client
        .get(format!("{}/pay/cs_nope", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 404);
    assert!(page.text().await.unwrap().contains("Not found"));
    assert_error(
        app.client
            .get(format!("{}/pay/cs_nope/intent", app.base))
            .send()
            .await
            .unwrap(),
        404,
        "not_found_error",
    )
    .await;
    let res = app
        .client
        .post(format!("{}/pay/{id}/confirm", app.base))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        detail_fields(&assert_error(res, 400, "invalid_request_error").await),
        ["tx_hash"]
    );
    let res = app
        .client
        .post(format!("{}/pay/{id}/confirm", app.base))
        .json(&json!({ "tx_hash": "0x1" }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        detail_fields(&assert_error(res, 400, "invalid_request_error").await),
        ["tx_hash"]
    );
    let res = app
        .client
        .delete(format!("{}/pay/{id}", app.base))
        .send()
        .await
        .unwrap();
    assert_error(res, 405, "invalid_request_error").await;
    // Expired sessions have no intent (the session lives the default 86,400 s).
    app.clock.advance(std::time::Duration::from_secs(86_401));
    let status: Value = app
        .client
        .get(format!("{}/pay/{id}/status", app.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(status["status"], "expired");
}

/// Behind a trusted load balancer the hosted pages limit each forwarded client on its
/// own; from anyone else `X-Forwarded-For` is ignored.
#[tokio::test]
async fn the_public_limit_keys_on_the_forwarded_client_only_behind_a_trusted_proxy() {
    let status = |app: &TestApp, forwarded: &'static str| {
        let req = app
            .client
            .get(format!("{}/pay/cs_0000000000000000000000/status", app.base))
            .header("X-Forwarded-For", forwarded);
        async move { req.send().await.unwrap().status().as_u16() }
    };
    // A key limit of 2/min gives the public pages 10/min per client.
    let behind_lb = spawn_app_with_limits(stablepay_api::Limits {
        per_key_per_min: 2,
        trusted_proxies: stablepay_limits::TrustedProxies::parse("127.0.0.1").unwrap(),
    })
    .await;
    for _ in 0..10 {
        assert_eq!(status(&behind_lb, "6.6.6.6, 198.51.100.1").await, 404);
    }
    assert_eq!(status(&behind_lb, "7.7.7.7, 198.51.100.1").await, 429);
    assert_eq!(status(&behind_lb, "198.51.100.2").await, 404);
    // IPv6 clients share a budget per /64.
    for _ in 0..10 {
        assert_eq!(status(&behind_lb, "2001:db8:1:2::1").await, 404);
    }
    assert_eq!(status(&behind_lb, "2001:db8:1:2:ffff::9").await, 429);

    let direct = spawn_app_with_rate_limit(2).await;
    for i in 0..10 {
        let forwarded: &'static str = Box::leak(format!("198.51.100.{i}").into_boxed_str());
        assert_eq!(status(&direct, forwarded).await, 404);
    }
    assert_eq!(status(&direct, "198.51.100.99").await, 429);
}

/// Found by Schemathesis: a NUL byte in the filter reached PostgreSQL (which refuses it in
/// text) and came back as a 500. A reference no session can hold is a 400 on the field.
#[tokio::test]
async fn a_customer_reference_filter_no_session_can_hold_is_a_400() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    for bad in ["a%00b", "%01", "%20%20"] {
        let path = format!("/checkout/sessions?customer_reference={bad}");
        let body = assert_error(app.get(key, &path).await, 400, "invalid_request_error").await;
        assert!(body.to_string().contains("customer_reference"), "{body}");
    }
    let res = app
        .get(key, "/checkout/sessions?customer_reference=cust-1")
        .await;
    assert_eq!(res.status(), 200);
}
