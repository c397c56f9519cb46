//! The relayer pays gas only for what will succeed, and reverts pause it (D30): a contract
//! payer whose ERC-1271 check passes only with more gas than the relay gives is refused
//! before anything is sent (the simulation runs under the relay's own gas limit), and
//! reverted relays over the chain's budget pause relaying for every payer, with the
//! reason on the page, in the API and in the doctor.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use ethers::providers::Middleware;
use ethers::signers::LocalWallet;
use ethers::types::{Bytes, TransactionRequest, H256};
use serde_json::{json, Value};
use stablepay_domain::rules::eip191;
use stablepay_domain::Address;
use stablepay_e2e::one_signature::{
    pay_with_signature, payer_without_eth, post_signed_authorization,
};
use stablepay_e2e::relaying::*;
use stablepay_e2e::x402::{sdk_signs, x402_get, x402_session};
use stablepay_e2e::*;

/// The relay's gas limit for `payWithAuthorization` (D30) is 250,000; the wallet wants 4×.
const WALLET_MIN_GAS: u64 = 1_000_000;

/// Deploys `TestGasHungryWallet(owner, min_gas)` from the committed bytecode.
async fn gas_hungry_wallet(
    deployer: &std::sync::Arc<Client>,
    owner: Address,
    min_gas: u64,
) -> Address {
    let artifact: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../contracts/out/TestGasHungryWallet.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let mut code = hex::decode(
        artifact["bytecode"]
            .as_str()
            .unwrap()
            .trim_start_matches("0x"),
    )
    .unwrap();
    code.extend_from_slice(&[0u8; 12]);
    code.extend_from_slice(owner.as_bytes());
    code.extend_from_slice(&[0u8; 24]);
    code.extend_from_slice(&min_gas.to_be_bytes());
    let receipt = deployer
        .send_transaction(TransactionRequest::new().data(Bytes::from(code)), None)
        .await
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    Address::from_bytes(receipt.contract_address.expect("deployed").0)
}

/// `isValidSignature(hash, sig)` by `eth_call` with `gas`: the 4-byte answer, hex.
async fn check_with_gas(
    stack: &Stack,
    wallet: Address,
    hash: [u8; 32],
    sig: &[u8],
    gas: u64,
) -> String {
    let mut data = hex::decode("1626ba7e").unwrap();
    data.extend_from_slice(&hash);
    let mut offset = [0u8; 32];
    offset[31] = 0x40;
    data.extend_from_slice(&offset);
    let mut length = [0u8; 32];
    length[31] = sig.len() as u8;
    data.extend_from_slice(&length);
    data.extend_from_slice(sig);
    data.resize(data.len().div_ceil(32) * 32, 0);
    let call = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "eth_call",
        "params": [{
            "to": wallet.to_string(),
            "data": format!("0x{}", hex::encode(data)),
            "gas": format!("{gas:#x}"),
        }, "latest"],
    });
    let answer: Value = stack
        .http
        .post(&stack.chain.rpc)
        .json(&call)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let result = answer["result"].as_str().unwrap_or_default();
    result.get(..10).unwrap_or(result).to_owned()
}

/// Fails before D30: the simulation was an `eth_call` with the node's default gas, which
/// the wallet's check passes, so the relay was sent and reverted on chain (the attack
/// confirmed on the running service burnt 243,820 gas of the relayer's).
#[tokio::test(flavor = "multi_thread")]
async fn a_wallet_whose_check_needs_more_gas_than_the_relay_gives_is_refused_before_anything_is_sent(
) {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let session = stack.open_session("12.5").await;
    let owner_key: [u8; 32] = rand::random();
    let owner = eip191::address_of_private_key(&owner_key).unwrap();
    let deployer = funded_buyer(&stack.chain).await;
    let wallet = gas_hungry_wallet(&deployer, owner, WALLET_MIN_GAS).await;
    mint(
        &deployer,
        &stack.chain.usdc,
        &wallet.to_string(),
        12_500_000,
    )
    .await;

    // The wallet's check itself: the owner's signature passes with plenty of gas and is
    // refused under the relay's limit.
    let hash: [u8; 32] = rand::random();
    let sig = LocalWallet::from_bytes(&owner_key)
        .unwrap()
        .sign_hash(H256(hash))
        .unwrap()
        .to_vec();
    assert_eq!(
        check_with_gas(&stack, wallet, hash, &sig, 5_000_000).await,
        "0x1626ba7e"
    );
    assert_eq!(
        check_with_gas(&stack, wallet, hash, &sig, 250_000).await,
        "0xffffffff"
    );

    let res = post_signed_authorization(&stack, &session, &owner_key, wallet).await;
    let status = res.status().as_u16();
    let refusal: Value = res.json().await.unwrap();
    assert_eq!(status, 400, "{refusal}");
    assert!(
        lower(&refusal["error"]["message"]).contains("the network would refuse this payment"),
        "{refusal}"
    );
    assert!(relays(&stack).await.is_empty(), "nothing was sent");
    assert_eq!(session_of(&stack, &session).await["status"], "open");
    let balance = usdc_balance(&deployer, &stack.chain, &wallet.to_string()).await;
    assert_eq!(balance, 12_500_000, "the wallet's money is where it was");
}

