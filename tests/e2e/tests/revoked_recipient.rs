//! A revoked recipient cuts every path to its open sessions (D30): no deposit address on
//! the API, the hosted page or its status, `/x402` and the one-signature endpoints refuse
//! naming the wallet, and money that still reaches the stored deposit address is booked
//! but never swept to the revoked wallet. And dust at a deposit address (x402 item 6) does
//! not withdraw x402: only money covering the gross does.
//!
//! Both fail on the service before D30: there, the revoked recipient's session still
//! showed its deposit address everywhere, `/x402` offered it, and the worker swept the
//! money to the revoked wallet; one base unit at the address made `/x402` ask for nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};
use stablepay_e2e::one_signature::{payer_without_eth, sign_typed_data};
use stablepay_e2e::x402::{sdk_pays, sdk_signs};
use stablepay_e2e::*;

/// A session of `amount` paying `recipient` (the merchant's first verified wallet if
/// `None`): (id, deposit address, x402 url).
async fn session_for(
    stack: &Stack,
    amount: &str,
    recipient: Option<&str>,
) -> (String, String, String) {
    let mut body = json!({ "mode": "payment", "title": "Order", "amount": amount });
    if let Some(recipient) = recipient {
        body["recipient"] = json!(recipient);
    }
    let (status, session) = stack.post("/api/v1/checkout/sessions", body).await;
    assert_eq!(status, 201, "{session}");
    let field = |k: &str| session[k].as_str().unwrap().to_owned();
    (field("id"), field("deposit_address"), field("x402_url"))
}

async fn session_of(stack: &Stack, id: &str) -> Value {
    stack.get(&format!("/api/v1/checkout/sessions/{id}")).await
}

