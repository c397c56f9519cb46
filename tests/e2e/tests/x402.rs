//! Agents pay checkout sessions by x402 (D29) with the official Python SDK: a payer with
//! USDC and 0 ETH, the relayer sending its `transferWithAuthorization` to the session's
//! deposit address, the session completing once by D24's rules. Replays, second payments,
//! wrong amounts and unfunded payers send nothing; two api processes never both settle. A
//! smart wallet pays with its owner's ERC-1271 signature.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use base64::Engine;
use ethers::providers::Middleware;
use serde_json::{json, Value};
use stablepay_domain::rules::eip191;
use stablepay_domain::rules::x402::{PaymentPayload, Requirements};
use stablepay_domain::{Address, Timestamp};
use stablepay_e2e::one_signature::payer_without_eth;
use stablepay_e2e::x402::{sdk_facilitates, sdk_pays, sdk_signs, x402_exchange, x402_session};
use stablepay_e2e::*;

/// GET `url` with `signature` (if any): (status, decoded PAYMENT-REQUIRED or
/// PAYMENT-RESPONSE, body).
async fn get_x402(stack: &Stack, url: &str, signature: Option<&str>) -> (u16, Value, Value) {
    x402_exchange(
        stack.http.clone(),
        url.to_owned(),
        signature.map(str::to_owned),
    )
    .await
}

