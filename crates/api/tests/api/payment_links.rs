//! Payment links (D34): the API's create, read, list and update, and the public URL that
//! opens one session per visit (303 to its hosted page).

use reqwest::redirect::Policy;
use reqwest::{Client, Response};
use serde_json::{json, Value};

use crate::support::*;

async fn link(app: &TestApp, key: &str, body: Value) -> Value {
    let res = app.post(key, "/payment_links", body).await;
    assert_eq!(res.status(), 201);
    res.json().await.unwrap()
}

/// A browser that does not follow redirects, so a visit's 303 and cookie can be read.
fn visitor() -> Client {
    Client::builder().redirect(Policy::none()).build().unwrap()
}

/// GET of the link's public URL on the app (the resource's `url` names the public host).
async fn visit(app: &TestApp, link: &Value, cookie: Option<&str>, query: &str) -> Response {
    let id = link["id"].as_str().unwrap();
    let mut req = visitor().get(format!("{}/link/{id}{query}", app.base));
    if let Some(c) = cookie {
        req = req.header("Cookie", c);
    }
    req.send().await.unwrap()
}

/// The session id a 303 sends the visitor to, and the cookie it set (if any).
fn redirected(res: &Response) -> (String, Option<String>) {
    assert_eq!(res.status(), 303);
    let to = res.headers()["location"].to_str().unwrap();
    let id = to
        .strip_prefix("https://pay.example/pay/")
        .unwrap()
        .to_owned();
    let cookie = res
        .headers()
        .get("set-cookie")
        .map(|c| c.to_str().unwrap().split(';').next().unwrap().to_owned());
    (id, cookie)
}

#[tokio::test]
async fn a_link_is_created_read_listed_and_turned_off() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    let wallet = app.verified_wallet(key, &WALLET_KEY).await;
    let l = link(
        &app,
        key,
        json!({"name": "Pour-over kit", "amount": "25.00", "description": "Filter and kettle",
               "success_url": "https://shop.example/thanks", "metadata": {"sku": "POK-1"},
               "completed_limit": 100}),
    )
    .await;
    let id = l["id"].as_str().unwrap();
    assert!(id.starts_with("plink_"));
    assert_eq!(l["object"], "payment_link");
    assert_eq!(l["livemode"], false);
    assert_eq!(
        (l["amount"].as_str(), l["currency"].as_str()),
        (Some("25"), Some("USDC"))
    );
    for null in ["price", "custom_amount", "custom_price"] {
        assert!(l[null].is_null(), "{null}");
    }
    assert_eq!(l["recipient"], wallet);
    assert_eq!(l["chain_id"], 84532);
    assert_eq!(l["metadata"], json!({"sku": "POK-1"}));
    assert_eq!(
        (l["completed_limit"].as_u64(), l["completed_count"].as_u64()),
        (Some(100), Some(0))
    );
    assert_eq!(l["active"], true);
    assert_eq!(l["url"], format!("https://pay.example/link/{id}"));

    let got: Value = app
        .get(key, &format!("/payment_links/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(got, l);
    let listed: Value = app.get(key, "/payment_links").await.json().await.unwrap();
    assert_eq!(listed["data"][0]["id"], id);
    // Another merchant, and this merchant's live mode, see no such link.
    assert_error(
        app.get(&app.b.test_key, &format!("/payment_links/{id}"))
            .await,
        404,
        "not_found_error",
    )
    .await;
    assert_error(
        app.get(&app.a.live_key, &format!("/payment_links/{id}"))
            .await,
        404,
        "not_found_error",
    )
    .await;

    let off = app
        .post(
            key,
            &format!("/payment_links/{id}"),
            json!({"active": false}),
        )
        .await;
    assert_eq!(off.status(), 200);
    let off: Value = off.json().await.unwrap();
    assert_eq!(off["active"], false);
    // Its price never changes: only `active` may be sent.
    let body = assert_error(
        app.post(key, &format!("/payment_links/{id}"), json!({"amount": "1"}))
            .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("amount"));
}

#[tokio::test]
async fn a_bad_link_is_refused_with_every_field_named() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    app.verified_wallet(key, &WALLET_KEY).await;
    let res = app
        .post(
            key,
            "/payment_links",
            json!({"name": " ", "amount": 5, "completed_limit": 0, "currency": "DAI"}),
        )
        .await;
    let body = assert_error(res, 400, "invalid_request_error").await;
    assert_eq!(
        detail_fields(&body),
        ["name", "amount", "currency", "completed_limit"]
    );
    let both = app
        .post(
            key,
            "/payment_links",
            json!({"name": "Tea", "amount": "5", "price": {"amount": "5", "currency": "USD"}}),
        )
        .await;
    assert_eq!(
        detail_fields(&assert_error(both, 400, "invalid_request_error").await),
        ["price"]
    );
    let none = app
        .post(key, "/payment_links", json!({"name": "Tea"}))
        .await;
    assert_eq!(
        detail_fields(&assert_error(none, 400, "invalid_request_error").await),
        ["amount"]
    );
    let reversed = app
        .post(
            key,
            "/payment_links",
            json!({"name": "Tip", "custom_amount": {"minimum": "10", "maximum": "1"}}),
        )
        .await;
    assert_eq!(
        detail_fields(&assert_error(reversed, 400, "invalid_request_error").await),
        ["custom_amount"]
    );
    // No feed is configured in this app: a euro price cannot be quoted, so no link.
    let euros = app
        .post(
            key,
            "/payment_links",
            json!({"name": "Tea", "price": {"amount": "5", "currency": "EUR"}, "currency": "USDC"}),
        )
        .await;
    assert_eq!(
        detail_fields(&assert_error(euros, 400, "invalid_request_error").await),
        ["price"]
    );
}

