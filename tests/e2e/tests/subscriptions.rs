//! Subscriptions end to end on a live chain (8453) of each test's own: subscription
//! checkouts paid as a buyer would, renewals, dunning to `past_due` and back or to
//! `expired`, and on-chain and portal cancels (EOA and ERC-1271).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use ethers::signers::Signer;
use ethers::types::U256;
use serde_json::json;
use stablepay_domain::rules::eip191;
use stablepay_e2e::subscriptions::*;
use stablepay_e2e::{client_for, funded_buyer, poll, usdc_balance, PrivateChain};
use stablepay_evm::bindings::subscription_manager::SubscriptionManager;

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

    let page = reqwest::get(format!("{}/portal/subscriptions/{kept_id}", stack.api))
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("Pro plan"));
    let message = portal_cancel_message(&stack, &kept_id).await;
    assert!(message.contains(&kept_id) && message.contains("8453"));
    assert!(message
        .to_lowercase()
        .contains(&format!("{:#x}", buyer.address())));
    // Any other signer is refused on `signature`.
    let stranger = eip191::sign(message.as_bytes(), &[0x42; 32])
        .unwrap()
        .to_hex();
    let (status, body) = portal_cancel(&stack, &kept_id, &stranger).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["details"][0]["field"], "signature");
    // The subscriber's signature cancels; a repeat is 200 with the same state.
    let sig = buyer
        .signer()
        .sign_message(message.as_bytes())
        .await
        .unwrap()
        .to_string();
    for _ in 0..2 {
        let (status, state) = portal_cancel(&stack, &kept_id, &format!("0x{sig}")).await;
        assert_eq!(status, 200);
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_contract_wallet_subscribes_and_cancels_in_the_portal_with_erc1271() {
    use stablepay_evm::bindings::test_smart_wallet::TestSmartWallet;
    let chain = PrivateChain::start_live(Some(1)).await;
    let stack = live_stack(&chain, "3s").await;
    let (plan, _, _) = merchant_plan(&stack).await;
    let (wallet_address, owner_key) = stablepay_e2e::smart_wallet(8453);
    let owner = client_for(&stack.chain, &owner_key).await;
    let smart = TestSmartWallet::new(
        wallet_address.parse::<ethers::types::Address>().unwrap(),
        owner.clone(),
    );

    // A display price the plan's charges do not match is refused (D34).
    let (status, refused) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "subscription", "title": "Team plan", "chain_plan_id": plan.to_string(),
                    "price": { "amount": "3.00", "currency": "USD" } }),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"]["details"][0]["field"], "price");

    // The contract wallet approves and subscribes through `execute`, signed by its owner,
    // on a checkout showing the plan's price in dollars (quoted on the chain's USDC/USD
    // feed, never lapsing).
    let (status, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "subscription", "title": "Team plan", "chain_plan_id": plan.to_string(),
                    "price": { "amount": "2.50", "currency": "USD" } }),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    assert_eq!(
        session["price"],
        json!({ "amount": "2.5", "currency": "USD" })
    );
    assert_eq!(session["quote"]["pair"], "USDC/USD");
    assert!(session["quote"]["expires_at"].is_null(), "{session}");
    assert_eq!(session["amount"], "2.5");
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
    let message = portal_cancel_message(&stack, id).await;
    let sig = eip191::sign(message.as_bytes(), &owner_key)
        .unwrap()
        .to_hex();
    let (status, state) = portal_cancel(&stack, id, &sig).await;
    assert_eq!(status, 200);
    assert_eq!(state["status"], "canceled");
    assert_eq!(stack.events_of_type("subscription.canceled").await.len(), 1);
}
