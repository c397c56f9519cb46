//! Subscription helpers for the end-to-end tests: a live-chain stack, a plan created from
//! the merchant wallet, a subscription checkout paid as a buyer would, and readers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use ethers::types::U256;
use serde_json::{json, Value};
use stablepay_domain::rules::eip191;
use stablepay_evm::bindings::subscription_manager::SubscriptionManager;
use stablepay_evm::bindings::test_token::TestToken;

use crate::{client_for, funded_buyer, poll, send, Client, PrivateChain, Stack, StackOptions};

pub const PLAN_AMOUNT: u64 = 2_500_000; // 2.5 USDC
/// Short enough to see several periods in a test, long enough for depth 2 at 1 block/s.
pub const INTERVAL: u64 = 8;

pub async fn live_stack(chain: &PrivateChain, dunning: &str) -> Stack {
    let stack = Stack::start_with(StackOptions {
        env: vec![
            ("STABLEPAY_PLAN_MIN_INTERVAL".into(), "1s".into()),
            ("STABLEPAY_DUNNING_DELAYS".into(), dunning.into()),
            ("STABLEPAY_CHAIN_POLL".into(), "250ms".into()),
        ],
        ..StackOptions::on(chain)
    })
    .await;
    stack.record_events().await;
    stack
}

/// The merchant's verified wallet creates a USDC plan on chain; returns (plan id,
/// recipient, the recipient's key).
pub async fn merchant_plan(stack: &Stack) -> (u64, String, [u8; 32]) {
    let (recipient, key) = stack.fresh_verified_wallet().await;
    let merchant = client_for(&stack.chain, &key).await;
    let manager = SubscriptionManager::new(
        stack
            .chain
            .subscription_manager
            .parse::<ethers::types::Address>()
            .unwrap(),
        merchant.clone(),
    );
    manager
        .create_plan(
            stack.chain.usdc.parse().unwrap(),
            recipient.parse().unwrap(),
            U256::from(PLAN_AMOUNT),
            INTERVAL,
        )
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
    let id = manager.plan_count().call().await.unwrap().as_u64();
    (id, recipient, key)
}

/// A subscription checkout for `plan`, subscribed by a fresh buyer who allows `periods`
/// charges. Returns (session id, buyer).
pub async fn subscribe(stack: &Stack, plan: u64, periods: u64) -> (String, Arc<Client>) {
    let buyer = funded_buyer(&stack.chain).await;
    let id = send_subscribe(stack, plan, periods, &buyer).await;
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    (id, buyer)
}

/// A fresh subscription session to `plan` that `buyer` subscribes to (allowing `periods`
/// charges), its transaction reported by the hosted page's confirm; returns the session id.
pub async fn send_subscribe(stack: &Stack, plan: u64, periods: u64, buyer: &Arc<Client>) -> String {
    let (status, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "subscription", "title": "Pro plan", "chain_plan_id": plan.to_string(),
                    "amount": "2.5", "interval_seconds": INTERVAL, "customer_reference": "cust-9" }),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    assert_eq!(session["mode"], "subscription");
    assert_eq!(session["amount"], "2.5");
    assert_eq!(session["interval_seconds"], INTERVAL);
    assert_eq!(session["chain_plan_id"], plan.to_string());
    assert_eq!(session["fee_amount"], "0.025");
    let id = session["id"].as_str().unwrap().to_owned();
    let (status, intent) = stack.intent(&id).await;
    assert_eq!(status, 200, "{intent}");
    assert_eq!(intent["mode"], "subscription");
    assert_eq!(
        intent["contract"].as_str().unwrap().to_lowercase(),
        stack.chain.subscription_manager.to_lowercase()
    );
    assert_eq!(intent["intent"]["plan_id"], plan.to_string());
    approve(buyer, stack, PLAN_AMOUNT * periods).await;
    let tx = send(
        buyer,
        intent["contract"].as_str().unwrap(),
        intent["subscribe_calldata"].as_str().unwrap(),
    )
    .await;
    let (status, _, _) = stack.confirm(&id, &tx).await;
    assert_eq!(status, 200);
    id
}

