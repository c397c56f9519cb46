//! EURC, the third token (D34), on every way to pay on the shared chain at a depth of 2:
//! the router (approve + pay) with the split exact on chain and a refund, one signature
//! relayed for a payer without ETH, a plain transfer to the deposit address, and an agent
//! with the official x402 SDK. Each test runs its own stack.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use ethers::providers::Middleware;
use serde_json::{json, Value};
use stablepay_e2e::one_signature::{authorization, pay_with_signature, payer_without_eth_in};
use stablepay_e2e::x402::{sdk_pays, x402_session_in};
use stablepay_e2e::*;

/// A payment session of `amount` EURC; checks it names the dev EURC.
async fn eurc_session(stack: &Stack, amount: &str) -> Value {
    let (status, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "Croissants", "amount": amount, "currency": "EURC" }),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    assert_eq!(session["currency"], "EURC");
    assert_eq!(
        session["token_address"].as_str().unwrap().to_lowercase(),
        stack.chain.eurc.to_lowercase()
    );
    session
}

fn id_of(session: &Value) -> String {
    session["id"].as_str().unwrap().to_owned()
}

async fn completed(stack: &Stack, id: &str) -> Value {
    let done = stack
        .wait_for_session(id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    done
}

#[tokio::test(flavor = "multi_thread")]
async fn a_eurc_session_settles_by_the_router_split_exact_and_is_refunded_in_eurc() {
    let stack = Stack::start().await;
    let (recipient, merchant_key) = stack.fresh_verified_wallet().await;
    let session = eurc_session(&stack, "12.5").await;
    let id = id_of(&session);
    let (status, intent) = stack.intent(&id).await;
    assert_eq!(status, 200, "{intent}");
    assert_eq!(
        intent["token"].as_str().unwrap().to_lowercase(),
        stack.chain.eurc.to_lowercase()
    );
    let buyer = funded_buyer(&stack.chain).await;
    let payer = format!("{:#x}", buyer.address());
    mint(&buyer, &stack.chain.eurc, &payer, 50_000_000).await;
    let eurc = stack.chain.eurc.clone();
    let before = (
        token_balance(&buyer, &eurc, &recipient).await,
        token_balance(&buyer, &eurc, &stack.chain.treasury).await,
    );
    let tx = pay_intent(&buyer, &intent).await;
    stack.confirm(&id, &tx).await;
    completed(&stack, &id).await;

    let payments = stack.payments_of(&id).await;
    assert_eq!(payments.len(), 1, "{payments:?}");
    let payment = &payments[0];
    assert_eq!(payment["currency"], "EURC");
    let fee = stablepay_domain::parse_signed_micros(payment["fee_amount"].as_str().unwrap())
        .unwrap()
        .unsigned_abs();
    let net = stablepay_domain::parse_signed_micros(payment["merchant_amount"].as_str().unwrap())
        .unwrap()
        .unsigned_abs();
    assert_eq!(fee + net, 12_500_000, "{payment}");
    assert!(fee > 0, "{payment}");
    // The chain moved exactly the books' split, in EURC.
    assert_eq!(
        token_balance(&buyer, &eurc, &recipient).await - before.0,
        u128::from(net)
    );
    // The treasury is shared with the other tests on this chain, which pay EURC fees into
    // it concurrently: it got at least this payment's fee (the exact split is the buyer's
    // 12.5, checked below, less the recipient's net, checked above).
    assert!(
        token_balance(&buyer, &eurc, &stack.chain.treasury).await - before.1 >= u128::from(fee)
    );
    assert_eq!(
        token_balance(&buyer, &eurc, &payer).await,
        50_000_000 - 12_500_000
    );

    // A refund in EURC is recorded; the same value in USDC is not a refund of it.
    let pay_id = payment["id"].as_str().unwrap();
    let merchant = client_for(&stack.chain, &merchant_key).await;
    mint(&merchant, &stack.chain.usdc, &recipient, 5_000_000).await;
    let wrong = transfer(&merchant, &stack.chain.usdc, &payer, 5_000_000).await;
    let (status, err) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": wrong }),
        )
        .await;
    assert_eq!(
        (status, err["error"]["details"][0]["field"].as_str()),
        (400, Some("tx_hash")),
        "{err}"
    );
    let tx = transfer(&merchant, &eurc, &payer, 5_000_000).await;
    let (status, refund) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": tx }),
        )
        .await;
    assert_eq!(status, 201, "{refund}");
    assert_eq!(
        (refund["currency"].as_str(), refund["amount"].as_str()),
        (Some("EURC"), Some("5"))
    );
    let p = stack.get(&format!("/api/v1/payments/{pay_id}")).await;
    assert_eq!(p["refunded_amount"], "5");
}

