//! The relayer's and the sweeper's transactions after their first send (D26), on a chain
//! of the test's own (1 s blocks, depth 2) whose mining the test stops while it acts: a
//! relayed payment priced out by a base-fee jump is replaced and pays its session once;
//! one whose session is paid through its deposit address while it is stuck gets its nonce
//! filled, so the payer is charged nothing; a sweep priced out is replaced and moves the
//! money once. The books equal the chain at the end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use stablepay_domain::ports::NewestAttempt;
use stablepay_domain::TxHash;
use stablepay_e2e::one_signature::{pay_with_signature, payer_without_eth};
use stablepay_e2e::*;
use stablepay_evm::bindings::test_token::TestToken;

fn stop_mining(chain: &PrivateChain) -> impl std::future::Future<Output = Value> + '_ {
    chain.call("evm_setIntervalMining", json!([0]))
}

fn resume_mining(chain: &PrivateChain) -> impl std::future::Future<Output = Value> + '_ {
    chain.call("evm_setIntervalMining", json!([1]))
}

async fn attempt(stack: &Stack, tx: &str) -> NewestAttempt {
    let hash = TxHash::parse(tx).unwrap();
    stack.store.attempt(hash).await.unwrap().expect("stored")
}

/// Sets the next block's base fee to 3× the attempt's fee cap: it cannot be included
/// until it is replaced.
async fn price_out(chain: &PrivateChain, pending: &NewestAttempt) {
    let base = pending.fees.max_fee_wei * 3;
    chain
        .call(
            "anvil_setNextBlockBaseFeePerGas",
            json!([format!("{base:#x}")]),
        )
        .await;
}

/// A USDC transfer to `to` sent at fees far over any priced-out base fee, left in the pool.
async fn send_generously(buyer: &Arc<Client>, stack: &Stack, to: &str, micros: u64) {
    let token = TestToken::new(
        stack.chain.usdc.parse::<ethers::types::Address>().unwrap(),
        buyer.clone(),
    );
    let call = token
        .transfer(to.parse().unwrap(), micros.into())
        .gas(100_000)
        .gas_price(ethers::types::U256::from(200_000_000_000u64));
    let _pending = call.send().await.unwrap();
}

/// (session id, deposit address) of a new session of `amount`.
async fn deposit_session(stack: &Stack, amount: &str) -> (String, String) {
    let id = stack.open_session(amount).await;
    let session = stack.get(&format!("/api/v1/checkout/sessions/{id}")).await;
    (id, session["deposit_address"].as_str().unwrap().to_owned())
}