pub async fn approve(buyer: &Arc<Client>, stack: &Stack, micros: u64) {
    TestToken::new(
        stack.chain.usdc.parse::<ethers::types::Address>().unwrap(),
        buyer.clone(),
    )
    .approve(
        stack.chain.subscription_manager.parse().unwrap(),
        U256::from(micros),
    )
    .send()
    .await
    .unwrap()
    .await
    .unwrap();
}

pub async fn subscription_of(stack: &Stack, session: &str) -> Value {
    let s = stack
        .get(&format!("/api/v1/checkout/sessions/{session}"))
        .await;
    let sub = s["subscription"]
        .as_str()
        .expect("the completed session names its subscription");
    stack.get(&format!("/api/v1/subscriptions/{sub}")).await
}

pub async fn list(stack: &Stack, path: &str) -> Vec<Value> {
    stack.get(path).await["data"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Polls the subscription until `check` holds.
pub async fn wait_sub(stack: &Stack, id: &str, secs: u64, check: impl Fn(&Value) -> bool) -> Value {
    let found = poll(Duration::from_secs(secs), || async {
        let s = stack.get(&format!("/api/v1/subscriptions/{id}")).await;
        check(&s).then_some(s)
    })
    .await;
    found.unwrap_or_else(|| panic!("subscription {id} never got there"))
}

/// Registers `address` (again: a revoked wallet restarts verification) and verifies it
/// with `key`.
pub async fn reverify(stack: &Stack, address: &str, key: &[u8; 32]) {
    let (_, w) = stack
        .post("/api/v1/wallets", json!({ "address": address }))
        .await;
    let sig = eip191::sign(
        w["verification"]["message"].as_str().unwrap().as_bytes(),
        key,
    )
    .unwrap()
    .to_hex();
    let (status, body) = stack
        .post(
            &format!("/api/v1/wallets/{}/verify", w["id"].as_str().unwrap()),
            json!({ "signature": sig }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

pub async fn succeeded_periods(stack: &Stack, sub: &str) -> Vec<i64> {
    let mut periods: Vec<i64> = list(
        stack,
        &format!("/api/v1/payment_attempts?subscription={sub}&status=succeeded&limit=100"),
    )
    .await
    .iter()
    .map(|a| {
        let t = a["period_key"].as_str().unwrap();
        chrono_secs(t)
    })
    .collect();
    periods.sort();
    periods
}

/// The timestamp of the chain's latest block.
pub async fn chain_time(chain: &PrivateChain) -> i64 {
    let block = chain
        .call("eth_getBlockByNumber", json!(["latest", false]))
        .await;
    i64::from_str_radix(
        block["timestamp"]
            .as_str()
            .unwrap()
            .trim_start_matches("0x"),
        16,
    )
    .unwrap()
}

/// Polls until the chain's clock reaches `at` (blocks come every second).
pub async fn wait_chain_time(chain: &PrivateChain, at: i64) {
    let reached = poll(Duration::from_secs(60), || async {
        (chain_time(chain).await >= at).then_some(())
    })
    .await;
    assert!(reached.is_some(), "the chain's clock stopped before {at}");
}

/// Seconds of a `YYYY-MM-DDTHH:MM:SS.mmmZ` timestamp (for differences only).
pub fn chrono_secs(t: &str) -> i64 {
    let (date, time) = t.split_once('T').unwrap();
    let d: Vec<i64> = date.split('-').map(|p| p.parse().unwrap()).collect();
    let h: Vec<i64> = time[..8].split(':').map(|p| p.parse().unwrap()).collect();
    // Days from a fixed month table are enough: the test spans minutes, never a month end
    // in a way that matters for differences inside one run.
    ((d[0] * 372 + d[1] * 31 + d[2]) * 24 + h[0]) * 3600 + h[1] * 60 + h[2]
}

/// `GET /portal/subscriptions/:id/cancel`: the message the subscriber signs.
pub async fn portal_cancel_message(stack: &Stack, id: &str) -> String {
    let body: Value = stack
        .http
        .get(format!("{}/portal/subscriptions/{id}/cancel", stack.api))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["message"].as_str().unwrap().to_owned()
}

/// `POST /portal/subscriptions/:id/cancel {"signature"}`: (status, body).
pub async fn portal_cancel(stack: &Stack, id: &str, signature: &str) -> (u16, Value) {
    let r = stack
        .http
        .post(format!("{}/portal/subscriptions/{id}/cancel", stack.api))
        .json(&json!({ "signature": signature }))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}
