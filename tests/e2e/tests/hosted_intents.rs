//! Intents and revoked wallets (D18): a revoked recipient gets no new money through the
//! hosted checkout, intents live minutes (not the session's lifetime), and a payment that
//! still lands through an older intent is recorded, never dropped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ethers::middleware::Middleware;
use ethers::types::{Bytes, TransactionRequest};
use serde_json::{json, Value};
use stablepay_e2e::*;

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
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

fn assert_revoked_error(status: u16, body: &Value) {
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "invalid_request_error");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("revoked"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_revoked_recipient_gets_no_new_money_but_a_payment_already_sent_is_recorded() {
    let stack = Stack::start().await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    let session = stack.open_session("4").await;
    let (status, old_intent) = stack.intent(&session).await;
    assert_eq!(status, 200, "{old_intent}");

    revoke(&stack, &recipient).await;
    // The hosted checkout refuses to sign for, or confirm into, a revoked wallet.
    let (status, body) = stack.intent(&session).await;
    assert_revoked_error(status, &body);
    let (status, _, body) = stack
        .confirm(&session, &format!("0x{}", "11".repeat(32)))
        .await;
    assert_revoked_error(status, &body);
    // New sessions cannot name it either.
    let (status, body) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "After", "amount": "1", "recipient": recipient }),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["details"][0]["field"], "recipient");

    // A buyer who fetched the intent before the revocation still pays: the money moved,
    // so the service records it (money is never dropped).
    let buyer = funded_buyer(&stack.chain).await;
    let tx = pay_intent(&buyer, &old_intent).await;
    let done = stack
        .wait_for_session(&session, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["tx_hash"], tx);
    assert_eq!(
        usdc_balance(&buyer, &stack.chain, &recipient).await,
        3_960_000
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn intents_expire_after_their_ttl_and_a_fresh_one_pays() {
    let chain = PrivateChain::start(None).await;
    let stack = Stack::start_with(StackOptions {
        env: vec![("STABLEPAY_INTENT_TTL".into(), "5s".into())],
        ..StackOptions::on(&chain)
    })
    .await;
    stack.fresh_verified_wallet().await;
    let session = stack.open_session("2").await;
    let (status, stale) = stack.intent(&session).await;
    assert_eq!(status, 200, "{stale}");
    let deadline = stale["intent"]["deadline"].as_u64().unwrap();
    let now = unix_now();
    assert!(
        (now + 3..=now + 6).contains(&deadline),
        "deadline {deadline} is now ({now}) + the 5 s TTL, not the session's 24 h expiry"
    );

    let buyer = funded_buyer(&stack.chain).await;
    let field = |v: &Value, k: &str| v[k].as_str().unwrap().to_owned();
    send(
        &buyer,
        &field(&stale, "token"),
        &field(&stale, "approve_calldata"),
    )
    .await;
    // Let the chain's clock pass the deadline.
    let passed = poll(Duration::from_secs(15), || async {
        chain.mine(1).await;
        let block = chain
            .call("eth_getBlockByNumber", json!(["latest", false]))
            .await;
        let ts = u64::from_str_radix(
            block["timestamp"]
                .as_str()
                .unwrap()
                .trim_start_matches("0x"),
            16,
        )
        .unwrap();
        (ts > deadline).then_some(())
    })
    .await;
    assert!(passed.is_some());
    let pay = TransactionRequest::new()
        .to(field(&stale, "contract")
            .parse::<ethers::types::Address>()
            .unwrap())
        .data(Bytes::from(
            hex::decode(field(&stale, "pay_calldata").trim_start_matches("0x")).unwrap(),
        ));
    assert!(
        buyer.send_transaction(pay, None).await.is_err(),
        "the router refuses an expired intent"
    );

    // The page fetches a fresh intent, which pays.
    let (status, fresh) = stack.intent(&session).await;
    assert_eq!(status, 200);
    assert!(fresh["intent"]["deadline"].as_u64().unwrap() > deadline);
    let tx = send(
        &buyer,
        &field(&fresh, "contract"),
        &field(&fresh, "pay_calldata"),
    )
    .await;
    chain.mine(1).await;
    let done = stack
        .wait_for_session(&session, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["tx_hash"], tx);
}
