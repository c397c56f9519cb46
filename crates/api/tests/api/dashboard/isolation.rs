use super::*;

#[tokio::test]
async fn another_merchants_ids_are_not_found_and_change_nothing() {
    let app = spawn_app().await;
    let mut a = signed_in(&app, app.a.id, "ops@a.example").await;
    let csrf = a.csrf("/dashboard/test").await;
    // B's key, endpoint and wallet.
    let b_key = app.store.keys(app.b.id).await.unwrap()[0].id;
    let ep: serde_json::Value = app
        .post(
            &app.b.test_key,
            "/webhook_endpoints",
            serde_json::json!({"url": "https://b.example/hook"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let b_endpoint = ep["id"].as_str().unwrap().to_owned();
    let b_wallet = app.verified_wallet(&app.b.test_key, &WALLET_KEY).await;
    let b_wallet_id = app
        .get(&app.b.test_key, "/wallets")
        .await
        .json::<serde_json::Value>()
        .await
        .unwrap()["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    for path in [
        format!("/dashboard/test/developers/webhooks/{b_endpoint}"),
        format!("/dashboard/live/developers/webhooks/{b_endpoint}"),
        "/dashboard/test/payments/pay_0000000000000000000000".to_owned(),
        "/dashboard/test/subscriptions/sub_nonsense".to_owned(),
    ] {
        assert_eq!(a.get(&path).await.status(), StatusCode::NOT_FOUND, "{path}");
    }
    for path in [
        format!("/dashboard/test/developers/api_keys/{b_key}/revoke"),
        format!("/dashboard/test/developers/webhooks/{b_endpoint}/delete"),
        format!("/dashboard/test/developers/webhooks/{b_endpoint}/rotate"),
        format!("/dashboard/test/developers/webhooks/{b_endpoint}/test"),
        format!("/dashboard/test/wallets/{b_wallet_id}/revoke"),
    ] {
        let res = a.post(&path, &[("csrf", &csrf)]).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{path}");
        let body = res.text().await.unwrap();
        assert!(
            !body.to_lowercase().contains("sql") && !body.contains("postgres"),
            "{body}"
        );
    }
    // A's own live key cannot be revoked from test mode.
    let a_live = app
        .store
        .keys(app.a.id)
        .await
        .unwrap()
        .into_iter()
        .find(|k| k.mode == stablepay_domain::Mode::Live)
        .unwrap()
        .id;
    let res = a
        .post(
            &format!("/dashboard/test/developers/api_keys/{a_live}/revoke"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        app.get(&app.a.live_key, "/checkout/sessions")
            .await
            .status(),
        200
    );
    // B's things still stand.
    assert_eq!(
        app.get(&app.b.test_key, "/checkout/sessions")
            .await
            .status(),
        200
    );
    let ep = app
        .get(&app.b.test_key, &format!("/webhook_endpoints/{b_endpoint}"))
        .await;
    assert_eq!(ep.status(), 200);
    let wallets: serde_json::Value = app
        .get(&app.b.test_key, "/wallets")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(wallets["data"][0]["status"], "verified", "{b_wallet}");
}

#[tokio::test]
async fn pages_of_the_other_mode_show_only_that_modes_data() {
    let app = spawn_app().await;
    let address = app.verified_wallet(&app.a.test_key, &WALLET_KEY).await;
    let s = app
        .create_session(
            &app.a.test_key,
            serde_json::json!({"mode": "payment", "title": "Test-mode only", "amount": "5", "recipient": address}),
        )
        .await;
    let id = s["id"].as_str().unwrap();
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    assert!(b
        .text("/dashboard/test/checkout_sessions")
        .await
        .contains(id));
    assert!(!b
        .text("/dashboard/live/checkout_sessions")
        .await
        .contains(id));
    // Merchant B's user sees none of A's.
    let mut other = signed_in(&app, app.b.id, "ops@b.example").await;
    assert!(!other
        .text("/dashboard/test/checkout_sessions")
        .await
        .contains(id));
}