async fn rows(stack: &Stack, sql: &str) -> Vec<String> {
    stablepay_postgres::testing::query_strings(&stack.store, sql)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn stuck_relays_are_replaced_or_filled_and_a_stuck_sweep_is_replaced() {
    let chain = PrivateChain::start(Some(1)).await;
    let stack = Stack::start_with(StackOptions {
        env: vec![
            ("STABLEPAY_CHAIN_POLL".into(), "250ms".into()),
            // The setup's transactions tip 3 gwei, so the first sends offer that: the cap
            // leaves room to raise it.
            ("STABLEPAY_MAX_FEE_GWEI_84532".into(), "100".into()),
        ],
        ..StackOptions::on(&chain)
    })
    .await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    let buyer = funded_buyer(&stack.chain).await;
    let balance = |who: String| {
        let (buyer, info) = (buyer.clone(), stack.chain.clone());
        async move { usdc_balance(&buyer, &info, &who).await }
    };

    // 1. A relayed payment priced out: replaced at higher fees, the session paid once by
    //    the replacement.
    let s1 = stack.open_session("12.5").await;
    let (_, key1, payer1) = payer_without_eth(&stack, 50_000_000).await;
    stop_mining(&chain).await;
    let (status, sent) = pay_with_signature(&stack, &s1, &key1, payer1).await;
    assert_eq!(status, 202, "{sent}");
    let first = sent["tx_hash"].as_str().unwrap().to_owned();
    price_out(&chain, &attempt(&stack, &first).await).await;
    resume_mining(&chain).await;
    let done = stack
        .wait_for_session(&s1, "completed", Duration::from_secs(60))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    let paid_by = done["tx_hash"].as_str().unwrap().to_owned();
    assert_ne!(paid_by, first, "paid by the replacement");
    let recorded = poll(Duration::from_secs(30), || async {
        let r = rows(
            &stack,
            "SELECT tx_hash || ' ' || status AS value FROM relayed_transactions",
        )
        .await;
        (r == [format!("{paid_by} mined")]).then_some(())
    })
    .await;
    assert!(recorded.is_some(), "the relay names the mined replacement");
    assert_eq!(balance(payer1.to_string()).await, 37_500_000);

    // 2. A relayed payment stuck while its session is paid through its deposit address:
    //    its nonce is filled, the payer keeps the money, the session has one payment.
    let (s2, deposit2) = deposit_session(&stack, "10").await;
    let (_, key2, payer2) = payer_without_eth(&stack, 50_000_000).await;
    stop_mining(&chain).await;
    let (status, sent) = pay_with_signature(&stack, &s2, &key2, payer2).await;
    assert_eq!(status, 202, "{sent}");
    let stuck = sent["tx_hash"].as_str().unwrap().to_owned();
    let stuck_attempt = attempt(&stack, &stuck).await;
    price_out(&chain, &stuck_attempt).await;
    send_generously(&buyer, &stack, &deposit2, 10_000_000).await;
    chain.mine(2).await;
    let done = stack
        .wait_for_session(&s2, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    resume_mining(&chain).await;
    let nonce = stuck_attempt.nonce;
    let dropped = poll(Duration::from_secs(60), || async {
        let r = rows(
            &stack,
            &format!("SELECT status AS value FROM relayed_transactions WHERE nonce = {nonce}"),
        )
        .await;
        (r == ["dropped"]).then_some(())
    })
    .await;
    assert!(dropped.is_some(), "the stuck relay was given up");
    let fills = rows(
        &stack,
        &format!("SELECT tx_hash AS value FROM sender_attempts WHERE nonce = {nonce} AND fill"),
    )
    .await;
    assert_eq!(fills.len(), 1, "its nonce went to one fill");
    assert_eq!(balance(payer2.to_string()).await, 50_000_000);
    assert_eq!(stack.payments_of(&s2).await.len(), 1);
    // The fill is the router's operator-signed cancel of the session's ref (D30), so the
    // stuck relay's calldata, which anyone who saw it holds, can never pay again: an
    // eth_call of it reverts (with a 0-value self-transfer as the fill it would succeed,
    // its authorization and intent being unused and unexpired).
    let fill = chain
        .call("eth_getTransactionByHash", json!([fills[0]]))
        .await;
    assert_eq!(
        fill["to"].as_str().unwrap().to_lowercase(),
        stack.chain.router.to_lowercase(),
        "{fill}"
    );
    assert!(
        fill["input"].as_str().unwrap().starts_with("0x302bacf3"),
        "{fill}"
    );
    let raw = rows(
        &stack,
        &format!(
            "SELECT encode(raw_tx, 'hex') AS value FROM sender_attempts WHERE tx_hash = '{stuck}'"
        ),
    )
    .await;
    let raw = hex::decode(&raw[0]).unwrap();
    let (relayed, _) = ethers::types::transaction::eip2718::TypedTransaction::decode_signed(
        &ethers::utils::rlp::Rlp::new(&raw),
    )
    .unwrap();
    let replay: Value = reqwest::Client::new()
        .post(&stack.chain.rpc)
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "eth_call", "params": [{
            "from": format!("{:?}", buyer.address()),
            "to": format!("{:?}", relayed.to_addr().unwrap()),
            "data": format!("0x{}", hex::encode(relayed.data().unwrap())),
        }, "latest"]}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        replay.get("error").is_some(),
        "the replay would pay again: {replay}"
    );

    // 3. A sweep priced out: replaced, and the money moves once.
    let idle = poll(Duration::from_secs(30), || async {
        let sent = rows(
            &stack,
            "SELECT tx_hash AS value FROM deposit_sweeps WHERE status = 'sent'",
        )
        .await;
        (sent.is_empty() && balance(deposit2.clone()).await == 0).then_some(())
    })
    .await;
    assert!(idle.is_some(), "the second session's deposit was swept");
    let (s3, deposit3) = deposit_session(&stack, "20").await;
    stop_mining(&chain).await;
    send_generously(&buyer, &stack, &deposit3, 20_000_000).await;
    chain.mine(2).await;
    let done = stack
        .wait_for_session(&s3, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    let sweep = poll(Duration::from_secs(20), || async {
        let sent = rows(
            &stack,
            "SELECT tx_hash AS value FROM deposit_sweeps WHERE status = 'sent'",
        )
        .await;
        sent.into_iter().next()
    })
    .await
    .expect("the worker sent the sweep");
    let sweep_attempt = attempt(&stack, &sweep).await;
    price_out(&chain, &sweep_attempt).await;
    resume_mining(&chain).await;
    let nonce = sweep_attempt.nonce;
    let swept = poll(Duration::from_secs(60), || async {
        let mined = rows(
            &stack,
            &format!(
                "SELECT tx_hash AS value FROM deposit_sweeps WHERE nonce = {nonce} AND status = 'mined'"
            ),
        )
        .await;
        let moved = balance(deposit3.clone()).await == 0;
        (moved && mined.len() == 1).then(|| mined[0].clone())
    })
    .await
    .expect("the sweep was replaced and mined");
    assert_ne!(swept, sweep, "moved by the replacement");
    let named = rows(
        &stack,
        "SELECT DISTINCT sweep_tx_hash AS value FROM deposit_transfers \
         WHERE sweep_tx_hash IS NOT NULL",
    )
    .await;
    assert!(
        named.contains(&swept) && !named.contains(&sweep),
        "the transfer rows name the mined sweep: {named:?}"
    );

    // The books equal the chain: each session's net, once.
    assert_eq!(
        balance(recipient).await,
        12_375_000 + 9_900_000 + 19_800_000
    );
}
