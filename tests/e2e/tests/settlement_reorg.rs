//! Reorgs with anvil's own methods (D17): a payment reorged out is never confirmed while
//! absent, and the same signed transaction mined again completes the session exactly once
//! (one payment, one of each event). Each test runs on an anvil node of its own.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use stablepay_e2e::*;

/// Pays `session` as a fresh buyer; returns (buyer, pay tx, its signed bytes, its block).
async fn pay(
    stack: &Stack,
    chain: &PrivateChain,
    session: &str,
) -> (Arc<Client>, String, String, u64) {
    let (status, intent) = stack.intent(session).await;
    assert_eq!(status, 200, "{intent}");
    let buyer = funded_buyer(&stack.chain).await;
    let tx = pay_intent(&buyer, &intent).await;
    let raw = chain.raw_transaction(&tx).await;
    (buyer, tx, raw, chain.head().await)
}

async fn payment_status(stack: &Stack, session: &str) -> Option<String> {
    let payments = stack.payments_of(session).await;
    assert!(payments.len() <= 1, "one payment per session: {payments:?}");
    payments
        .first()
        .map(|p| p["status"].as_str().unwrap().to_owned())
}

async fn assert_settled_once(stack: &Stack, session: &str, tx: &str) {
    let done = stack
        .wait_for_session(session, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["tx_hash"], tx);
    let payments = stack.payments_of(session).await;
    assert_eq!(payments.len(), 1, "{payments:?}");
    assert_eq!(payments[0]["status"], "confirmed");
    // Give racing paths (watcher ticks, re-checks) time to misbehave before counting.
    let counts = poll(Duration::from_secs(3), || async {
        let c = stack
            .events_of_type("checkout.session.completed")
            .await
            .len();
        let p = stack.events_of_type("payment.succeeded").await.len();
        ((c, p) != (1, 1)).then_some((c, p))
    })
    .await;
    assert_eq!(counts, None, "exactly one event of each type");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_payment_rolled_back_is_never_confirmed_while_absent_and_settles_once_when_mined_again() {
    let chain = PrivateChain::start(None).await;
    let stack = Stack::start_with(StackOptions::on(&chain)).await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    stack.record_events().await;
    let session = stack.open_session("20").await;
    let (buyer, tx, raw, _) = pay(&stack, &chain, &session).await;

    // Below depth 2 the watcher records it as pending.
    let seen = poll(Duration::from_secs(10), || async {
        (payment_status(&stack, &session).await.as_deref() == Some("pending")).then_some(())
    })
    .await;
    assert!(seen.is_some(), "the watcher shows the payment as pending");

    // The block with the payment is rolled back; the transaction is gone.
    chain.call("anvil_rollback", json!([1])).await;
    assert_eq!(usdc_balance(&buyer, &stack.chain, &recipient).await, 0);

    // While it is absent the chain grows block by block: never confirmed, and only
    // declared failed once provably gone at depth after several checks.
    let failed = poll(Duration::from_secs(30), || async {
        chain.mine(1).await;
        let status = payment_status(&stack, &session).await;
        assert_ne!(
            status.as_deref(),
            Some("confirmed"),
            "confirmed while absent"
        );
        let s = stack
            .get(&format!("/api/v1/checkout/sessions/{session}"))
            .await;
        assert_eq!(s["status"], "open", "completed while absent");
        (status.as_deref() == Some("failed")).then_some(())
    })
    .await;
    assert!(failed.is_some(), "a payment provably reorged out is failed");
    assert!(stack.events_of_type("payment.succeeded").await.is_empty());

    // The same signed transaction is mined again: the failed payment is revived.
    chain.call("eth_sendRawTransaction", json!([raw])).await;
    chain.mine(1).await;
    assert_settled_once(&stack, &session, &tx).await;
    assert_eq!(
        usdc_balance(&buyer, &stack.chain, &recipient).await,
        19_800_000,
        "the recipient holds the net amount once"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_payment_re_mined_in_a_replacement_block_confirms_at_its_new_depth() {
    let chain = PrivateChain::start(None).await;
    let stack = Stack::start_with(StackOptions {
        confirmations: 3,
        ..StackOptions::on(&chain)
    })
    .await;
    stack.fresh_verified_wallet().await;
    stack.record_events().await;
    let session = stack.open_session("7.5").await;
    let (_, tx, raw, paid_in) = pay(&stack, &chain, &session).await;
    chain.mine(1).await;
    let seen = poll(Duration::from_secs(10), || async {
        (payment_status(&stack, &session).await.as_deref() == Some("pending")).then_some(())
    })
    .await;
    assert!(seen.is_some(), "pending at 2 of 3 confirmations");

    // Replace the last two blocks; the transaction lands one block later than before.
    chain.call("anvil_reorg", json!([2, [[raw, 1]]])).await;
    assert_eq!(chain.head().await, paid_in + 1);
    let moved = poll(Duration::from_secs(10), || async {
        let p = stack.payments_of(&session).await;
        let p = p.first()?;
        assert_ne!(
            p["status"], "confirmed",
            "confirmed at 1 of 3 after the reorg"
        );
        let block = p["block_number"]
            .as_str()
            .and_then(|b| b.parse::<u64>().ok());
        (block == Some(paid_in + 1)).then_some(())
    })
    .await;
    assert!(
        moved.is_some(),
        "the pending payment follows its transaction"
    );

    chain.mine(1).await;
    let early = poll(Duration::from_secs(1), || async {
        (payment_status(&stack, &session).await.as_deref() != Some("pending")).then_some(())
    })
    .await;
    assert!(early.is_none(), "still pending at 2 of 3 confirmations");
    chain.mine(1).await;
    assert_settled_once(&stack, &session, &tx).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_paused_node_gives_fast_503s_and_nothing_confirms_until_it_resumes() {
    let chain = PrivateChain::start(None).await;
    let stack = Stack::start_with(StackOptions {
        env: vec![("STABLEPAY_RPC_TIMEOUT_MS".into(), "500".into())],
        ..StackOptions::on(&chain)
    })
    .await;
    stack.fresh_verified_wallet().await;
    stack.record_events().await;
    let session = stack.open_session("3").await;
    let (_, tx, _, _) = pay(&stack, &chain, &session).await;

    chain.pause();
    let started = std::time::Instant::now();
    let (status, retry_after, body) = stack.confirm(&session, &tx).await;
    let took = started.elapsed();
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "api_error");
    assert!(retry_after.is_some(), "503 carries Retry-After");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        !message.contains("127.0.0.1") && !message.contains("http"),
        "no internal URL reaches the buyer: {message}"
    );
    assert!(
        took < Duration::from_secs(5),
        "a paused node is not a hang ({took:?})"
    );
    // Nothing confirms while the node is paused.
    let confirmed = poll(Duration::from_secs(2), || async {
        (payment_status(&stack, &session).await.as_deref() == Some("confirmed")).then_some(())
    })
    .await;
    assert!(confirmed.is_none(), "confirmed while the node was paused");
    let s = stack
        .get(&format!("/api/v1/checkout/sessions/{session}"))
        .await;
    assert_eq!(s["status"], "open");

    chain.resume();
    chain.mine(1).await;
    assert_settled_once(&stack, &session, &tx).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn on_a_chain_mining_every_second_a_dropped_payment_mined_again_settles_once() {
    // As on the dev stack: blocks every second whether or not anyone sends.
    let chain = PrivateChain::start(Some(1)).await;
    let stack = Stack::start_with(StackOptions::on(&chain)).await;
    stack.fresh_verified_wallet().await;
    stack.record_events().await;
    let session = stack.open_session("11").await;
    // Hold block production while the buyer pays, so the reorg lands before depth 2.
    chain.call("evm_setIntervalMining", json!([0])).await;
    chain.call("evm_setAutomine", json!([true])).await;
    let (_, tx, raw, paid_in) = pay(&stack, &chain, &session).await;
    assert_eq!(chain.head().await, paid_in);
    // Replace the payment's block with an empty one, then mine every second again.
    chain.call("anvil_reorg", json!([1, []])).await;
    chain.call("evm_setAutomine", json!([false])).await;
    chain.call("evm_setIntervalMining", json!([1])).await;
    let receipt = chain.call("eth_getTransactionReceipt", json!([tx])).await;
    assert!(receipt.is_null(), "the reorg dropped the payment");
    // Blocks keep coming; the payment is never confirmed while it is absent.
    let confirmed = poll(Duration::from_secs(4), || async {
        (payment_status(&stack, &session).await.as_deref() == Some("confirmed")).then_some(())
    })
    .await;
    assert!(confirmed.is_none(), "confirmed while absent");
    // The buyer's wallet broadcasts the same signed transaction again.
    chain.call("eth_sendRawTransaction", json!([raw])).await;
    assert_settled_once(&stack, &session, &tx).await;
}

/// The payment's ledger entries oldest first, as (type, net, block_number).
async fn ledger_of(stack: &Stack, payment: &str) -> Vec<(String, String, String)> {
    let page = stack
        .get(&format!("/api/v1/balance_transactions?payment={payment}"))
        .await;
    let mut entries: Vec<(String, String, String)> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let field = |name: &str| e[name].as_str().unwrap_or_default().to_owned();
            (field("type"), field("net"), field("block_number"))
        })
        .collect();
    entries.reverse();
    entries
}

fn types(entries: &[(String, String, String)]) -> Vec<&str> {
    entries.iter().map(|(t, _, _)| t.as_str()).collect()
}

/// The ledger's net for the entries, in micro-units.
fn net_micros(entries: &[(String, String, String)]) -> i64 {
    entries
        .iter()
        .map(|(_, net, _)| stablepay_domain::parse_signed_micros(net).unwrap())
        .sum()
}

/// Pays a fresh session and waits until it completed at depth; returns what `pay` does
/// plus the payment's id and the merchant's receiving wallet.
async fn paid_and_booked(
    stack: &Stack,
    chain: &PrivateChain,
) -> (Arc<Client>, String, String, u64, String, String) {
    let (recipient, _) = stack.fresh_verified_wallet().await;
    stack.record_events().await;
    let session = stack.open_session("20").await;
    let (buyer, tx, raw, paid_in) = pay(stack, chain, &session).await;
    chain.mine(1).await;
    assert_settled_once(stack, &session, &tx).await;
    let payment = stack.payments_of(&session).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let booked = ledger_of(stack, &payment).await;
    assert_eq!(types(&booked), ["payment"], "{booked:?}");
    assert_eq!(booked[0].2, paid_in.to_string());
    (buyer, raw, payment, paid_in, recipient, session)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_confirmed_payment_reorged_out_is_reversed_and_booked_again_when_mined_again() {
    let chain = PrivateChain::start(None).await;
    let stack = Stack::start_with(StackOptions::on(&chain)).await;
    let (buyer, raw, payment, paid_in, recipient, session) = paid_and_booked(&stack, &chain).await;

    // A reorg deeper than the confirmation depth takes the payment out of the chain.
    let head = chain.head().await;
    chain
        .call("anvil_rollback", json!([head - paid_in + 1]))
        .await;
    assert_eq!(usdc_balance(&buyer, &stack.chain, &recipient).await, 0);
    // The chain grows; after misses at several heads the books follow it: a reversal,
    // the payment failed, the ledger's net equal to what the merchant holds (nothing).
    let reversed = poll(Duration::from_secs(30), || async {
        chain.mine(1).await;
        let entries = ledger_of(&stack, &payment).await;
        (types(&entries) == ["payment", "reversal"]).then_some(entries)
    })
    .await
    .expect("the books reverse a payment the chain no longer holds");
    assert_eq!(net_micros(&reversed), 0);
    let p = stack.get(&format!("/api/v1/payments/{payment}")).await;
    assert_eq!(p["status"], "failed", "{p}");

    // The buyer's wallet broadcasts the same signed transaction again: booked anew, once,
    // and no event fires a second time.
    chain.call("eth_sendRawTransaction", json!([raw])).await;
    chain.mine(2).await;
    let again = poll(Duration::from_secs(30), || async {
        let entries = ledger_of(&stack, &payment).await;
        (entries.len() == 3).then_some(entries)
    })
    .await
    .expect("a payment mined again is booked again");
    assert_eq!(types(&again), ["payment", "reversal", "payment"]);
    let held = usdc_balance(&buyer, &stack.chain, &recipient).await;
    assert_eq!(held, 19_800_000);
    assert_eq!(net_micros(&again), held as i64, "the books equal the chain");
    let p = stack.get(&format!("/api/v1/payments/{payment}")).await;
    assert_eq!(p["status"], "confirmed", "{p}");
    assert_eq!(p["block_number"], again[2].2);
    assert_settled_once(&stack, &session, p["tx_hash"].as_str().unwrap()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_confirmed_payment_re_mined_in_another_block_is_reversed_and_booked_where_it_is() {
    let chain = PrivateChain::start(None).await;
    let stack = Stack::start_with(StackOptions::on(&chain)).await;
    let (buyer, raw, payment, paid_in, recipient, session) = paid_and_booked(&stack, &chain).await;
    chain.mine(1).await;
    assert_eq!(chain.head().await, paid_in + 2);

    // Three blocks replaced; the payment lands one block later, still at depth 2.
    chain.call("anvil_reorg", json!([3, [[raw, 1]]])).await;
    let moved = poll(Duration::from_secs(20), || async {
        let entries = ledger_of(&stack, &payment).await;
        (entries.len() == 3).then_some(entries)
    })
    .await
    .expect("the books follow a payment re-mined elsewhere");
    assert_eq!(types(&moved), ["payment", "reversal", "payment"]);
    assert_eq!(
        moved[1].2,
        paid_in.to_string(),
        "the reversal names the old block"
    );
    assert_eq!(moved[2].2, (paid_in + 1).to_string());
    let held = usdc_balance(&buyer, &stack.chain, &recipient).await;
    assert_eq!(net_micros(&moved), held as i64, "the books equal the chain");
    let p = stack.get(&format!("/api/v1/payments/{payment}")).await;
    assert_eq!(p["status"], "confirmed", "{p}");
    assert_settled_once(&stack, &session, p["tx_hash"].as_str().unwrap()).await;
}
