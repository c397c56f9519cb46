use super::*;

#[tokio::test]
async fn a_key_created_on_the_developers_page_works_once_shown_and_dies_on_revoke() {
    let app = spawn_app().await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let csrf = b.csrf("/dashboard/test/developers/api_keys").await;
    let res = b
        .post("/dashboard/test/developers/api_keys", &[("csrf", &csrf)])
        .await;
    assert_eq!(res.status(), 200);
    let html = res.text().await.unwrap();
    let start = html.find("id=\"new-key-secret\">").unwrap() + "id=\"new-key-secret\">".len();
    let secret = &html[start..start + 44];
    assert!(secret.starts_with("svc_sk_test_"), "{secret}");
    assert_eq!(app.get(secret, "/checkout/sessions").await.status(), 200);
    // Shown once: the list never carries it again.
    let list = b.text("/dashboard/test/developers/api_keys").await;
    assert!(!list.contains(secret));

    let key = app.store.keys(app.a.id).await.unwrap()[0].clone();
    assert!(secret.ends_with(&key.last4), "newest first");
    // "Last used" is written off the request path: poll for it.
    let mut used = None;
    for _ in 0..100 {
        used = app.store.keys(app.a.id).await.unwrap()[0].last_used_at;
        if used.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let used = used.expect("last_used_at recorded");
    assert!(b
        .text("/dashboard/test/developers/api_keys")
        .await
        .contains(
            &used
                .as_datetime()
                .format("%Y-%m-%d %H:%M:%S UTC")
                .to_string()
        ));
    assert!(list.contains(&key.id.to_string()), "the new key is listed");
    let res = b
        .post(
            &format!("/dashboard/test/developers/api_keys/{}/revoke", key.id),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(res.status(), 303);
    assert_eq!(app.get(secret, "/checkout/sessions").await.status(), 401);
}

#[tokio::test]
async fn webhook_endpoints_from_the_dashboard_follow_the_api_rules() {
    let app = spawn_app().await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let csrf = b.csrf("/dashboard/test/developers/webhooks").await;
    let res = b
        .post(
            "/dashboard/test/developers/webhooks",
            &[
                ("csrf", &csrf),
                ("url", "https://merchant.example/hooks"),
                ("enabled_events", "payment.succeeded"),
                ("enabled_events", "payment.refunded"),
            ],
        )
        .await;
    let html = res.text().await.unwrap();
    assert!(html.contains("whsec_"), "the secret is shown once");
    let endpoints: serde_json::Value = app
        .get(&app.a.test_key, "/webhook_endpoints")
        .await
        .json()
        .await
        .unwrap();
    let ep = &endpoints["data"][0];
    assert_eq!(
        ep["enabled_events"],
        serde_json::json!(["payment.succeeded", "payment.refunded"])
    );
    let id = ep["id"].as_str().unwrap().to_owned();
    let page = format!("/dashboard/test/developers/webhooks/{id}");
    assert!(!b.text(&page).await.contains("whsec_"));

    // A test event outside the filter is refused with the API's message.
    let res = b
        .post(
            &format!("{page}/test"),
            &[("csrf", &csrf), ("type", "subscription.created")],
        )
        .await;
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("is not in this endpoint"));
    let res = b
        .post(
            &format!("{page}/test"),
            &[("csrf", &csrf), ("type", "payment.succeeded")],
        )
        .await;
    assert_eq!(res.status(), 303);
    let html = b.text(&page).await;
    let start = html.find("/developers/events/evt_").unwrap() + "/developers/events/".len();
    let event = html[start..start + 26].to_owned();
    // Still pending (no worker here): a resend is refused as in the API (409's rule).
    let res = b
        .post(
            &format!("/dashboard/test/developers/events/{event}/resend"),
            &[("csrf", &csrf)],
        )
        .await;
    assert!(res.text().await.unwrap().contains("still pending"));

    // Disable through the edit form: the API sees it.
    let res = b
        .post(
            &page,
            &[
                ("csrf", &csrf),
                ("url", "https://merchant.example/hooks2"),
                ("status", "disabled"),
            ],
        )
        .await;
    assert_eq!(res.status(), 303);
    let ep: serde_json::Value = app
        .get(&app.a.test_key, &format!("/webhook_endpoints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ep["status"], "disabled");
    assert_eq!(ep["url"], "https://merchant.example/hooks2");
    assert_eq!(
        ep["enabled_events"],
        serde_json::json!([]),
        "no box ticked: all events"
    );
}

#[tokio::test]
async fn a_payment_link_from_the_form_is_a_real_session_and_bad_input_is_named() {
    let app = spawn_app().await;
    let address = app.verified_wallet(&app.a.test_key, &WALLET_KEY).await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let csrf = b.csrf("/dashboard/test/checkout_sessions").await;
    let res = b
        .post(
            "/dashboard/test/checkout_sessions",
            &[
                ("csrf", &csrf),
                ("title", ""),
                ("amount", "12.1234567"),
                ("currency", "USDC"),
            ],
        )
        .await;
    let html = res.text().await.unwrap();
    assert!(
        html.contains("title:") && html.contains("amount:"),
        "both fields are named"
    );
    let res = b
        .post(
            "/dashboard/test/checkout_sessions",
            &[
                ("csrf", &csrf),
                ("title", "Espresso beans"),
                ("amount", "24.9"),
                ("currency", "USDC"),
                ("recipient", &address),
                ("customer_reference", "cust_42"),
            ],
        )
        .await;
    let html = res.text().await.unwrap();
    assert!(
        html.contains("https://pay.example/pay/cs_"),
        "the hosted URL to copy"
    );
    assert!(html.contains("24.90 USDC"), "money reads like money");
    let list: serde_json::Value = app
        .get(&app.a.test_key, "/checkout/sessions")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["data"][0]["title"], "Espresso beans");
    assert_eq!(list["data"][0]["amount"], "24.9");
    assert_eq!(list["data"][0]["customer_reference"], "cust_42");
    assert_eq!(list["data"][0]["livemode"], false);
}

/// D25 through the dashboard: its test mode cannot revoke a live-verified wallet, and a
/// wallet verified in its test mode is never a live session's default.
#[tokio::test]
async fn the_dashboards_test_mode_cannot_redirect_live_money() {
    use stablepay_domain::rules::eip191;
    let app = spawn_app().await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    app.verified_wallet(&app.a.live_key, &WALLET_KEY).await;
    let wallets: serde_json::Value = app
        .get(&app.a.live_key, "/wallets")
        .await
        .json()
        .await
        .unwrap();
    let live_id = wallets["data"][0]["id"].as_str().unwrap().to_owned();

    let csrf = b.csrf("/dashboard/test/wallets").await;
    let res = b
        .post(
            &format!("/dashboard/test/wallets/{live_id}/revoke"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(res.status(), 400);
    assert!(res.text().await.unwrap().contains("live key"));
    let w: serde_json::Value = app
        .get(&app.a.live_key, &format!("/wallets/{live_id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(w["status"], "verified", "unchanged");

    // Verified through the test-mode dashboard (signing its challenge).
    let second = [0x44u8; 32];
    let address = eip191::address_of_private_key(&second).unwrap().to_string();
    let res = b
        .post(
            "/dashboard/test/wallets",
            &[("csrf", &csrf), ("address", &address), ("chain_id", "8453")],
        )
        .await;
    let html = res.text().await.unwrap();
    let start = html
        .find("stablepay wallet verification")
        .expect("challenge shown");
    let message = html[start..start + html[start..].find("</").unwrap()].replace("&#10;", "\n");
    let wallets: serde_json::Value = app
        .get(&app.a.live_key, "/wallets")
        .await
        .json()
        .await
        .unwrap();
    let test_id = wallets["data"][0]["id"].as_str().unwrap().to_owned();
    let signature = eip191::sign(message.as_bytes(), &second).unwrap().to_hex();
    let res = b
        .post(
            &format!("/dashboard/test/wallets/{test_id}/verify"),
            &[("csrf", &csrf), ("signature", &signature)],
        )
        .await;
    assert_eq!(res.status(), 303, "{}", res.text().await.unwrap());
    let w: serde_json::Value = app
        .get(&app.a.live_key, &format!("/wallets/{test_id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (w["status"].as_str(), w["verified_mode"].as_str()),
        (Some("verified"), Some("test"))
    );
    // Two verified wallets, one of them live-verified: the live default is that one.
    let s = app
        .create_session(
            &app.a.live_key,
            serde_json::json!({ "mode": "payment", "title": "T", "amount": "1" }),
        )
        .await;
    assert_ne!(s["recipient_address"].as_str().unwrap(), address);
    // The live dashboard may revoke either.
    let csrf = b.csrf("/dashboard/live/wallets").await;
    let res = b
        .post(
            &format!("/dashboard/live/wallets/{live_id}/revoke"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(res.status(), 303);
}

/// Unknown paths under `/dashboard` are a person's HTML 404, not the API's JSON envelope.
#[tokio::test]
async fn unknown_dashboard_paths_answer_the_html_404_page() {
    let app = spawn_app().await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    for path in [
        "/dashboard/test/no-such-page",
        "/dashboard/live/wallets/x/y/z",
        "/dashboard/login/extra",
    ] {
        let res = b.get(path).await;
        assert_eq!(res.status(), 404, "{path}");
        let content_type = res.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(
            content_type.starts_with("text/html"),
            "{path}: {content_type}"
        );
        let html = res.text().await.unwrap();
        assert!(
            html.contains("Not found") && !html.contains("not_found_error"),
            "{path}: {html}"
        );
    }
    // The API's unknown routes keep the JSON envelope.
    let res = app.get(&app.a.test_key, "/no-such-route").await;
    crate::support::assert_error(res, 404, "not_found_error").await;
}

/// Amounts in tokens of different pegs are never added up (D34): home totals each token
/// apart and charts USD and EUR apart; a customer's total names each token it paid in.
#[tokio::test]
async fn euro_and_dollar_payments_are_totalled_and_charted_apart() {
    use stablepay_postgres::testing::{execute_sql, fixtures};
    let app = spawn_app().await;
    let usdc = fixtures::payment(&app.store, app.a.id, false, "confirmed", None, None).await;
    let eurc = fixtures::payment(&app.store, app.a.id, false, "confirmed", None, None).await;
    // The same customer paid both.
    execute_sql(
        &app.store,
        &format!(
            "UPDATE payments SET currency = 'EURC', amount_micros = 20000000, fee_micros = 200000, \
             merchant_micros = 19800000, \
             customer_id = (SELECT customer_id FROM payments WHERE id = '{}') WHERE id = '{}'",
            usdc.uuid(),
            eurc.uuid()
        ),
    )
    .await
    .unwrap();
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let home = b.text("/dashboard/test").await;
    assert!(home.contains("Last 7 days · USDC"), "{home}");
    assert!(home.contains("Last 7 days · EURC"), "{home}");
    assert!(home.contains(">20.00 EURC<"), "{home}");
    assert!(home.contains(">10.00 USDC<"), "{home}");
    // One chart per money, each with its own tallest bar; never 30 of anything.
    assert!(home.contains("data-fiat=\"USD\""), "{home}");
    assert!(home.contains("data-fiat=\"EUR\""), "{home}");
    assert!(
        home.contains("Tallest bar: 10.00 USD (USDC and USDT together"),
        "{home}"
    );
    assert!(home.contains("Tallest bar: 20.00 EUR (EURC"), "{home}");
    assert!(!home.contains("30.00"), "{home}");
    let customers = b.text("/dashboard/test/customers").await;
    assert!(customers.contains("10.00 USDC + 20.00 EURC"), "{customers}");
}

/// A session priced in a currency shows its price and rate on the sessions list and on its
/// payment's page (D34).
#[tokio::test]
async fn a_priced_sessions_price_and_rate_are_shown_beside_the_token_amount() {
    use stablepay_postgres::testing::{execute_sql, fixtures, stored_session};
    let app = spawn_app().await;
    let session = stored_session(&app.store, app.a.id, None).await;
    execute_sql(
        &app.store,
        &format!(
            "UPDATE checkout_sessions SET price_micros = 9000000, price_currency = 'EUR', \
             quote_pair = 'EUR/USD', quote_rate_e8 = 108250000, \
             quote_feed = '0x6161616161616161616161616161616161616161', quote_round_id = '7', \
             quote_updated_at = now(), quote_expires_at = now() + interval '30 minutes' \
             WHERE id = '{}'",
            session.id.uuid()
        ),
    )
    .await
    .unwrap();
    let pay = fixtures::payment(
        &app.store,
        app.a.id,
        false,
        "confirmed",
        Some(session.id),
        None,
    )
    .await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let sessions = b.text("/dashboard/test/checkout_sessions").await;
    assert!(
        sessions.contains("priced 9.00 EUR · 1 EUR = 1.0825 USD"),
        "{sessions}"
    );
    let page = b.text(&format!("/dashboard/test/payments/{pay}")).await;
    assert!(
        page.contains(r#"<dd id="payment-price">9.00 EUR · 1 EUR = 1.0825 USD</dd>"#),
        "{page}"
    );
}
