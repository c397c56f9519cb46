//! One-signature payments as a wallet makes them (D23): a payer holding USDC and no ETH
//! signs the typed data the hosted page hands out, as `eth_signTypedData_v4` would.

use std::sync::Arc;

use serde_json::{json, Value};
use stablepay_domain::rules::eip191;
use stablepay_domain::rules::eip3009::ReceiveAuthorization;
use stablepay_domain::Address;
use stablepay_evm::bindings::test_token::TestToken;

use crate::{funded_buyer, Client, Stack};

/// Signs the typed data the service handed out, as a wallet's `eth_signTypedData_v4`
/// would (the digest is rebuilt from the JSON alone).
pub fn sign_typed_data(typed: &Value, key: &[u8; 32]) -> String {
    let (domain, authorization) = ReceiveAuthorization::from_typed_data(typed).unwrap();
    eip191::sign_hash(&authorization.digest(&domain), key)
        .unwrap()
        .to_hex()
}

/// A fresh payer holding `micros` of USDC and no ETH (its key and address), and the funded
/// account that minted it.
pub async fn payer_without_eth(stack: &Stack, micros: u64) -> (Arc<Client>, [u8; 32], Address) {
    payer_without_eth_in(stack, &stack.chain.usdc, micros).await
}

/// The same, holding `micros` of `token` (a dev token, whose mint is public).
pub async fn payer_without_eth_in(
    stack: &Stack,
    token: &str,
    micros: u64,
) -> (Arc<Client>, [u8; 32], Address) {
    let minter = funded_buyer(&stack.chain).await;
    let payer_key: [u8; 32] = rand::random();
    let payer = eip191::address_of_private_key(&payer_key).unwrap();
    TestToken::new(
        token.parse::<ethers::types::Address>().unwrap(),
        minter.clone(),
    )
    .mint(payer.to_string().parse().unwrap(), micros.into())
    .send()
    .await
    .unwrap()
    .await
    .unwrap();
    (minter, payer_key, payer)
}

/// Asks the hosted page for `session`'s authorization and posts it signed with `key`, as
/// the page does: (status, body; `tx_hash` once relayed).
pub async fn pay_with_signature(
    stack: &Stack,
    session: &str,
    key: &[u8; 32],
    payer: Address,
) -> (u16, Value) {
    let res = post_signed_authorization(stack, session, key, payer).await;
    (
        res.status().as_u16(),
        res.json().await.unwrap_or(Value::Null),
    )
}

/// GET /pay/:session/authorization for `payer`: what the hosted page asks a payer to sign.
pub async fn authorization(stack: &Stack, session: &str, payer: &str) -> reqwest::Response {
    stack
        .http
        .get(format!(
            "{}/pay/{session}/authorization?payer={payer}",
            stack.api
        ))
        .send()
        .await
        .unwrap()
}

/// The same, returning the hosted page's whole response.
pub async fn post_signed_authorization(
    stack: &Stack,
    session: &str,
    key: &[u8; 32],
    payer: Address,
) -> reqwest::Response {
    let pay = format!("{}/pay/{session}/authorization", stack.api);
    let auth: Value = authorization(stack, session, &payer.to_string())
        .await
        .json()
        .await
        .unwrap();
    let typed = &auth["typed_data"];
    stack
        .http
        .post(&pay)
        .json(&json!({
            "payer": payer.to_string(),
            "valid_before": typed["message"]["validBefore"],
            "signature": sign_typed_data(typed, key),
        }))
        .send()
        .await
        .unwrap()
}
