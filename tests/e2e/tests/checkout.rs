//! A buyer pays a checkout session on anvil through the hosted intent, exactly as a wallet
//! would; the service settles it once, even with the fast path and the watcher racing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::json;
use stablepay_e2e::*;

#[tokio::test(flavor = "multi_thread")]
async fn a_buyer_pays_and_the_session_settles_exactly_once() {
    let stack = Stack::start().await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    let (_, endpoint) = stack
        .post(
            "/api/v1/webhook_endpoints",
            json!({ "url": "http://localhost:9/unused" }),
        )
        .await;
    let (status, session) = stack
        .post("/api/v1/checkout/sessions", json!({ "mode": "payment", "title": "Beans", "amount": "12.5", "customer_reference": "cust-9", "metadata": {"order": "77"} }))
        .await;
    assert_eq!(status, 201);
    let id = session["id"].as_str().unwrap();
    // Its deposit address (D24) is the one the chain's factory computes for its terms.
    assert_eq!(session["amount_received"], "0");
    let deposit = session["deposit_address"].as_str().unwrap();
    let buyer = funded_buyer(&stack.chain).await;
    let factory = stablepay_evm::bindings::deposit_factory::DepositFactory::new(
        stack
            .chain
            .deposit_factory
            .parse::<ethers::types::Address>()
            .unwrap(),
        buyer,
    );
    let on_chain = factory
        .deposit_address(stablepay_evm::bindings::deposit_factory::Deposit {
            ref_: stablepay_domain::rules::eip712::session_ref(&id.parse().unwrap()),
            token: stack.chain.usdc.parse().unwrap(),
            recipient: recipient.parse().unwrap(),
            fee_amount: 125_000u64.into(),
            fee_bps: 100u64.into(),
        })
        .call()
        .await
        .unwrap();
    assert_eq!(deposit, ethers::utils::to_checksum(&on_chain, None));

    // The hosted page's public endpoints.
    let page = stack
        .http
        .get(format!("{}/pay/{id}", stack.api))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("Beans"));
    let intent: serde_json::Value = stack
        .http
        .get(format!("{}/pay/{id}/intent", stack.api))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(intent["chain_id"], 84532);
    assert_eq!(intent["intent"]["net_amount"], "12375000");
    assert_eq!(intent["intent"]["fee_amount"], "125000");
    assert_eq!(intent["intent"]["recipient"].as_str().unwrap(), recipient);

    let buyer = funded_buyer(&stack.chain).await;
    let buyer_addr = format!("{:#x}", buyer.address());
    let treasury_before = usdc_balance(&buyer, &stack.chain, &stack.chain.treasury).await;
    let buyer_before = usdc_balance(&buyer, &stack.chain, &buyer_addr).await;
    let tx = pay_intent(&buyer, &intent).await;

    // Fast path (the watcher races it).
    let confirm: serde_json::Value = stack
        .http
        .post(format!("{}/pay/{id}/confirm", stack.api))
        .json(&json!({ "tx_hash": tx }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        ["confirmed", "pending"].contains(&confirm["settlement"].as_str().unwrap()),
        "{confirm}"
    );

    let done = stack
        .wait_for_session(id, "completed", Duration::from_secs(15))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(done["url"].is_null());
    assert_eq!(
        done["wallet_address"].as_str().unwrap().to_lowercase(),
        buyer_addr
    );
    assert_eq!(done["tx_hash"], tx);
    assert!(done["completed_at"].is_string());
    assert!(done["customer"].as_str().unwrap().starts_with("cus_"));

    // Balances moved exactly.
    assert_eq!(
        usdc_balance(&buyer, &stack.chain, &recipient).await,
        12_375_000
    );
    // The treasury is shared with the other tests on this chain, which pay fees into it
    // concurrently: it got at least this payment's fee (the exact split is the
    // buyer's 12.5 less the recipient's 12.375, both checked exactly).
    assert!(
        usdc_balance(&buyer, &stack.chain, &stack.chain.treasury).await - treasury_before
            >= 125_000
    );
    assert_eq!(
        buyer_before - usdc_balance(&buyer, &stack.chain, &buyer_addr).await,
        12_500_000
    );

    let payments = stack
        .get(&format!("/api/v1/payments?checkout_session={id}"))
        .await;
    let list = payments["data"].as_array().unwrap();
    assert_eq!(list.len(), 1, "exactly one payment");
    let p = &list[0];
    assert_eq!(
        (
            p["status"].as_str(),
            p["amount"].as_str(),
            p["fee_amount"].as_str(),
            p["merchant_amount"].as_str()
        ),
        (
            Some("confirmed"),
            Some("12.5"),
            Some("0.125"),
            Some("12.375")
        )
    );
    assert_eq!(
        (
            p["customer_reference"].as_str(),
            p["tx_hash"].as_str(),
            p["charge_type"].as_str()
        ),
        (Some("cust-9"), Some(tx.as_str()), Some("one_time"))
    );
    assert_eq!(p["customer"], done["customer"]);
    assert_eq!(p["metadata"], json!({"order": "77"}));

    // Exactly one of each event, routed to the endpoint, carrying the API shapes. They
    // commit in the settlement's transaction; two more blocks give a duplicate settlement
    // (watcher and confirm racing) the time to show itself.
    wait_for_blocks(&buyer, 2).await;
    let events = stack.get("/api/v1/webhook_events?limit=100").await;
    let events = events["data"].as_array().unwrap();
    let of = |t: &str| {
        events
            .iter()
            .filter(|e| e["type"] == t)
            .cloned()
            .collect::<Vec<_>>()
    };
    let completed = of("checkout.session.completed");
    let succeeded = of("payment.succeeded");
    assert_eq!((completed.len(), succeeded.len()), (1, 1), "{events:?}");
    assert_eq!(completed[0]["endpoint"], endpoint["id"]);
    assert_eq!(completed[0]["payload"]["data"]["object"]["id"], id);
    assert_eq!(
        completed[0]["payload"]["data"]["object"]["status"],
        "completed"
    );
    assert_eq!(succeeded[0]["payload"]["data"]["object"]["id"], p["id"]);
    assert_eq!(
        succeeded[0]["payload"]["data"]["object"]["status"],
        "confirmed"
    );

    // The intent is gone once the session is no longer open; confirming again is harmless.
    assert_eq!(
        stack
            .http
            .get(format!("{}/pay/{id}/intent", stack.api))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let again: serde_json::Value = stack
        .http
        .post(format!("{}/pay/{id}/confirm", stack.api))
        .json(&json!({ "tx_hash": tx }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(again["settlement"], "confirmed");
    assert_eq!(
        stack
            .get(&format!("/api/v1/payments?checkout_session={id}"))
            .await["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_payment_made_while_the_worker_is_down_settles_after_restart() {
    let mut stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let (_, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "Late", "amount": "3" }),
        )
        .await;
    let id = session["id"].as_str().unwrap().to_owned();
    let intent: serde_json::Value = stack
        .http
        .get(format!("{}/pay/{id}/intent", stack.api))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // Let the watcher store its cursor, then stop it.
    let chain = stablepay_domain::ChainId::from_id(stack.chain.chain_id).unwrap();
    let stored = poll(Duration::from_secs(20), || async {
        stablepay_domain::ports::SettlementStore::chain_cursor(&stack.store, chain)
            .await
            .unwrap()
    })
    .await;
    assert!(stored.is_some(), "the watcher never stored its cursor");
    stack.kill_worker();
    let buyer = funded_buyer(&stack.chain).await;
    pay_intent(&buyer, &intent).await;
    // Past the confirmation depth (2) and two blocks more, a running worker would have
    // settled it; none runs, and nobody confirmed.
    wait_for_blocks(&buyer, 4).await;
    assert_eq!(
        stack.get(&format!("/api/v1/checkout/sessions/{id}")).await["status"],
        "open",
        "nothing settles without a worker or a confirm"
    );
    stack.start_worker();
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_transaction_that_does_not_pay_the_session_is_rejected() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let (_, a) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "A", "amount": "1" }),
        )
        .await;
    let (_, b) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "B", "amount": "1" }),
        )
        .await;
    let (a, b) = (a["id"].as_str().unwrap(), b["id"].as_str().unwrap());
    let buyer = funded_buyer(&stack.chain).await;
    // A plain token transfer is not a router payment.
    let approve_tx = send(&buyer, &stack.chain.usdc, "0x095ea7b3000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000f4240").await;
    let (status, _, body) = stack.confirm(a, &approve_tx).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["details"][0]["field"], "tx_hash");
    // Paying session B and confirming it against A does not complete A.
    let intent: serde_json::Value = stack
        .http
        .get(format!("{}/pay/{b}/intent", stack.api))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let tx = pay_intent(&buyer, &intent).await;
    let wrong = stack
        .http
        .post(format!("{}/pay/{a}/confirm", stack.api))
        .json(&json!({ "tx_hash": tx }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        wrong.status(),
        400,
        "a payment of session B does not confirm session A"
    );
    assert_eq!(
        stack
            .wait_for_session(b, "completed", Duration::from_secs(15))
            .await["status"],
        "completed"
    );
    assert_eq!(
        stack.get(&format!("/api/v1/checkout/sessions/{a}")).await["status"],
        "open"
    );
    // Malformed and unknown inputs get the envelope.
    let r = stack
        .http
        .post(format!("{}/pay/{a}/confirm", stack.api))
        .json(&json!({ "tx_hash": "0x12" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(
        stack
            .http
            .get(format!("{}/pay/cs_nope/intent", stack.api))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
}
