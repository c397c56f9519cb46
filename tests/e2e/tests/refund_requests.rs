//! Refunds that reach the right person (D32): the merchant asks, the customer confirms an
//! address on the request's public endpoints (by a wallet signature or typed twice), the
//! merchant is told, and only a transfer to that address on chain pays the request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{json, Value};
use stablepay_domain::rules::eip191;
use stablepay_e2e::*;

#[tokio::test(flavor = "multi_thread")]
async fn a_request_is_paid_only_to_the_address_its_customer_confirmed() {
    let stack = Stack::start().await;
    let (merchant_addr, merchant_key) = stack.fresh_verified_wallet().await;
    let (status, endpoint) = stack
        .post(
            "/api/v1/webhook_endpoints",
            json!({ "url": "http://localhost:9/x",
                    "enabled_events": ["refund_request.address_confirmed"] }),
        )
        .await;
    assert_eq!(status, 201, "{endpoint}");
    let (_, payment, _) = paid_session(&stack, "12.5").await;
    let pay_id = payment["id"].as_str().unwrap();
    let payer = payment["wallet_address"].as_str().unwrap().to_owned();
    let merchant = client_for(&stack.chain, &merchant_key).await;
    mint(&merchant, &stack.chain.usdc, &merchant_addr, 100_000_000).await;
    let usdc = stack.chain.usdc.clone();

    // The merchant asks; bad input is named.
    let (status, err) = stack
        .post(
            "/api/v1/refund_requests",
            json!({ "payment": pay_id, "amount": "12.51" }),
        )
        .await;
    assert_eq!(status, 400, "{err}");
    assert_eq!(err["error"]["details"][0]["field"], "amount");
    let (status, err) = stack
        .post("/api/v1/refund_requests", json!({ "payment": pay_id }))
        .await;
    assert_eq!(
        (status, &err["error"]["details"][0]["field"]),
        (400, &json!("amount"))
    );
    let (status, request) = stack
        .post(
            "/api/v1/refund_requests",
            json!({ "payment": pay_id, "amount": "7.5", "reason": "sent from an exchange" }),
        )
        .await;
    assert_eq!(status, 201, "{request}");
    let rr = request["id"].as_str().unwrap().to_owned();
    assert!(rr.starts_with("rr_"));
    assert_eq!(request["object"], "refund_request");
    assert_eq!(request["status"], "awaiting_address");
    assert_eq!(request["destination_address"], Value::Null);
    let url = request["url"].as_str().unwrap();
    assert!(url.ends_with(&format!("/refund/{rr}")), "{url}");

    // Naming it before the customer answered pays nothing.
    let to_payer = transfer(&merchant, &usdc, &payer, 7_500_000).await;
    let (status, err) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": to_payer, "refund_request": rr }),
        )
        .await;
    assert_eq!(status, 400, "{err}");
    assert_eq!(err["error"]["details"][0]["field"], "refund_request");

    // The customer's page and its endpoints are public: the id is the capability.
    let page = reqwest::get(format!("{}/refund/{rr}", stack.api))
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("refund-data"));
    let customer_key = [0x5a; 32];
    let customer = eip191::address_of_private_key(&customer_key).unwrap();
    let http = reqwest::Client::new();
    let text: Value = http
        .get(format!(
            "{}/refund/{rr}/message?address={customer}",
            stack.api
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let message = text["message"].as_str().unwrap();
    assert!(
        message.contains(&rr) && message.contains(&customer.to_string()),
        "{message}"
    );
    let post = |body: Value| {
        let (http, url) = (http.clone(), format!("{}/refund/{rr}/address", stack.api));
        async move {
            let res = http.post(url).json(&body).send().await.unwrap();
            (res.status().as_u16(), res.json::<Value>().await.unwrap())
        }
    };
    // Signed by another key: refused; signed by the address: confirmed.
    let forged = eip191::sign(message.as_bytes(), &[0x5b; 32])
        .unwrap()
        .to_hex();
    let (status, err) = post(json!({ "address": customer.to_string(), "signature": forged })).await;
    assert_eq!(
        (status, &err["error"]["details"][0]["field"]),
        (400, &json!("signature"))
    );
    let signature = eip191::sign(message.as_bytes(), &customer_key)
        .unwrap()
        .to_hex();
    let (status, confirmed) =
        post(json!({ "address": customer.to_string(), "signature": signature })).await;
    assert_eq!(status, 200, "{confirmed}");
    assert_eq!(confirmed["status"], "address_confirmed");
    assert_eq!(confirmed["destination_address"], customer.to_string());
    assert_eq!(confirmed["confirmation"], "signature");
    // Once confirmed, it takes no other address.
    let other = "0x00000000000000000000000000000000000000aa";
    let (status, _) = post(json!({ "address": other, "address_confirmation": other })).await;
    assert_eq!(status, 409);
    // The merchant is told.
    let events = stack
        .get("/api/v1/webhook_events?type=refund_request.address_confirmed")
        .await;
    let events = events["data"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(
        events[0]["payload"]["data"]["object"]["destination_address"],
        customer.to_string()
    );

    // A transfer to the payer does not pay it; one to the confirmed address does.
    let (status, err) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": to_payer, "refund_request": rr }),
        )
        .await;
    assert_eq!(
        (status, &err["error"]["details"][0]["field"]),
        (400, &json!("tx_hash")),
        "{err}"
    );
    let to_customer = transfer(&merchant, &usdc, &customer.to_string(), 7_500_000).await;
    let (status, refund) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": to_customer, "refund_request": rr }),
        )
        .await;
    assert_eq!(status, 201, "{refund}");
    assert_eq!(
        refund["to_address"].as_str().unwrap().to_lowercase(),
        customer.to_string().to_lowercase()
    );
    let paid = stack.get(&format!("/api/v1/refund_requests/{rr}")).await;
    assert_eq!(paid["status"], "refunded");
    assert_eq!(paid["refund"], refund["id"]);
    let list = stack
        .get(&format!("/api/v1/refund_requests?payment={pay_id}"))
        .await;
    assert_eq!(list["data"][0]["id"], rr.as_str());
    // The audit log names the request and who asked for it.
    let audit = stack.get("/api/v1/audit_events").await;
    assert!(audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["action"] == "refund_request.created" && e["target"] == rr.as_str()));

    // A second request: typed twice, the two entries must agree; past its expiry nothing
    // is taken and nothing pays it.
    let (_, second) = stack
        .post(
            "/api/v1/refund_requests",
            json!({ "payment": pay_id, "amount": "1" }),
        )
        .await;
    let rr2 = second["id"].as_str().unwrap().to_owned();
    let post2 = |body: Value| {
        let (http, url) = (http.clone(), format!("{}/refund/{rr2}/address", stack.api));
        async move {
            let res = http.post(url).json(&body).send().await.unwrap();
            (res.status().as_u16(), res.json::<Value>().await.unwrap())
        }
    };
    let exchange = "0x00000000000000000000000000000000000000bb";
    let (status, err) = post2(json!({ "address": exchange, "address_confirmation": other })).await;
    assert_eq!(
        (status, &err["error"]["details"][0]["field"]),
        (400, &json!("address_confirmation"))
    );
    let (status, typed) =
        post2(json!({ "address": exchange, "address_confirmation": exchange })).await;
    assert_eq!(status, 200, "{typed}");
    assert_eq!(typed["confirmation"], "typed_twice");
    let uuid = stablepay_domain::TypedId::as_uuid(
        &stablepay_domain::RefundRequestId::parse(&rr2).unwrap(),
    );
    stablepay_postgres::testing::execute_sql(
        &stack.store,
        &format!("UPDATE refund_requests SET expires_at = now() - interval '1 second' WHERE id = '{uuid}'"),
    )
    .await
    .unwrap();
    let expired = stack.get(&format!("/api/v1/refund_requests/{rr2}")).await;
    assert_eq!(expired["status"], "expired");
    let to_exchange = transfer(&merchant, &usdc, exchange, 1_000_000).await;
    let (status, err) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": to_exchange, "refund_request": rr2 }),
        )
        .await;
    assert_eq!(status, 400, "{err}");
    assert!(err["error"]["details"][0]["message"]
        .as_str()
        .unwrap()
        .contains("expired"));
}
