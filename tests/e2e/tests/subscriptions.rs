//! Subscriptions end to end on a live chain (8453) of each test's own (block every second,
//! so chain time follows the wall clock): plans created from the merchant wallet, the
//! subscribe intent paid as a buyer would, recurring charges by the worker's keeper,
//! dunning to `past_due` and back or to `expired`, and on-chain and portal cancels.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use ethers::signers::Signer;
use ethers::types::U256;
use serde_json::{json, Value};
use stablepay_domain::rules::eip191;
use stablepay_e2e::{
    client_for, funded_buyer, poll, send, usdc_balance, Client, PrivateChain, Stack, StackOptions,
};
use stablepay_evm::bindings::subscription_manager::SubscriptionManager;
use stablepay_evm::bindings::test_token::TestToken;

const PLAN_AMOUNT: u64 = 2_500_000; // 2.5 USDC
/// Short enough to see several periods in a test, long enough for depth 2 at 1 block/s.
const INTERVAL: u64 = 8;

async fn live_stack(chain: &PrivateChain, dunning: &str) -> Stack {
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
async fn merchant_plan(stack: &Stack) -> (u64, String, [u8; 32]) {
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
async fn subscribe(stack: &Stack, plan: u64, periods: u64) -> (String, Arc<Client>) {
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
    let buyer = funded_buyer(&stack.chain).await;
    approve(&buyer, stack, PLAN_AMOUNT * periods).await;
    let tx = send(
        &buyer,
        intent["contract"].as_str().unwrap(),
        intent["subscribe_calldata"].as_str().unwrap(),
    )
    .await;
    let (status, _, _) = stack.confirm(&id, &tx).await;
    assert_eq!(status, 200);
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    (id, buyer)
}

async fn approve(buyer: &Arc<Client>, stack: &Stack, micros: u64) {
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

async fn subscription_of(stack: &Stack, session: &str) -> Value {
    let s = stack
        .get(&format!("/api/v1/checkout/sessions/{session}"))
        .await;
    let sub = s["subscription"]
        .as_str()
        .expect("the completed session names its subscription");
    stack.get(&format!("/api/v1/subscriptions/{sub}")).await
}

async fn list(stack: &Stack, path: &str) -> Vec<Value> {
    stack.get(path).await["data"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Polls the subscription until `check` holds.
async fn wait_sub(stack: &Stack, id: &str, secs: u64, check: impl Fn(&Value) -> bool) -> Value {
    let found = poll(Duration::from_secs(secs), || async {
        let s = stack.get(&format!("/api/v1/subscriptions/{id}")).await;
        check(&s).then_some(s)
    })
    .await;
    found.unwrap_or_else(|| panic!("subscription {id} never got there"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribe_charge_dun_recover_and_cancel_on_chain() {
    let chain = PrivateChain::start_live(Some(1)).await;
    let stack = live_stack(&chain, "3s,3s").await;
    let (plan, recipient, _) = merchant_plan(&stack).await;
    let before_recipient =
        usdc_balance(&funded_buyer(&stack.chain).await, &stack.chain, &recipient).await;
    // Allowance for two periods: the first charge and one renewal.
    let (session, buyer) = subscribe(&stack, plan, 2).await;

    // The first charge: subscription active, customer, recurring payment, attempt #1, events.
    let sub = subscription_of(&stack, &session).await;
    let id = sub["id"].as_str().unwrap().to_owned();
    assert_eq!(sub["status"], "active");
    assert_eq!(sub["object"], "subscription");
    assert_eq!(sub["livemode"], true);
    assert_eq!(sub["amount"], "2.5");
    assert_eq!(sub["interval_seconds"], INTERVAL);
    assert_eq!(sub["chain_plan_id"], plan.to_string());
    assert_eq!(sub["retry_count"], 0);
    assert!(sub["next_payment_at"].is_string());
    assert_eq!(
        sub["wallet_address"].as_str().unwrap().to_lowercase(),
        format!("{:#x}", buyer.address())
    );
    let payments = list(&stack, &format!("/api/v1/payments?subscription={id}")).await;
    assert_eq!(payments.len(), 1);
    assert_eq!(payments[0]["charge_type"], "recurring");
    assert_eq!(payments[0]["status"], "confirmed");
    assert_eq!(payments[0]["checkout_session"], session.as_str());
    assert_eq!(payments[0]["customer_reference"], "cust-9");
    let attempts = list(
        &stack,
        &format!("/api/v1/payment_attempts?subscription={id}"),
    )
    .await;
    assert_eq!(attempts.len(), 1);
    assert_eq!(
        (
            attempts[0]["status"].as_str(),
            attempts[0]["attempt_number"].as_u64()
        ),
        (Some("succeeded"), Some(1))
    );
    for t in [
        "checkout.session.completed",
        "subscription.created",
        "payment.succeeded",
    ] {
        assert_eq!(stack.events_of_type(t).await.len(), 1, "{t}");
    }

    // The renewal is charged by the keeper when due.
    let renewed = poll(Duration::from_secs(40), || async {
        let p = list(
            &stack,
            &format!("/api/v1/payments?subscription={id}&status=confirmed"),
        )
        .await;
        (p.len() == 2).then_some(p)
    })
    .await
    .expect("the second period was charged");
    assert_ne!(renewed[0]["tx_hash"], renewed[1]["tx_hash"]);

    // The allowance is used up: the third period fails → past_due with both events.
    let past_due = wait_sub(&stack, &id, 40, |s| s["status"] == "past_due").await;
    assert_eq!(past_due["last_failure_code"], "insufficient_allowance");
    assert_eq!(past_due["retry_count"], 0);
    assert!(past_due["next_retry_at"].is_string());
    assert_eq!(stack.events_of_type("subscription.past_due").await.len(), 1);
    assert_eq!(stack.events_of_type("payment.failed").await.len(), 1);
    let failed = list(
        &stack,
        &format!("/api/v1/payments?subscription={id}&status=failed"),
    )
    .await;
    assert_eq!(failed.len(), 1);
    assert!(failed[0]["tx_hash"].is_null());
    let failed_attempts = list(
        &stack,
        &format!("/api/v1/payment_attempts?subscription={id}&status=failed"),
    )
    .await;
    assert_eq!(failed_attempts[0]["failure_code"], "insufficient_allowance");
    assert!(failed_attempts[0]["failure_reason"].is_string());

    // The subscriber approves more: the next retry succeeds, back to active, retries reset.
    approve(&buyer, &stack, PLAN_AMOUNT * 10).await;
    let recovered = wait_sub(&stack, &id, 30, |s| s["status"] == "active").await;
    assert_eq!(recovered["retry_count"], 0);
    assert!(recovered["last_failure_code"].is_null());
    let payments = list(
        &stack,
        &format!("/api/v1/payments?subscription={id}&limit=100"),
    )
    .await;
    // The failed period's record became its confirmed payment (one record per period).
    assert!(payments
        .iter()
        .any(|p| p["id"] == failed[0]["id"] && p["status"] == "confirmed"));
    assert!(payments.iter().all(|p| p["status"] == "confirmed"));

    // The subscriber cancels on chain: canceled with canceled_at, one event, no more charges.
    let manager = SubscriptionManager::new(
        stack
            .chain
            .subscription_manager
            .parse::<ethers::types::Address>()
            .unwrap(),
        buyer.clone(),
    );
    manager
        .cancel(U256::from_dec_str(sub["chain_subscription_id"].as_str().unwrap()).unwrap())
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
    let canceled = wait_sub(&stack, &id, 20, |s| s["status"] == "canceled").await;
    assert!(canceled["canceled_at"].is_string());
    assert!(canceled["next_payment_at"].is_null());
    assert_eq!(stack.events_of_type("subscription.canceled").await.len(), 1);

    // The books equal the chain: every confirmed charge paid the recipient its net.
    let charges = list(
        &stack,
        &format!("/api/v1/payments?subscription={id}&limit=100"),
    )
    .await;
    let net: u128 = charges.len() as u128 * 2_475_000;
    let after = usdc_balance(&buyer, &stack.chain, &recipient).await;
    assert_eq!(after - before_recipient, net, "{charges:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_exhausted_expire_and_the_portal_cancels() {
    let chain = PrivateChain::start_live(Some(1)).await;
    let stack = live_stack(&chain, "2s,2s").await;
    let (plan, _, _) = merchant_plan(&stack).await;
    // Allowance for the first charge only: the renewal fails, then both retries fail.
    let (lapsing, _) = subscribe(&stack, plan, 1).await;
    let lapsing = subscription_of(&stack, &lapsing).await;
    let lapsing_id = lapsing["id"].as_str().unwrap().to_owned();
    // A second subscriber cancels in the portal instead.
    let (kept, buyer) = subscribe(&stack, plan, 12).await;
    let kept = subscription_of(&stack, &kept).await;
    let kept_id = kept["id"].as_str().unwrap().to_owned();

    let http = reqwest::Client::new();
    let portal = format!("{}/portal/subscriptions/{kept_id}", stack.api);
    let page = http.get(&portal).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("Pro plan"));
    let message: Value = http
        .get(format!("{portal}/cancel"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let message = message["message"].as_str().unwrap().to_owned();
    assert!(message.contains(&kept_id) && message.contains("8453"));
    assert!(message
        .to_lowercase()
        .contains(&format!("{:#x}", buyer.address())));
    // Any other signer is refused on `signature`.
    let stranger = eip191::sign(message.as_bytes(), &[0x42; 32])
        .unwrap()
        .to_hex();
    let r = http
        .post(format!("{portal}/cancel"))
        .json(&json!({ "signature": stranger }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["details"][0]["field"], "signature");
    // The subscriber's signature cancels; a repeat is 200 with the same state.
    let sig = buyer
        .signer()
        .sign_message(message.as_bytes())
        .await
        .unwrap()
        .to_string();
    for _ in 0..2 {
        let r = http
            .post(format!("{portal}/cancel"))
            .json(&json!({ "signature": format!("0x{sig}") }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let state: Value = r.json().await.unwrap();
        assert_eq!(state["status"], "canceled");
    }
    let events = stack.events_of_type("subscription.canceled").await;
    assert_eq!(events.len(), 1);

    // The lapsing subscription: past_due, two failed retries, then expired.
    let expired = wait_sub(&stack, &lapsing_id, 60, |s| s["status"] == "expired").await;
    assert_eq!(expired["last_failure_code"], "insufficient_allowance");
    assert_eq!(stack.events_of_type("subscription.expired").await.len(), 1);
    assert_eq!(stack.events_of_type("subscription.past_due").await.len(), 1);
    let attempts = list(
        &stack,
        &format!("/api/v1/payment_attempts?subscription={lapsing_id}&status=failed"),
    )
    .await;
    assert_eq!(
        attempts.len(),
        3,
        "the failure and two retries: {attempts:?}"
    );
    let mut numbers: Vec<u64> = attempts
        .iter()
        .map(|a| a["attempt_number"].as_u64().unwrap())
        .collect();
    numbers.sort();
    assert_eq!(numbers, [1, 2, 3]);

    // Nothing is charged after the portal cancel.
    let kept_payments = list(&stack, &format!("/api/v1/payments?subscription={kept_id}")).await;
    assert_eq!(kept_payments.len(), 1, "{kept_payments:?}");
}

/// Registers `address` again and verifies it with `key` (a revoked wallet restarts
/// verification).
async fn reverify(stack: &Stack, address: &str, key: &[u8; 32]) {
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

async fn succeeded_periods(stack: &Stack, sub: &str) -> Vec<i64> {
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
async fn chain_time(chain: &PrivateChain) -> i64 {
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
async fn wait_chain_time(chain: &PrivateChain, at: i64) {
    let reached = poll(Duration::from_secs(60), || async {
        (chain_time(chain).await >= at).then_some(())
    })
    .await;
    assert!(reached.is_some(), "the chain's clock stopped before {at}");
}

/// Seconds of a `YYYY-MM-DDTHH:MM:SS.mmmZ` timestamp (for differences only).
fn chrono_secs(t: &str) -> i64 {
    let (date, time) = t.split_once('T').unwrap();
    let d: Vec<i64> = date.split('-').map(|p| p.parse().unwrap()).collect();
    let h: Vec<i64> = time[..8].split(':').map(|p| p.parse().unwrap()).collect();
    // Days from a fixed month table are enough: the test spans minutes, never a month end
    // in a way that matters for differences inside one run.
    ((d[0] * 372 + d[1] * 31 + d[2]) * 24 + h[0]) * 3600 + h[1] * 60 + h[2]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_a_keeper_outage_and_a_paused_recipient_charge_each_period_once() {
    let chain = PrivateChain::start_live(Some(1)).await;
    let mut stack = live_stack(&chain, "3s").await;
    let (plan, recipient, key) = merchant_plan(&stack).await;
    let (session, buyer) = subscribe(&stack, plan, 100).await;
    let id = subscription_of(&stack, &session).await["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Two workers bill the same database: each period is charged once.
    let second = stack.spawn_worker();
    let two = poll(Duration::from_secs(40), || async {
        let p = succeeded_periods(&stack, &id).await;
        (p.len() >= 3).then_some(p)
    })
    .await
    .expect("two renewals with two workers");
    assert!(
        two.windows(2).all(|w| w[1] - w[0] == INTERVAL as i64),
        "{two:?}"
    );

    // Keeper down (every worker killed) for three periods, then one back: one charge, for
    // the current period; the missed ones are skipped, not pulled back to back.
    drop(second);
    stack.kill_worker();
    let before = succeeded_periods(&stack, &id).await;
    // Three due dates pass on chain with no keeper.
    wait_chain_time(&chain, chain_time(&chain).await + 3 * INTERVAL as i64).await;
    stack.start_worker();
    let after = poll(Duration::from_secs(20), || async {
        let p = succeeded_periods(&stack, &id).await;
        (p.len() > before.len()).then_some(p)
    })
    .await
    .expect("a charge after the outage");
    assert_eq!(after.len(), before.len() + 1, "{after:?}");
    let gap = after[after.len() - 1] - before[before.len() - 1];
    assert!(
        gap >= 3 * INTERVAL as i64,
        "missed periods were skipped: {after:?}"
    );
    assert_eq!(
        gap % INTERVAL as i64,
        0,
        "the schedule keeps its anchor: {after:?}"
    );

    // The recipient wallet is revoked: paused at once, nothing charged while paused.
    let wallets = list(&stack, "/api/v1/wallets?limit=100").await;
    let wallet = wallets
        .iter()
        .find(|w| {
            w["address"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case(&recipient)
        })
        .unwrap();
    let r = stack
        .http
        .delete(format!(
            "{}/api/v1/wallets/{}",
            stack.api,
            wallet["id"].as_str().unwrap()
        ))
        .bearer_auth(&stack.key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let paused = stack.get(&format!("/api/v1/subscriptions/{id}")).await;
    assert_eq!(paused["status"], "paused");
    let charged = succeeded_periods(&stack, &id).await.len();
    // Two due dates pass on chain while paused: nothing is charged.
    wait_chain_time(&chain, chain_time(&chain).await + 2 * INTERVAL as i64).await;
    assert_eq!(succeeded_periods(&stack, &id).await.len(), charged);

    // Verified again: active, and the current period is charged once.
    reverify(&stack, &recipient, &key).await;
    let resumed = stack.get(&format!("/api/v1/subscriptions/{id}")).await;
    assert_eq!(resumed["status"], "active");
    let back = poll(Duration::from_secs(20), || async {
        let p = succeeded_periods(&stack, &id).await;
        (p.len() > charged).then_some(p)
    })
    .await
    .expect("a charge after resuming");
    assert_eq!(back.len(), charged + 1);

    // The books equal the chain.
    let net = back.len() as u128 * 2_475_000;
    assert_eq!(usdc_balance(&buyer, &stack.chain, &recipient).await, net);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_contract_wallet_subscribes_and_cancels_in_the_portal_with_erc1271() {
    use stablepay_evm::bindings::test_smart_wallet::TestSmartWallet;
    let chain = PrivateChain::start_live(Some(1)).await;
    let stack = live_stack(&chain, "3s").await;
    let (plan, _, _) = merchant_plan(&stack).await;
    let env = stablepay_e2e::test_env();
    let wallet = &env["chains"]["8453"]["smart_wallet"];
    let owner_key: [u8; 32] = hex::decode(
        wallet["owner_private_key"]
            .as_str()
            .unwrap()
            .trim_start_matches("0x"),
    )
    .unwrap()
    .try_into()
    .unwrap();
    let wallet_address = wallet["address"].as_str().unwrap().to_owned();
    let owner = client_for(&stack.chain, &owner_key).await;
    let smart = TestSmartWallet::new(
        wallet_address.parse::<ethers::types::Address>().unwrap(),
        owner.clone(),
    );

    // The contract wallet approves and subscribes through `execute`, signed by its owner.
    let (status, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "subscription", "title": "Team plan", "chain_plan_id": plan.to_string() }),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    let cs = session["id"].as_str().unwrap().to_owned();
    let (_, intent) = stack.intent(&cs).await;
    let bytes = |k: &str| {
        ethers::types::Bytes::from(
            hex::decode(intent[k].as_str().unwrap().trim_start_matches("0x")).unwrap(),
        )
    };
    let token = stack.chain.usdc.parse::<ethers::types::Address>().unwrap();
    let manager = stack
        .chain
        .subscription_manager
        .parse::<ethers::types::Address>()
        .unwrap();
    smart
        .execute(token, bytes("approve_calldata"))
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
    let receipt = smart
        .execute(manager, bytes("subscribe_calldata"))
        .send()
        .await
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    let (status, _, _) = stack
        .confirm(&cs, &format!("{:#x}", receipt.transaction_hash))
        .await;
    assert_eq!(status, 200);
    let done = stack
        .wait_for_session(&cs, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    let sub = subscription_of(&stack, &cs).await;
    assert!(sub["wallet_address"]
        .as_str()
        .unwrap()
        .eq_ignore_ascii_case(&wallet_address));

    // The owner's signature over the cancel message is the wallet's (ERC-1271).
    let id = sub["id"].as_str().unwrap();
    let portal = format!("{}/portal/subscriptions/{id}/cancel", stack.api);
    let http = reqwest::Client::new();
    let message: Value = http
        .get(&portal)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let sig = eip191::sign(message["message"].as_str().unwrap().as_bytes(), &owner_key)
        .unwrap()
        .to_hex();
    let r = http
        .post(&portal)
        .json(&json!({ "signature": sig }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let state: Value = r.json().await.unwrap();
    assert_eq!(state["status"], "canceled");
    assert_eq!(stack.events_of_type("subscription.canceled").await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_charge_dropped_by_the_node_while_the_worker_was_down_is_sent_again_once() {
    let chain = PrivateChain::start_live(None).await;
    let mut stack = live_stack(&chain, "3s").await;
    let (plan, recipient, _) = merchant_plan(&stack).await;
    // Blocks come when this test mines them (automine, then manual).
    let miner = async {
        loop {
            chain.mine(1).await;
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    };
    let setup = async {
        let (session, buyer) = subscribe(&stack, plan, 10).await;
        (subscription_of(&stack, &session).await, buyer)
    };
    let (sub, buyer) = tokio::select! {
        done = setup => done,
        _ = miner => unreachable!(),
    };
    let id = sub["id"].as_str().unwrap().to_owned();
    chain.call("evm_setAutomine", json!([false])).await;

    // The renewal is sent: the node holds it unmined. The worker dies, the node drops it.
    let sent = poll(Duration::from_secs(30), || async {
        let status = chain.call("txpool_status", json!([])).await;
        (status["pending"].as_str() != Some("0x0")).then_some(())
    })
    .await;
    assert!(sent.is_some(), "the keeper never sent the renewal");
    stack.kill_worker();
    chain.call("anvil_dropAllTransactions", json!([])).await;

    // A worker comes back: the stored charge is broadcast again (after 30 s without a
    // receipt), mined, and recorded once.
    stack.start_worker();
    let mining = async {
        loop {
            chain.mine(1).await;
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    };
    let charged = async {
        poll(Duration::from_secs(60), || async {
            let p = list(
                &stack,
                &format!("/api/v1/payments?subscription={id}&status=confirmed"),
            )
            .await;
            (p.len() >= 2).then_some(p)
        })
        .await
    };
    let payments = tokio::select! {
        p = charged => p.expect("the dropped renewal was sent again and recorded"),
        _ = mining => unreachable!(),
    };
    assert_eq!(payments.len(), 2, "{payments:?}");
    assert_eq!(
        usdc_balance(&buyer, &stack.chain, &recipient).await,
        2 * 2_475_000,
        "each period once, on chain"
    );
}