/// GET a public (unauthenticated) path: (status, body text).
async fn public(stack: &Stack, path: &str, signature: Option<&str>) -> (u16, String) {
    let mut req = stack.http.get(format!("{}{path}", stack.api));
    if let Some(signature) = signature {
        req = req.header("PAYMENT-SIGNATURE", signature);
    }
    let res = req.send().await.unwrap();
    (res.status().as_u16(), res.text().await.unwrap())
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

async fn revoke(stack: &Stack, address: &str) {
    let wallets = stack.get("/api/v1/wallets?limit=100").await;
    let id = wallets["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["address"].as_str().unwrap().eq_ignore_ascii_case(address))
        .map(|w| w["id"].as_str().unwrap().to_owned())
        .expect("the wallet is listed");
    let r = stack
        .http
        .delete(format!("{}/api/v1/wallets/{id}", stack.api))
        .bearer_auth(&stack.key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["status"], "revoked");
}

/// A 400 in the error envelope that names the revoked wallet.
fn assert_names_revoked(status: u16, body: &str, wallet: &str) {
    assert_eq!(status, 400, "{body}");
    let body = json_of(body);
    assert_eq!(body["error"]["type"], "invalid_request_error", "{body}");
    let message = body["error"]["message"].as_str().unwrap().to_lowercase();
    assert!(
        message.contains("revoked") && message.contains(&wallet.to_lowercase()),
        "{body}"
    );
}

async fn facilitate(stack: &Stack, action: &str, header: &str) -> Value {
    let payload: Value = serde_json::from_slice(
        &base64::engine::general_purpose::STANDARD
            .decode(header)
            .unwrap(),
    )
    .unwrap();
    let (status, answer) = stack
        .post(
            &format!("/api/v1/x402/{action}"),
            json!({
                "x402Version": 2,
                "paymentPayload": payload,
                "paymentRequirements": payload["accepted"],
            }),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    answer
}

/// `status sweep_tx_hash` of the session's deposit transfers.
async fn deposit_rows(stack: &Stack, session: &str) -> Vec<String> {
    let uuid = stablepay_domain::CheckoutSessionId::parse(session)
        .unwrap()
        .uuid();
    stablepay_postgres::testing::query_strings(
        &stack.store,
        &format!(
            "SELECT status || ' ' || amount_micros || ' ' || coalesce(sweep_tx_hash, 'unswept') \
             AS value FROM deposit_transfers WHERE checkout_session_id = '{uuid}'"
        ),
    )
    .await
    .unwrap()
}

async fn relay_count(stack: &Stack) -> usize {
    stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT tx_hash AS value FROM relayed_transactions",
    )
    .await
    .unwrap()
    .len()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_revoked_recipients_session_offers_no_way_to_pay_and_late_money_is_booked_not_swept() {
    let stack = Stack::start().await;
    let (revoked, _) = stack.fresh_verified_wallet().await;
    let (kept, _) = stack.fresh_verified_wallet().await;
    let (id, deposit, x402_url) = session_for(&stack, "20", Some(&revoked)).await;
    let (control, control_deposit, _) = session_for(&stack, "20", Some(&kept)).await;
    let pay_page = format!("/pay/{id}");

    // Before the revocation the session shows its deposit address everywhere.
    let (status, page) = public(&stack, &pay_page, None).await;
    assert_eq!(status, 200);
    assert!(page.contains("id=\"deposit-address\""), "{page}");
    let (_, state) = public(&stack, &format!("{pay_page}/status"), None).await;
    assert!(
        json_of(&state)["deposit_address"]
            .as_str()
            .unwrap()
            .eq_ignore_ascii_case(&deposit),
        "{state}"
    );
    // A buyer and an agent sign while it is still offered.
    let (_, payer_key, payer) = payer_without_eth(&stack, 50_000_000).await;
    let authorization = format!("{pay_page}/authorization");
    let (status, auth) = public(&stack, &format!("{authorization}?payer={payer}"), None).await;
    assert_eq!(status, 200, "{auth}");
    let typed = json_of(&auth)["typed_data"].clone();
    let signed = json!({
        "payer": payer.to_string(),
        "valid_before": typed["message"]["validBefore"],
        "signature": sign_typed_data(&typed, &payer_key),
    });
    let x402_header = sdk_signs(&x402_url, &payer_key, 0).await;

    revoke(&stack, &revoked).await;

    // No deposit address on the API, the status endpoint or the page.
    let s = session_of(&stack, &id).await;
    assert_eq!(s["status"], "open", "{s}");
    assert!(s["deposit_address"].is_null(), "{s}");
    let (status, state) = public(&stack, &format!("{pay_page}/status"), None).await;
    assert_eq!(status, 200, "{state}");
    assert!(json_of(&state)["deposit_address"].is_null(), "{state}");
    let (_, page) = public(&stack, &pay_page, None).await;
    assert!(!page.contains("id=\"deposit-address\""), "{page}");
    assert!(
        !page.to_lowercase().contains(&deposit.to_lowercase()),
        "the page names the deposit address: {page}"
    );
    // Only the revoked recipient's sessions: the other wallet's still shows its own.
    let c = session_of(&stack, &control).await;
    assert!(
        c["deposit_address"]
            .as_str()
            .unwrap()
            .eq_ignore_ascii_case(&control_deposit),
        "{c}"
    );

    // x402 and one-signature refuse, naming the wallet, with or without a signed payment.
    let x402_path = format!("/x402/{id}");
    let (status, body) = public(&stack, &x402_path, None).await;
    assert_names_revoked(status, &body, &revoked);
    let (status, body) = public(&stack, &x402_path, Some(&x402_header)).await;
    assert_names_revoked(status, &body, &revoked);
    let verdict = facilitate(&stack, "verify", &x402_header).await;
    assert_eq!(
        (&verdict["isValid"], &verdict["invalidReason"]),
        (&json!(false), &json!("recipient_revoked")),
        "{verdict}"
    );
    let settled = facilitate(&stack, "settle", &x402_header).await;
    assert_eq!(settled["success"], false, "{settled}");
    let (status, body) = public(&stack, &format!("{authorization}?payer={payer}"), None).await;
    assert_names_revoked(status, &body, &revoked);
    let res = stack
        .http
        .post(format!("{}{authorization}", stack.api))
        .json(&signed)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    assert_names_revoked(status, &res.text().await.unwrap(), &revoked);
    assert_eq!(relay_count(&stack).await, 0, "nothing was relayed");

    // Money that still reaches the stored address is booked.
    let buyer = funded_buyer(&stack.chain).await;
    let usdc = stack.chain.usdc.clone();
    let tx = transfer(&buyer, &usdc, &deposit, 20_000_000).await;
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(30))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["amount_received"], "20", "{done}");
    assert_eq!(done["tx_hash"], tx);
    let payments = stack.payments_of(&id).await;
    assert_eq!(payments.len(), 1, "{payments:?}");

    // The worker sweeps the other session's deposit, which arrived after this one was
    // booked, so a sweep ran that could have taken both.
    transfer(&buyer, &usdc, &control_deposit, 20_000_000).await;
    let swept = poll(Duration::from_secs(30), || async {
        let at = usdc_balance(&buyer, &stack.chain, &control_deposit).await;
        let got = usdc_balance(&buyer, &stack.chain, &kept).await;
        (at == 0 && got == 19_800_000).then_some(())
    })
    .await;
    assert!(swept.is_some(), "the kept wallet's deposit is swept");
    let sweeps_mined = poll(Duration::from_secs(30), || async {
        let sweeps = stablepay_postgres::testing::query_strings(
            &stack.store,
            "SELECT status AS value FROM deposit_sweeps",
        )
        .await
        .unwrap();
        (!sweeps.is_empty() && sweeps.iter().all(|s| s == "mined")).then_some(())
    })
    .await;
    assert!(
        sweeps_mined.is_some(),
        "the control sweep is mined at depth"
    );
    // And for several blocks more (sweep ticks every 300 ms, a block a second), the
    // revoked recipient's money stays where it arrived.
    let start = stack_head(&buyer).await;
    let watched = poll(Duration::from_secs(30), || async {
        assert_eq!(
            usdc_balance(&buyer, &stack.chain, &deposit).await,
            20_000_000,
            "the revoked recipient's deposit was swept"
        );
        (stack_head(&buyer).await >= start + 5).then_some(())
    })
    .await;
    assert!(watched.is_some(), "the chain stopped at block {start}");
    assert_eq!(usdc_balance(&buyer, &stack.chain, &revoked).await, 0);
    assert_eq!(
        deposit_rows(&stack, &id).await,
        ["confirmed 20000000 unswept"]
    );
    let control_rows = deposit_rows(&stack, &control).await;
    assert!(
        control_rows.len() == 1 && !control_rows[0].ends_with("unswept"),
        "{control_rows:?}"
    );
}

async fn stack_head(client: &Client) -> u64 {
    use ethers::providers::Middleware;
    client.get_block_number().await.unwrap().as_u64()
}

#[tokio::test(flavor = "multi_thread")]
async fn one_base_unit_at_the_deposit_address_does_not_withdraw_x402() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let (id, deposit, url) = session_for(&stack, "12.5", None).await;
    let buyer = funded_buyer(&stack.chain).await;
    transfer(&buyer, &stack.chain.usdc, &deposit, 1).await;
    let booked = poll(Duration::from_secs(30), || async {
        (session_of(&stack, &id).await["amount_received"] == "0.000001").then_some(())
    })
    .await;
    assert!(
        booked.is_some(),
        "the dust is confirmed at depth: {}",
        session_of(&stack, &id).await
    );
    assert_eq!(deposit_rows(&stack, &id).await.len(), 1);
    assert!(deposit_rows(&stack, &id).await[0].starts_with("confirmed 1 "));

    let res = stack.http.get(&url).send().await.unwrap();
    assert_eq!(res.status(), 402);
    let required: Value = serde_json::from_slice(
        &base64::engine::general_purpose::STANDARD
            .decode(res.headers()["PAYMENT-REQUIRED"].to_str().unwrap())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(required["accepts"][0]["amount"], "12500000", "{required}");
    assert!(required["error"].is_null(), "{required}");

    let (_, key, payer) = payer_without_eth(&stack, 12_500_000).await;
    let paid = sdk_pays(&url, &key).await;
    assert_eq!(paid["status"], 200, "{paid}");
    let response = &paid["payment_response"];
    assert_eq!(response["success"], true, "{paid}");
    let tx = response["transaction"].clone();
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["amount_received"], "12.500001", "{done}");
    wait_for_blocks(&buyer, 3).await;
    let payments = stack.payments_of(&id).await;
    assert_eq!(payments.len(), 1, "exactly one payment: {payments:?}");
    assert_eq!(payments[0]["tx_hash"], tx);
    assert!(
        payments[0]["wallet_address"]
            .as_str()
            .unwrap()
            .eq_ignore_ascii_case(&payer.to_string()),
        "{payments:?}"
    );
}
