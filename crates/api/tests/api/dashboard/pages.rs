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