/// How many transactions the relayer sent for `session`.
async fn relays_of(stack: &Stack, session: &str) -> usize {
    let uuid = stablepay_domain::CheckoutSessionId::parse(session)
        .unwrap()
        .uuid();
    stablepay_postgres::testing::query_strings(
        &stack.store,
        &format!(
            "SELECT tx_hash AS value FROM relayed_transactions WHERE checkout_session_id = '{uuid}'"
        ),
    )
    .await
    .unwrap()
    .len()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_with_no_eth_pays_a_session_once_with_the_official_sdk() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let (id, url) = x402_session(&stack).await;

    // The hosted page points agents at it.
    let page = stack
        .http
        .get(format!("{}/pay/{id}", stack.api))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains(&format!("href=\"{url}\"")), "{page}");

    // Unpaid: 402 with what the session asks.
    let (status, required, _) = get_x402(&stack, &url, None).await;
    assert_eq!(status, 402);
    assert_eq!(required["x402Version"], 2);
    let asked = &required["accepts"][0];
    assert_eq!(asked["scheme"], "exact");
    assert_eq!(asked["network"], "eip155:84532");
    assert_eq!(asked["amount"], "12500000");
    assert_eq!(
        asked["asset"].as_str().unwrap().to_lowercase(),
        stack.chain.usdc.to_lowercase()
    );
    assert_eq!(
        asked["extra"],
        json!({ "name": "USD Coin", "version": "2" })
    );
    assert!(asked["maxTimeoutSeconds"].as_u64().unwrap() <= 600);
    let session = stack.get(&format!("/api/v1/checkout/sessions/{id}")).await;
    assert_eq!(asked["payTo"], session["deposit_address"]);

    let (minter, payer_key, payer) = payer_without_eth(&stack, 50_000_000).await;
    // Signed for gross ± 1 by the SDK itself: refused, nothing sent.
    for delta in [-1, 1] {
        let wrong = sdk_signs(&url, &payer_key, delta).await;
        let (status, again, _) = get_x402(&stack, &url, Some(&wrong)).await;
        assert_eq!(status, 402);
        assert_eq!(
            again["error"],
            "invalid_exact_evm_payload_authorization_value_mismatch"
        );
        assert_eq!(again["accepts"][0]["amount"], "12500000");
    }
    assert_eq!(relays_of(&stack, &id).await, 0);

    // Signed now, sent once the session is paid: a second payment of the same session.
    let second = sdk_signs(&url, &payer_key, 0).await;
    let paid = sdk_pays(&url, &payer_key).await;
    assert_eq!(paid["status"], 200, "{paid}");
    let response = &paid["payment_response"];
    assert_eq!(response["success"], true, "{paid}");
    assert_eq!(response["network"], "eip155:84532");
    assert_eq!(
        response["payer"].as_str().unwrap().to_lowercase(),
        payer.to_string().to_lowercase()
    );
    let tx = response["transaction"].as_str().unwrap().to_owned();
    assert_eq!(paid["body"]["id"], id.as_str());

    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["tx_hash"], tx.as_str());
    assert_eq!(done["amount_received"], "12.5");
    assert!(done["x402_url"].is_null());
    let eth = minter
        .get_balance(
            payer.to_string().parse::<ethers::types::Address>().unwrap(),
            None,
        )
        .await
        .unwrap();
    assert!(eth.is_zero(), "the agent spent no ETH");
    assert_eq!(
        usdc_balance(&minter, &stack.chain, &payer.to_string()).await,
        37_500_000
    );

    // The second payment, now and again: nothing is sent, no 5xx, the session stays as
    // it was; a completed session asks for nothing more.
    for _ in 0..2 {
        let (status, required, _) = get_x402(&stack, &url, Some(&second)).await;
        assert_eq!(status, 402);
        assert_eq!(required["error"], "settlement_in_progress");
        assert_eq!(required["accepts"], json!([]));
    }
    wait_for_blocks(&minter, 3).await;
    assert_eq!(relays_of(&stack, &id).await, 1);
    let payments = stack.payments_of(&id).await;
    assert_eq!(payments.len(), 1, "{payments:?}");
    assert_eq!(payments[0]["amount"], "12.5");
    assert_eq!(payments[0]["tx_hash"], tx.as_str());
    assert_eq!(
        usdc_balance(&minter, &stack.chain, &payer.to_string()).await,
        37_500_000
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unfunded_agent_and_a_replayed_signature_send_nothing_twice() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let (id, url) = x402_session(&stack).await;

    // No USDC: refused before anything is sent.
    let broke: [u8; 32] = rand::random();
    let signature = sdk_signs(&url, &broke, 0).await;
    let (status, required, _) = get_x402(&stack, &url, Some(&signature)).await;
    assert_eq!(status, 402);
    assert_eq!(required["error"], "invalid_exact_evm_insufficient_balance");
    assert_eq!(required["accepts"][0]["amount"], "12500000");
    assert_eq!(relays_of(&stack, &id).await, 0);
    // Garbage in the header: 402 with fresh requirements, never a 5xx.
    let (status, required, _) = get_x402(&stack, &url, Some("not base64 !")).await;
    assert_eq!(
        (status, &required["error"]),
        (402, &json!("invalid_payload"))
    );

    // A payment, then the very same header again: the same transaction, one transfer.
    let (_, payer_key, _) = payer_without_eth(&stack, 20_000_000).await;
    let signature = sdk_signs(&url, &payer_key, 0).await;
    let (status, first, _) = get_x402(&stack, &url, Some(&signature)).await;
    assert_eq!(status, 200, "{first}");
    let (status, replayed, _) = get_x402(&stack, &url, Some(&signature)).await;
    assert_eq!(status, 200, "{replayed}");
    assert_eq!(replayed["transaction"], first["transaction"]);
    assert_eq!(relays_of(&stack, &id).await, 1);
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(stack.payments_of(&id).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_signatures_at_once_on_two_api_processes_settle_once() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let (id, url) = x402_session(&stack).await;
    let (_second_api, other) = stack.spawn_api(&[]).await;
    let other_url = url.replace(&stack.api, &other);

    let (minter, key_a, _) = payer_without_eth(&stack, 20_000_000).await;
    let (_, key_b, _) = payer_without_eth(&stack, 20_000_000).await;
    let (a, b) = tokio::join!(sdk_signs(&url, &key_a, 0), sdk_signs(&url, &key_b, 0));
    let (first, second) = tokio::join!(
        get_x402(&stack, &url, Some(&a)),
        get_x402(&stack, &other_url, Some(&b)),
    );
    let statuses = [first.0, second.0];
    assert!(
        statuses.contains(&200) && statuses.contains(&402),
        "exactly one settles: {first:?} {second:?}"
    );
    let refused = if first.0 == 402 { &first } else { &second };
    assert!(
        ["settlement_in_progress", "session_not_open"]
            .contains(&refused.1["error"].as_str().unwrap_or_default()),
        "{refused:?}"
    );
    assert_eq!(relays_of(&stack, &id).await, 1);
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    wait_for_blocks(&minter, 3).await;
    assert_eq!(stack.payments_of(&id).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merchant_verifies_and_settles_through_the_facilitator_with_the_sdk_client() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let (id, url) = x402_session(&stack).await;
    let base = format!("{}/api/v1/x402", stack.api);

    // No key: the error envelope.
    for res in [
        stack
            .http
            .get(format!("{base}/supported"))
            .send()
            .await
            .unwrap(),
        stack
            .http
            .post(format!("{base}/verify"))
            .json(&json!({}))
            .send()
            .await
            .unwrap(),
    ] {
        assert_eq!(res.status(), 401);
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"]["type"], "authentication_error", "{body}");
    }
    let supported = sdk_facilitates(&base, &stack.key, "supported", "", None).await;
    assert_eq!(supported["kinds"][0]["scheme"], "exact", "{supported}");
    assert_eq!(supported["kinds"][0]["network"], "eip155:84532");
    assert_eq!(supported["kinds"][0]["x402Version"], 2);

    let (minter, payer_key, payer) = payer_without_eth(&stack, 20_000_000).await;
    let header = sdk_signs(&url, &payer_key, 0).await;
    let verdict = sdk_facilitates(&base, &stack.key, "verify", &header, None).await;
    assert_eq!(verdict["isValid"], true, "{verdict}");
    assert_eq!(
        verdict["payer"].as_str().unwrap().to_lowercase(),
        payer.to_string().to_lowercase()
    );
    let tampered = sdk_facilitates(&base, &stack.key, "verify-tampered", &header, None).await;
    assert_eq!(tampered["isValid"], false, "{tampered}");
    assert_eq!(
        tampered["invalidReason"],
        "invalid_exact_evm_payload_authorization_value_mismatch"
    );
    // A payTo that is none of the key's open deposit addresses: refused, nothing sent.
    let elsewhere = format!("0x{}", "12".repeat(20));
    let refused = sdk_facilitates(&base, &stack.key, "settle", &header, Some(&elsewhere)).await;
    assert_eq!(refused["success"], false, "{refused}");
    assert_eq!(
        refused["errorReason"],
        "invalid_exact_evm_payload_recipient_mismatch"
    );
    assert_eq!(relays_of(&stack, &id).await, 0);

    let settled = sdk_facilitates(&base, &stack.key, "settle", &header, None).await;
    assert_eq!(settled["success"], true, "{settled}");
    assert_eq!(settled["network"], "eip155:84532");
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["tx_hash"], settled["transaction"]);
    wait_for_blocks(&minter, 3).await;
    assert_eq!(relays_of(&stack, &id).await, 1);
    assert_eq!(stack.payments_of(&id).await.len(), 1);
}

/// `PAYMENT-SIGNATURE` for what `asked` says, from `from`, signed by `key`: the payer's own
/// key, or for a contract payer its owner's (ERC-1271). Built as the SDK's exact client
/// builds it, which only signs for an EOA of its own.
fn signed_for(asked: &Requirements, from: Address, key: &[u8; 32]) -> String {
    let domain = asked.token_domain().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let now = Timestamp::from_unix_seconds(i64::try_from(now).unwrap()).unwrap();
    let authorization = asked.authorization(from, now, rand::random()).unwrap();
    let signature = eip191::sign_hash(&authorization.digest(&domain), key).unwrap();
    let payment = PaymentPayload::exact(asked.clone(), &authorization, &signature);
    base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(&payment).unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_smart_wallet_pays_with_its_owners_erc1271_signature_and_a_strangers_is_refused() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let (id, url) = x402_session(&stack).await;
    let (status, required, _) = get_x402(&stack, &url, None).await;
    assert_eq!(status, 402);
    let asked: Requirements = serde_json::from_value(required["accepts"][0].clone()).unwrap();
    let (wallet, owner_key) = smart_wallet(stack.chain.chain_id);
    let smart = Address::parse(&wallet.to_lowercase()).unwrap();
    let reader = funded_buyer(&stack.chain).await;
    let before = usdc_balance(&reader, &stack.chain, &smart.to_string()).await;

    // Signed for the wallet by someone who does not own it: the token's ERC-1271 check
    // (the simulation) refuses it, and nothing is sent.
    let stranger: [u8; 32] = rand::random();
    let forged = signed_for(&asked, smart, &stranger);
    let (status, again, _) = get_x402(&stack, &url, Some(&forged)).await;
    assert_eq!(status, 402, "{again}");
    assert_eq!(
        again["error"],
        "invalid_exact_evm_transaction_simulation_failed"
    );
    assert_eq!(relays_of(&stack, &id).await, 0);

    // Signed by its owner: the relayer sends it once, from the wallet to the deposit
    // address, and the session completes with the wallet as payer.
    let signature = signed_for(&asked, smart, &owner_key);
    let (status, response, _) = get_x402(&stack, &url, Some(&signature)).await;
    assert_eq!(status, 200, "{response}");
    assert_eq!(response["success"], true);
    assert_eq!(
        response["payer"].as_str().unwrap().to_lowercase(),
        smart.to_string().to_lowercase()
    );
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["tx_hash"], response["transaction"]);
    assert_eq!(relays_of(&stack, &id).await, 1);
    assert_eq!(stack.payments_of(&id).await.len(), 1);
    assert_eq!(
        before - usdc_balance(&reader, &stack.chain, &smart.to_string()).await,
        12_500_000
    );
}
