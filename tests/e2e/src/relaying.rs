//! Relays watched up close (D30): a chain mined on demand, the relayer's records, and a
//! relay made to revert on chain at the relayer's expense.

use std::sync::Arc;
use std::time::Duration;

use ethers::types::U256;
use serde_json::{json, Value};
use stablepay_evm::bindings::test_token::TestToken;

use crate::one_signature::pay_with_signature;
use crate::*;

/// Mining on demand only: a relay stays in the pool until the test mines a block.
pub async fn set_automine(chain: &PrivateChain, on: bool) {
    chain.call("evm_setAutomine", json!([on])).await;
}

/// Mines a block at a time until `check` holds (or 30 s pass).
pub async fn mine_until<F, Fut>(chain: &PrivateChain, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    poll(Duration::from_secs(30), || {
        let checked = check();
        async move {
            chain.mine(1).await;
            checked.await.then_some(())
        }
    })
    .await
    .is_some()
}

/// `status payer` of every relayed transaction, oldest first.
pub async fn relays(stack: &Stack) -> Vec<String> {
    stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT status || ' ' || coalesce(payer_address, '') AS value \
         FROM relayed_transactions ORDER BY created_at, nonce",
    )
    .await
    .unwrap()
}

/// A checkout session by its id, as the API shows it.
pub async fn session_of(stack: &Stack, id: &str) -> Value {
    stack.get(&format!("/api/v1/checkout/sessions/{id}")).await
}

/// A griefer funded with exactly `session`'s gross signs a one-signature payment of it,
/// then moves the money away with a higher tip in the same block: the relay reverts on
/// chain at the relayer's expense, and the worker records it. Returns the griefer's key and
/// address and the account that funds it.
pub async fn reverted_relay(
    chain: &PrivateChain,
    stack: &Stack,
    session: &str,
) -> ([u8; 32], stablepay_domain::Address, Arc<Client>) {
    // The griefer has ETH of its own, to move its USDC away past the relay.
    let minter = funded_buyer(&stack.chain).await;
    let griefer_key: [u8; 32] = rand::random();
    let griefer = client_for(&stack.chain, &griefer_key).await;
    let griefer_address =
        stablepay_domain::Address::parse(&format!("{:#x}", griefer.address())).unwrap();
    mint(
        &minter,
        &stack.chain.usdc,
        &griefer_address.to_string(),
        12_500_000,
    )
    .await;
    set_automine(chain, false).await;
    let (status, sent) = pay_with_signature(stack, session, &griefer_key, griefer_address).await;
    assert_eq!(status, 202, "{sent}");
    let relay = sent["tx_hash"].as_str().unwrap().to_owned();
    let pooled = chain.call("eth_getTransactionByHash", json!([relay])).await;
    assert!(
        pooled["blockNumber"].is_null(),
        "the relay waits in the pool: {pooled}"
    );
    let usdc = TestToken::new(
        stack.chain.usdc.parse::<ethers::types::Address>().unwrap(),
        griefer.clone(),
    );
    // Gas given, not estimated: against the pending block the relay already took the money.
    let away = usdc
        .transfer(minter.address(), U256::from(12_500_000u64))
        .legacy()
        .gas(100_000u64)
        .gas_price(U256::from(500u64) * U256::exp10(9));
    let away = format!("{:#x}", *away.send().await.unwrap());
    chain.call("evm_mine", json!([])).await;
    set_automine(chain, true).await;
    let receipt = chain.call("eth_getTransactionReceipt", json!([away])).await;
    assert_eq!(receipt["status"], "0x1", "{receipt}");

    // The worker records the revert; the session is payable again.
    let reverted = format!("reverted {}", griefer_address.to_lower_hex());
    assert!(
        mine_until(chain, || async {
            relays(stack).await == [reverted.as_str()]
        })
        .await,
        "the worker records the revert: {:?}",
        relays(stack).await
    );
    let mined = stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT tx_hash AS value FROM relayed_transactions",
    )
    .await
    .unwrap();
    let relay_receipt = chain
        .call("eth_getTransactionReceipt", json!([mined[0]]))
        .await;
    assert_eq!(
        relay_receipt["status"], "0x0",
        "reverted on chain: {relay_receipt}"
    );
    assert_eq!(
        relay_receipt["blockNumber"], receipt["blockNumber"],
        "in the same block, after the payer's transfer"
    );
    assert_eq!(session_of(stack, session).await["status"], "open");
    (griefer_key, griefer_address, minter)
}