#[tokio::test(flavor = "multi_thread")]
async fn eurc_is_paid_by_one_signature_without_eth_and_by_a_deposit() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;

    // One signature: the payer holds EURC and no ETH; the relayer sends it.
    let signed = id_of(&eurc_session(&stack, "7.25").await);
    let (minter, payer_key, payer) =
        payer_without_eth_in(&stack, &stack.chain.eurc, 10_000_000).await;
    let auth: Value = authorization(&stack, &signed, &payer.to_string())
        .await
        .json()
        .await
        .unwrap();
    // Signed under EURC's own EIP-712 domain, for the gross in EURC.
    let domain = &auth["typed_data"]["domain"];
    assert_eq!(
        (domain["name"].as_str(), domain["version"].as_str()),
        (Some("EURC"), Some("2"))
    );
    assert_eq!(
        domain["verifyingContract"].as_str().unwrap().to_lowercase(),
        stack.chain.eurc.to_lowercase()
    );
    assert_eq!(auth["typed_data"]["message"]["value"], "7250000");
    let (status, sent) = pay_with_signature(&stack, &signed, &payer_key, payer).await;
    assert_eq!(status, 202, "{sent}");
    completed(&stack, &signed).await;
    let payments = stack.payments_of(&signed).await;
    assert_eq!(
        (
            payments[0]["currency"].as_str(),
            payments[0]["amount"].as_str()
        ),
        (Some("EURC"), Some("7.25"))
    );
    let who = payer.to_string();
    assert_eq!(
        token_balance(&minter, &stack.chain.eurc, &who).await,
        2_750_000
    );
    let eth = minter
        .get_balance(who.parse::<ethers::types::Address>().unwrap(), None)
        .await
        .unwrap();
    assert!(eth.is_zero(), "the payer spent no ETH");

    // A plain EURC transfer to the deposit address.
    let session = eurc_session(&stack, "3").await;
    let deposit = id_of(&session);
    let to = session["deposit_address"].as_str().unwrap();
    let buyer = funded_buyer(&stack.chain).await;
    let from = format!("{:#x}", buyer.address());
    mint(&buyer, &stack.chain.eurc, &from, 3_000_000).await;
    transfer(&buyer, &stack.chain.eurc, to, 3_000_000).await;
    let done = completed(&stack, &deposit).await;
    assert_eq!(done["amount_received"], "3");
    let payments = stack.payments_of(&deposit).await;
    assert_eq!(payments.len(), 1, "{payments:?}");
    assert_eq!(
        (
            payments[0]["currency"].as_str(),
            payments[0]["amount"].as_str()
        ),
        (Some("EURC"), Some("3"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_pays_a_eurc_session_with_the_official_x402_sdk() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let (id, url) = x402_session_in(&stack, "EURC").await;
    let (status, required, _) =
        stablepay_e2e::x402::x402_exchange(stack.http.clone(), url.clone(), None).await;
    assert_eq!(status, 402);
    let asked = &required["accepts"][0];
    assert_eq!(
        asked["asset"].as_str().unwrap().to_lowercase(),
        stack.chain.eurc.to_lowercase()
    );
    assert_eq!(asked["extra"], json!({ "name": "EURC", "version": "2" }));

    let (minter, payer_key, payer) =
        payer_without_eth_in(&stack, &stack.chain.eurc, 20_000_000).await;
    let paid = sdk_pays(&url, &payer_key).await;
    assert_eq!(paid["status"], 200, "{paid}");
    assert_eq!(paid["payment_response"]["success"], true, "{paid}");
    let done = completed(&stack, &id).await;
    assert_eq!(done["amount_received"], "12.5");
    assert_eq!(
        token_balance(&minter, &stack.chain.eurc, &payer.to_string()).await,
        7_500_000
    );
}