fn lower(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_lowercase()
}

/// D30's per-chain budget: with the budget at 50 % and no minimum, one reverted relay is
/// all of the hour's relayer gas, so relaying pauses on the chain for every payer. The page
/// offers the other ways to pay and says why, `/authorization` answers 503 with the reason,
/// x402 answers `relayer_paused`, nothing more is sent, and the doctor prints a `PAUSED`
/// line. Before D30's budget, the other payer's relay was sent.
#[tokio::test(flavor = "multi_thread")]
async fn reverted_gas_over_the_chains_budget_pauses_relaying_for_every_payer_with_the_reason() {
    let chain = PrivateChain::start(None).await;
    let budget = vec![
        (
            "STABLEPAY_RELAYER_REVERT_BUDGET_PERCENT".to_string(),
            "50".to_string(),
        ),
        (
            "STABLEPAY_RELAYER_REVERT_BUDGET_MIN_GAS".to_string(),
            "0".to_string(),
        ),
    ];
    let stack = Stack::start_with(StackOptions {
        env: budget,
        ..StackOptions::on(&chain)
    })
    .await;
    stack.fresh_verified_wallet().await;
    let session = stack.open_session("12.5").await;
    let (_, later_url) = x402_session(&stack).await;
    let (_, honest_key, honest) = payer_without_eth(&stack, 12_500_000).await;

    // Before any revert, the page offers one signature first.
    let page = |id: String| {
        let (http, api) = (stack.http.clone(), stack.api.clone());
        async move {
            http.get(format!("{api}/pay/{id}"))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        }
    };
    let before = page(session.clone()).await;
    assert!(before.contains("id=\"pay-signature\""), "{before}");
    assert!(!before.contains("one-signature-paused"));

    reverted_relay(&chain, &stack, &session).await;

    // The relayer reads the hour's gas at most every 5 s (every page view asks).
    let after = poll(Duration::from_secs(15), || {
        let page = page(session.clone());
        async move {
            let html = page.await;
            html.contains("one-signature-paused").then_some(html)
        }
    })
    .await
    .unwrap_or_default();
    assert!(!after.contains("id=\"pay-signature\""), "{after}");
    let note = after
        .split("id=\"one-signature-paused\"")
        .nth(1)
        .expect("the page says why one signature is not offered");
    assert!(
        note.contains("paused") && note.contains("over its 50 % budget"),
        "{note}"
    );
    assert!(
        after.contains("id=\"deposit-address\""),
        "the deposit address is offered"
    );

    let (status, refusal) = pay_with_signature(&stack, &session, &honest_key, honest).await;
    assert_eq!(status, 503, "{refusal}");
    let message = lower(&refusal["error"]["message"]);
    assert!(
        message.contains("paused") && message.contains("budget"),
        "{refusal}"
    );
    let header = sdk_signs(&later_url, &honest_key, 0).await;
    let (status, required) = x402_get(stack.http.clone(), later_url, Some(header)).await;
    assert_eq!(status, 402, "{required}");
    assert_eq!(required["error"], "relayer_paused", "{required}");
    assert_eq!(relays(&stack).await.len(), 1, "nothing more was sent");

    let (ok, out, _) = stack.run_to_exit("stablepay-api", &["doctor"], &[]);
    assert!(!ok, "the doctor passes a paused relayer: {out}");
    assert!(
        out.lines().any(|l| l.starts_with("PAUSED")
            && l.contains("STABLEPAY_RELAYER_REVERT_BUDGET_PERCENT")
            && l.contains(&format!("chain {}", stack.chain.chain_id))),
        "{out}"
    );
}
