//! Payers screened after the money moved (D33), as the tests set them up: a buyer the dev
//! sanctions oracle lists, and a router payment of theirs booked held for review.

use std::sync::Arc;
use std::time::Duration;

use ethers::signers::Signer;
use ethers::types::Address as EthAddress;
use serde_json::Value;
use stablepay_evm::bindings::test_sanctions_oracle::TestSanctionsOracle;

use crate::{
    client_for, funded_buyer, pay_intent, poll, test_env, Client, PrivateChain, Stack, StackOptions,
};

/// The dev oracle's address on `chain` (the state every private chain loads).
pub fn oracle_address(chain: &PrivateChain) -> String {
    test_env()["chains"][chain.chain_id.to_string()]["sanctions_oracle"]["address"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The variables that screen payers of both modes with the dev oracle on `chain`.
pub fn oracle_screening(chain: &PrivateChain) -> Vec<(String, String)> {
    vec![
        (
            "STABLEPAY_SCREENING_MODES".to_owned(),
            "test,live".to_owned(),
        ),
        (
            format!("STABLEPAY_SANCTIONS_ORACLE_{}", chain.chain_id),
            oracle_address(chain),
        ),
    ]
}

/// A stack on `chain` screening payers of both modes with the dev oracle, its settlement
/// wallet verified, and `env` besides.
pub async fn screened_stack(chain: &PrivateChain, env: &[(&str, &str)]) -> Stack {
    let mut options = StackOptions::on(chain);
    options.env.extend(oracle_screening(chain));
    options
        .env
        .extend(env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    let stack = Stack::start_with(options).await;
    stack.fresh_verified_wallet().await;
    stack
}

/// The dev oracle on `chain`, as its owner (who sets its list).
pub async fn oracle_owner(chain: &PrivateChain) -> TestSanctionsOracle<Client> {
    let o = &test_env()["chains"][chain.chain_id.to_string()]["sanctions_oracle"];
    let key: [u8; 32] = hex::decode(
        o["owner_private_key"]
            .as_str()
            .unwrap()
            .trim_start_matches("0x"),
    )
    .unwrap()
    .try_into()
    .unwrap();
    let owner = client_for(&chain.info(), &key).await;
    TestSanctionsOracle::new(oracle_address(chain).parse::<EthAddress>().unwrap(), owner)
}

/// A funded buyer the dev oracle on `chain` lists (set by its owner).
pub async fn listed_buyer(chain: &PrivateChain, stack: &Stack) -> Arc<Client> {
    let oracle = oracle_owner(chain).await;
    let buyer = funded_buyer(&stack.chain).await;
    oracle
        .add_to_sanctions_list(vec![buyer.signer().address()])
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
    buyer
}

/// A router payment of a fresh `amount` session by `buyer`, mined and taken to depth (on an
/// automining chain); returns (session id, the payment once booked).
pub async fn booked_router_payment(
    chain: &PrivateChain,
    stack: &Stack,
    buyer: &Client,
    amount: &str,
) -> (String, Value) {
    let id = stack.open_session(amount).await;
    let (_, intent) = stack.intent(&id).await;
    let tx = pay_intent(buyer, &intent).await;
    stack.confirm(&id, &tx).await;
    chain.mine(3).await;
    let payment = poll(Duration::from_secs(20), || async {
        let payments = stack.payments_of(&id).await;
        payments
            .first()
            .filter(|p| p["status"] == "confirmed")
            .cloned()
    })
    .await
    .expect("the payment is booked at depth");
    (id, payment)
}