#[tokio::test]
async fn each_visit_opens_a_session_and_a_returning_visitor_keeps_theirs() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    app.verified_wallet(key, &WALLET_KEY).await;
    let l = link(
        &app,
        key,
        json!({"name": "Pour-over kit", "amount": "25", "metadata": {"sku": "POK-1"}}),
    )
    .await;

    let (first, cookie) = redirected(&visit(&app, &l, None, "").await);
    let cookie = cookie.expect("a fresh session sets the visit cookie");
    let (second, _) = redirected(&visit(&app, &l, None, "").await);
    assert_ne!(first, second, "two visitors, two sessions");
    let (again, set) = redirected(&visit(&app, &l, Some(&cookie), "").await);
    assert_eq!(
        (again.as_str(), set),
        (first.as_str(), None),
        "the same visitor, the same session"
    );

    let s: Value = app
        .get(key, &format!("/checkout/sessions/{first}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(s["payment_link"], l["id"]);
    assert_eq!(
        (s["title"].as_str(), s["amount"].as_str()),
        (Some("Pour-over kit"), Some("25"))
    );
    assert_eq!(s["metadata"], json!({"sku": "POK-1"}));
    let of_link: Value = app
        .get(
            key,
            &format!(
                "/checkout/sessions?payment_link={}",
                l["id"].as_str().unwrap()
            ),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(of_link["data"].as_array().unwrap().len(), 2);
    let other: Value = app
        .get(
            key,
            "/checkout/sessions?payment_link=plink_0355RGziS6Gwe8zF5hRoCU",
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(other["data"].as_array().unwrap().len(), 0);
    assert_error(
        app.get(key, "/checkout/sessions?payment_link=cs_x").await,
        400,
        "invalid_request_error",
    )
    .await;

    // Past its session's expiry the visitor's cookie opens a new one.
    app.clock.advance(std::time::Duration::from_secs(3_601));
    let (later, _) = redirected(&visit(&app, &l, Some(&cookie), "").await);
    assert!(later != first && later != second);
}

#[tokio::test]
async fn an_inactive_link_or_an_unknown_one_answers_a_page_and_opens_nothing() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    app.verified_wallet(key, &WALLET_KEY).await;
    let l = link(&app, key, json!({"name": "Pour-over kit", "amount": "25"})).await;
    let id = l["id"].as_str().unwrap();
    app.post(
        key,
        &format!("/payment_links/{id}"),
        json!({"active": false}),
    )
    .await;
    let res = visit(&app, &l, None, "").await;
    assert_eq!(res.status(), 410);
    let page = res.text().await.unwrap();
    assert!(
        page.contains("no longer active") && page.contains("Pour-over kit"),
        "{page}"
    );
    let listed: Value = app
        .get(key, &format!("/checkout/sessions?payment_link={id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["data"].as_array().unwrap().len(), 0);
    let unknown = visitor()
        .get(format!("{}/link/plink_0355RGziS6Gwe8zF5hRoCU", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    // Back on: it opens sessions again.
    app.post(
        key,
        &format!("/payment_links/{id}"),
        json!({"active": true}),
    )
    .await;
    redirected(&visit(&app, &l, None, "").await);
}

#[tokio::test]
async fn an_open_amount_link_asks_for_the_amount_within_its_bounds() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    app.verified_wallet(key, &WALLET_KEY).await;
    let l = link(
        &app,
        key,
        json!({"name": "Tip jar", "custom_amount": {"minimum": "1", "maximum": "100"}}),
    )
    .await;
    assert_eq!(
        l["custom_amount"],
        json!({"minimum": "1", "maximum": "100"})
    );
    crate::openapi_served::assert_has_required("PaymentLinkResource", &l);
    assert!(l["amount"].is_null());
    let ask = visit(&app, &l, None, "").await;
    assert_eq!(ask.status(), 200);
    let page = ask.text().await.unwrap();
    assert!(
        page.contains(r#"id="choose-amount""#) && page.contains("1 to 100"),
        "{page}"
    );
    let refused = visit(&app, &l, None, "?amount=250").await;
    assert_eq!(refused.status(), 400);
    assert!(refused
        .text()
        .await
        .unwrap()
        .contains("must be between 1 and 100 USDC"));
    let (session, _) = redirected(&visit(&app, &l, None, "?amount=7.5").await);
    let s: Value = app
        .get(key, &format!("/checkout/sessions/{session}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(s["amount"], "7.5");
}
