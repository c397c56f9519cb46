//! Chain-side helpers for the tests: funded buyers and payers, transfers, mints, balances
//! and blocks on the anvil chains `cargo xtask test` started.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use ethers::middleware::SignerMiddleware;
use ethers::providers::{Http, Middleware, Provider};
use ethers::signers::{LocalWallet, Signer};
use ethers::types::{Bytes, TransactionRequest, U256};
use serde_json::Value;
use stablepay_evm::bindings::test_token::TestToken;

use crate::{poll, ChainInfo, Client, Stack};

/// A new buyer with ETH (anvil_setBalance) and test USDC (the token's public mint).
pub async fn funded_buyer(chain: &ChainInfo) -> Arc<Client> {
    let key: [u8; 32] = rand::random();
    let client = client_for(chain, &key).await;
    let address = format!("{:#x}", client.address());
    mint(&client, &chain.usdc, &address, 1_000_000_000_000).await;
    client
}

/// The buyer's two wallet transactions for a hosted intent: approve the router, then
/// `pay` with the operator-signed intent. Returns the payment's tx hash.
pub async fn pay_intent(buyer: &Client, intent: &Value) -> String {
    let field = |k: &str| intent[k].as_str().unwrap().to_owned();
    send(buyer, &field("token"), &field("approve_calldata")).await;
    send(buyer, &field("contract"), &field("pay_calldata")).await
}

/// Sends raw calldata and waits for the receipt; returns the tx hash (0x-hex).
pub async fn send(client: &Client, to: &str, data: &str) -> String {
    let tx = TransactionRequest::new()
        .to(to.parse::<ethers::types::Address>().unwrap())
        .data(Bytes::from(
            hex::decode(data.trim_start_matches("0x")).unwrap(),
        ));
    let receipt = client
        .send_transaction(tx, None)
        .await
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(receipt.status.unwrap().as_u64(), 1, "transaction reverted");
    format!("{:#x}", receipt.transaction_hash)
}

pub async fn usdc_balance(client: &Arc<Client>, chain: &ChainInfo, who: &str) -> u128 {
    token_balance(client, &chain.usdc, who).await
}

/// `who`'s balance of `token`, in base units.
pub async fn token_balance(client: &Arc<Client>, token: &str, who: &str) -> u128 {
    let token = TestToken::new(
        token.parse::<ethers::types::Address>().unwrap(),
        client.clone(),
    );
    token
        .balance_of(who.parse().unwrap())
        .call()
        .await
        .unwrap()
        .as_u128()
}

/// A client for an existing key, given ETH for gas.
pub async fn client_for(chain: &ChainInfo, key: &[u8; 32]) -> Arc<Client> {
    let wallet = LocalWallet::from_bytes(key)
        .unwrap()
        .with_chain_id(chain.chain_id);
    let provider = Provider::<Http>::try_from(chain.rpc.as_str())
        .unwrap()
        .interval(Duration::from_millis(100));
    provider
        .request::<_, Value>("anvil_setBalance", (wallet.address(), U256::exp10(20)))
        .await
        .unwrap();
    Arc::new(SignerMiddleware::new(provider, wallet))
}

/// Creates a session for `amount`, pays it as a fresh buyer and waits for completion.
/// Returns (session id, payment json, buyer).
pub async fn paid_session(stack: &Stack, amount: &str) -> (String, Value, Arc<Client>) {
    let id = stack.open_session(amount).await;
    let (_, intent) = stack.intent(&id).await;
    let buyer = funded_buyer(&stack.chain).await;
    let tx = pay_intent(&buyer, &intent).await;
    stack.confirm(&id, &tx).await;
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(15))
        .await;
    assert_eq!(done["status"], "completed");
    let payments = stack
        .get(&format!("/api/v1/payments?checkout_session={id}"))
        .await;
    (id, payments["data"][0].clone(), buyer)
}

/// An ERC-20 transfer of the test USDC (or another token) from `from`, mined (automine)
/// and not waited on for depth; returns its receipt.
pub async fn send_transfer(
    from: &Arc<Client>,
    token: &str,
    to: &str,
    micros: u64,
) -> ethers::types::TransactionReceipt {
    let token = TestToken::new(
        token.parse::<ethers::types::Address>().unwrap(),
        from.clone(),
    );
    token
        .transfer(to.parse().unwrap(), U256::from(micros))
        .send()
        .await
        .unwrap()
        .await
        .unwrap()
        .unwrap()
}

/// `send_transfer`, waited for until it has the 2 confirmations the stacks use; returns
/// the tx hash.
pub async fn transfer(from: &Arc<Client>, token: &str, to: &str, micros: u64) -> String {
    let receipt = send_transfer(from, token, to, micros).await;
    let block = receipt.block_number.unwrap().as_u64();
    let deep = poll(Duration::from_secs(20), || async {
        (from.get_block_number().await.unwrap().as_u64() > block).then_some(())
    })
    .await;
    assert!(deep.is_some(), "the chain stopped at block {block}");
    format!("{:#x}", receipt.transaction_hash)
}

/// Mints test tokens to `to` (the dev tokens' mint is public).
pub async fn mint(by: &Arc<Client>, token: &str, to: &str, micros: u64) {
    let token = TestToken::new(token.parse::<ethers::types::Address>().unwrap(), by.clone());
    token
        .mint(to.parse().unwrap(), U256::from(micros))
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
}

/// The address of a 0x-hex private key, as 0x-hex.
pub fn address_of_key(key: &str) -> String {
    format!("{:#x}", key.parse::<LocalWallet>().unwrap().address())
}

/// `contracts deploy` arguments for `chain` with its service keys' roles and treasury, at
/// a depth of 2; flags naming contracts to keep go after them.
pub fn deploy_args(chain: &ChainInfo) -> Vec<String> {
    let id = chain.chain_id.to_string();
    let (operator, keeper) = (
        address_of_key(&chain.operator_key),
        address_of_key(&chain.keeper_key),
    );
    [
        "contracts",
        "deploy",
        "--chain-id",
        &id,
        "--rpc-url",
        &chain.rpc,
        "--operator",
        &operator,
        "--keeper",
        &keeper,
        "--treasury",
        &chain.treasury,
        "--confirmations",
        "2",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect()
}

/// Waits until the chain is `n` blocks past where it is now (a poll on the head): time,
/// measured in blocks, for anything that would react to a transaction to have done so.
pub async fn wait_for_blocks(client: &Client, n: u64) {
    let start = client.get_block_number().await.unwrap().as_u64();
    let reached = poll(Duration::from_secs(30), || async {
        (client.get_block_number().await.unwrap().as_u64() >= start + n).then_some(())
    })
    .await;
    assert!(reached.is_some(), "the chain stopped at block {start}");
}
