//! A payer holding USDC and no ETH pays a checkout with one EIP-3009 signature through the
//! hosted endpoints; the service's relayer sends it and the session settles exactly once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use ethers::providers::Middleware;
use serde_json::{json, Value};
use stablepay_domain::rules::eip191;
use stablepay_domain::Address;
use stablepay_e2e::one_signature::{payer_without_eth, post_signed_authorization, sign_typed_data};
use stablepay_e2e::*;

fn addr(v: &Value) -> Address {
    Address::parse(&v.as_str().unwrap().to_lowercase()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_payer_without_eth_pays_with_one_signature_exactly_once() {
    let stack = Stack::start().await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    let (status, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "Beans", "amount": "12.5" }),
        )
        .await;
    assert_eq!(status, 201);
    let id = session["id"].as_str().unwrap();
    let (minter, payer_key, payer) = payer_without_eth(&stack, 50_000_000).await;
    let payer_eth = || async {
        minter
            .get_balance(
                payer.to_string().parse::<ethers::types::Address>().unwrap(),
                None,
            )
            .await
            .unwrap()
    };
    assert!(payer_eth().await.is_zero());

    let pay = format!("{}/pay/{id}/authorization", stack.api);
    let res = stack
        .http
        .get(format!("{pay}?payer={payer}"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let auth: Value = res.json().await.unwrap();
    assert_eq!(auth["chain_id"], 84532);
    assert_eq!(
        auth["contract"].as_str().unwrap().to_lowercase(),
        stack.chain.router.to_lowercase()
    );
    let typed = &auth["typed_data"];
    assert_eq!(typed["primaryType"], "ReceiveWithAuthorization");
    assert_eq!(typed["message"]["value"], "12500000");
    assert_eq!(typed["message"]["from"], payer.to_string());
    let valid_before = typed["message"]["validBefore"].clone();
    let submit = |signature: String| {
        let (http, pay) = (stack.http.clone(), pay.clone());
        let body = json!({ "payer": payer.to_string(), "valid_before": valid_before, "signature": signature });
        async move {
            let res = http.post(pay).json(&body).send().await.unwrap();
            (res.status().as_u16(), res.json::<Value>().await.unwrap())
        }
    };

    // Another signer: 400 on `signature`, nothing sent.
    let (status, err) = submit(sign_typed_data(typed, &[0x42; 32])).await;
    assert_eq!(status, 400, "{err}");
    assert_eq!(err["error"]["details"][0]["field"], "signature");
    // A malformed payer: 400 on `payer`.
    let res = stack
        .http
        .get(format!("{pay}?payer=0x12"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);

    let signature = sign_typed_data(typed, &payer_key);
    let (status, sent) = submit(signature.clone()).await;
    assert_eq!(status, 202, "{sent}");
    assert_eq!(sent["status"], "submitted");
    let tx = sent["tx_hash"].as_str().unwrap().to_owned();
    // A repeat (a double click, a retry): the same transaction, nothing new sent.
    let (status, again) = submit(signature).await;
    assert_eq!(
        (status, again["tx_hash"].as_str()),
        (200, Some(tx.as_str()))
    );
    // And no transaction intent is handed out for it any more.
    let res = stack
        .http
        .get(format!("{}/pay/{id}/intent", stack.api))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 409);

    // The page confirms it as any payment; the watcher races it.
    let mut settled = Value::Null;
    for _ in 0..60 {
        let confirm: Value = stack
            .http
            .post(format!("{}/pay/{id}/confirm", stack.api))
            .json(&json!({ "tx_hash": tx }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        settled = confirm["settlement"].clone();
        if settled == "confirmed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(settled, "confirmed");
    let done = stack
        .wait_for_session(id, "completed", Duration::from_secs(15))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(addr(&done["wallet_address"]), payer);
    assert_eq!(done["tx_hash"], tx);
    assert!(payer_eth().await.is_zero(), "the payer spent no ETH");
    assert_eq!(
        usdc_balance(&minter, &stack.chain, &recipient).await,
        12_375_000
    );
    assert_eq!(
        usdc_balance(&minter, &stack.chain, &payer.to_string()).await,
        37_500_000
    );
    let payments = stack
        .get(&format!("/api/v1/payments?checkout_session={id}"))
        .await;
    assert_eq!(
        payments["data"].as_array().unwrap().len(),
        1,
        "exactly one payment"
    );
    // Exactly one of each event once two more blocks have passed.
    wait_for_blocks(&minter, 2).await;
    let events_table = stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT type AS value FROM events ORDER BY type",
    )
    .await
    .unwrap();
    assert_eq!(
        events_table,
        ["checkout.session.completed", "payment.succeeded"],
        "each event fired once"
    );
    // The relayed transaction is on record, and the worker records what it cost.
    let mut relayed = Vec::new();
    for _ in 0..40 {
        relayed = stablepay_postgres::testing::query_strings(
            &stack.store,
            "SELECT tx_hash || ' ' || status || ' ' || coalesce(gas_used, 0) || ' ' || \
             coalesce(gas_cost_wei, 0) AS value FROM relayed_transactions",
        )
        .await
        .unwrap();
        if relayed.iter().all(|r| r.contains(" mined ")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let [record] = relayed.as_slice() else {
        panic!("one relayed transaction: {relayed:?}")
    };
    let fields: Vec<&str> = record.split(' ').collect();
    assert_eq!(&fields[..2], [tx.as_str(), "mined"], "{record}");
    let gas: u64 = fields[2].parse().unwrap();
    let cost: u128 = fields[3].parse().unwrap();
    assert!((80_000..250_000).contains(&gas), "gas used {gas}");
    assert!(cost >= u128::from(gas), "cost {cost} wei for {gas} gas");
}

#[tokio::test(flavor = "multi_thread")]
async fn usdt_has_no_one_signature_path() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let (status, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "T", "amount": "1", "currency": "USDT" }),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap();
    let payer = eip191::address_of_private_key(&[0x42; 32]).unwrap();
    let res = stack
        .http
        .get(format!(
            "{}/pay/{id}/authorization?payer={payer}",
            stack.api
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let err: Value = res.json().await.unwrap();
    assert_eq!(err["error"]["details"][0]["field"], "currency", "{err}");
    // The transaction path stays open for it.
    let res = stack
        .http
        .get(format!("{}/pay/{id}/intent", stack.api))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

/// A relayer under its ETH floor takes no work: the page offers only a transaction, and a
/// signed authorization answers 503 with `Retry-After`, nothing sent.
#[tokio::test(flavor = "multi_thread")]
async fn a_relayer_under_its_floor_sends_nothing_and_the_page_offers_a_transaction() {
    let stack = Stack::start_with(StackOptions {
        env: vec![(
            "STABLEPAY_RELAYER_MIN_BALANCE_WEI".into(),
            "1000000000000000000000000000".into(),
        )],
        ..StackOptions::default()
    })
    .await;
    stack.fresh_verified_wallet().await;
    let (status, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "Beans", "amount": "2" }),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap();
    let page = stack
        .http
        .get(format!("{}/pay/{id}", stack.api))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("id=\"pay\""),
        "the transaction button is there"
    );
    assert!(
        !page.contains("id=\"pay-signature\""),
        "no one-signature button under the floor"
    );

    let (_, payer_key, payer) = payer_without_eth(&stack, 5_000_000).await;
    let res = post_signed_authorization(&stack, id, &payer_key, payer).await;
    assert_eq!(res.status(), 503);
    assert_eq!(res.headers()["retry-after"], "30");
    let err: Value = res.json().await.unwrap();
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("pay with a transaction"),
        "{err}"
    );
    let relayed = stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT tx_hash AS value FROM relayed_transactions",
    )
    .await
    .unwrap();
    assert!(relayed.is_empty(), "nothing was relayed: {relayed:?}");
}
