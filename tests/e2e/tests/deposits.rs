//! Plain transfers to a session's deposit address (D24), from fresh accounts on the shared
//! chain at a depth of 2: exact, underpaid then topped up, overpaid, after completion,
//! after expiry. Each test runs its own stack; the books are read over the API.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use stablepay_e2e::*;

/// A session of `amount` and its deposit address.
async fn deposit_session(stack: &Stack, amount: &str) -> (String, String) {
    let (status, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "Order", "amount": amount }),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    assert_eq!(session["amount_received"], "0");
    (
        session["id"].as_str().unwrap().to_owned(),
        session["deposit_address"].as_str().unwrap().to_owned(),
    )
}

async fn session_of(stack: &Stack, id: &str) -> Value {
    stack.get(&format!("/api/v1/checkout/sessions/{id}")).await
}

/// Waits until the session shows `received` (what confirmed transfers add up to).
async fn wait_received(stack: &Stack, id: &str, received: &str) -> Value {
    let got = poll(Duration::from_secs(20), || async {
        let s = session_of(stack, id).await;
        (s["amount_received"] == received).then_some(s)
    })
    .await;
    got.unwrap_or_else(|| panic!("{id} never showed {received} received"))
}

/// Waits until the session has `n` payments; returns them oldest first.
async fn wait_payments(stack: &Stack, id: &str, n: usize) -> Vec<Value> {
    let got = poll(Duration::from_secs(20), || async {
        let mut p = stack.payments_of(id).await;
        p.reverse();
        (p.len() >= n).then_some(p)
    })
    .await
    .unwrap_or_else(|| panic!("{id} never had {n} payments"));
    assert_eq!(got.len(), n, "{got:?}");
    got
}

fn addr_of(client: &Arc<Client>) -> String {
    format!("{:#x}", client.address())
}

/// The events of `event_type` about `session` (its id, or a payment of it).
async fn events_about(stack: &Stack, event_type: &str, session: &str) -> usize {
    stack
        .events_of_type(event_type)
        .await
        .iter()
        .filter(|e| e.to_string().contains(session))
        .count()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_exact_transfer_from_a_fresh_account_completes_the_session_once() {
    let stack = Stack::start().await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    stack.record_events().await;
    let (id, deposit) = deposit_session(&stack, "20").await;
    let buyer = funded_buyer(&stack.chain).await;
    let tx = transfer(&buyer, &stack.chain.usdc, &deposit, 20_000_000).await;

    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["tx_hash"], tx);
    assert_eq!(
        done["wallet_address"].as_str().unwrap().to_lowercase(),
        addr_of(&buyer)
    );
    assert_eq!(done["amount_received"], "20");
    let payments = wait_payments(&stack, &id, 1).await;
    let p = &payments[0];
    assert_eq!(
        (
            &p["amount"],
            &p["overpaid_amount"],
            &p["fee_amount"],
            &p["merchant_amount"]
        ),
        (&json!("20"), &json!("0"), &json!("0.2"), &json!("19.8")),
        "{p}"
    );
    assert_eq!(p["status"], "confirmed");
    assert_eq!(p["tx_hash"], tx);
    assert_eq!(
        p["wallet_address"].as_str().unwrap().to_lowercase(),
        addr_of(&buyer)
    );
    // Racing paths (ticks, re-checks) had time to write twice: they did not.
    wait_for_blocks(&buyer, 3).await;
    assert_eq!(stack.payments_of(&id).await.len(), 1);
    assert_eq!(
        events_about(&stack, "checkout.session.completed", &id).await,
        1
    );
    assert_eq!(events_about(&stack, "payment.succeeded", &id).await, 1);
    // The worker sweeps it: the recipient gets the net, nothing stays at the address.
    assert_swept(&stack, &buyer, &deposit, &recipient, 19_800_000).await;
}

/// Waits until the deposit address is empty and `recipient` holds exactly `net`.
async fn assert_swept(
    stack: &Stack,
    client: &Arc<Client>,
    deposit: &str,
    recipient: &str,
    net: u128,
) {
    let swept = poll(Duration::from_secs(20), || async {
        let at_deposit = usdc_balance(client, &stack.chain, deposit).await;
        let received = usdc_balance(client, &stack.chain, recipient).await;
        (at_deposit == 0 && received == net).then_some(())
    })
    .await;
    assert!(
        swept.is_some(),
        "swept: deposit holds {}, recipient {} (expected {net})",
        usdc_balance(client, &stack.chain, deposit).await,
        usdc_balance(client, &stack.chain, recipient).await
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_underpaid_session_stays_open_showing_what_arrived_until_a_top_up_completes_it() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let (id, deposit) = deposit_session(&stack, "20").await;
    let buyer = funded_buyer(&stack.chain).await;
    transfer(&buyer, &stack.chain.usdc, &deposit, 4_000_000).await;
    let s = wait_received(&stack, &id, "4").await;
    assert_eq!(s["status"], "open", "underpaid stays open");
    wait_for_blocks(&buyer, 2).await;
    assert!(
        stack.payments_of(&id).await.is_empty(),
        "no payment while underpaid"
    );

    let other = funded_buyer(&stack.chain).await;
    let top_up = transfer(&other, &stack.chain.usdc, &deposit, 16_000_000).await;
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["amount_received"], "20");
    let p = &wait_payments(&stack, &id, 1).await[0];
    assert_eq!(
        (&p["amount"], &p["overpaid_amount"]),
        (&json!("20"), &json!("0"))
    );
    assert_eq!(p["tx_hash"], top_up, "the transfer that reached the gross");
    assert_eq!(
        p["wallet_address"].as_str().unwrap().to_lowercase(),
        addr_of(&other)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_overpayment_and_money_after_completion_are_booked_swept_and_refundable() {
    let stack = Stack::start().await;
    let (recipient, merchant_key) = stack.fresh_verified_wallet().await;
    stack.record_events().await;
    let (id, deposit) = deposit_session(&stack, "20").await;
    let buyer = funded_buyer(&stack.chain).await;
    transfer(&buyer, &stack.chain.usdc, &deposit, 25_000_000).await;
    stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    let p = &wait_payments(&stack, &id, 1).await[0];
    assert_eq!(
        (
            &p["amount"],
            &p["overpaid_amount"],
            &p["fee_amount"],
            &p["merchant_amount"]
        ),
        (&json!("20"), &json!("5"), &json!("0.2"), &json!("24.8")),
        "the treasury takes exactly the session's fee: {p}"
    );

    // More money after completion: a payment of its own, no second completion.
    let late = transfer(&buyer, &stack.chain.usdc, &deposit, 3_000_000).await;
    let payments = wait_payments(&stack, &id, 2).await;
    let q = &payments[1];
    assert_eq!(q["tx_hash"], late);
    assert_eq!(
        (&q["amount"], &q["overpaid_amount"], &q["fee_amount"]),
        (&json!("3"), &json!("0"), &json!("0")),
        "{q}"
    );
    assert_eq!(
        wait_received(&stack, &id, "28").await["status"],
        "completed"
    );
    wait_for_blocks(&buyer, 2).await;
    assert_eq!(
        events_about(&stack, "checkout.session.completed", &id).await,
        1
    );
    assert_eq!(events_about(&stack, "payment.succeeded", &id).await, 2);
    // Swept: 28 arrived, the treasury took exactly the session's fee (0.2).
    assert_swept(&stack, &buyer, &deposit, &recipient, 27_800_000).await;

    // The merchant refunds the excess the usual way: a transfer back, then the record.
    let merchant = client_for(&stack.chain, &merchant_key).await;
    let back = transfer(&merchant, &stack.chain.usdc, &addr_of(&buyer), 5_000_000).await;
    let (status, refund) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": p["id"], "tx_hash": back, "reason": "overpaid" }),
        )
        .await;
    assert_eq!(status, 201, "{refund}");
    assert_eq!(refund["amount"], "5");
}

#[tokio::test(flavor = "multi_thread")]
async fn usdt_sent_to_a_usdc_session_is_its_own_payment_forwarded_without_a_fee() {
    let stack = Stack::start().await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    stack.record_events().await;
    let (id, deposit) = deposit_session(&stack, "20").await;
    let buyer = funded_buyer(&stack.chain).await;
    let usdt = stack.chain.usdt.clone();
    mint(&buyer, &usdt, &addr_of(&buyer), 7_000_000).await;
    let tx = transfer(&buyer, &usdt, &deposit, 7_000_000).await;

    let p = &wait_payments(&stack, &id, 1).await[0];
    assert_eq!(p["tx_hash"], tx);
    assert_eq!(
        (
            &p["currency"],
            &p["amount"],
            &p["fee_amount"],
            &p["merchant_amount"],
            &p["overpaid_amount"]
        ),
        (
            &json!("USDT"),
            &json!("7"),
            &json!("0"),
            &json!("7"),
            &json!("0")
        ),
        "{p}"
    );
    // USDT is not what the USDC session asked for: it stays open, nothing received.
    let s = session_of(&stack, &id).await;
    assert_eq!(
        (&s["status"], &s["amount_received"]),
        (&json!("open"), &json!("0"))
    );
    assert_eq!(events_about(&stack, "payment.succeeded", &id).await, 1);
    // Forwarded whole to the recipient; nothing stays at the address.
    let swept = poll(Duration::from_secs(20), || async {
        let at_deposit = token_balance(&buyer, &usdt, &deposit).await;
        let received = token_balance(&buyer, &usdt, &recipient).await;
        (at_deposit == 0 && received == 7_000_000).then_some(())
    })
    .await;
    assert!(
        swept.is_some(),
        "USDT at the deposit {}, at the recipient {}",
        token_balance(&buyer, &usdt, &deposit).await,
        token_balance(&buyer, &usdt, &recipient).await
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn money_on_an_expired_session_is_recorded_as_payments_and_never_completes_it() {
    let stack = Stack::start().await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    stack.record_events().await;
    let (id, deposit) = deposit_session(&stack, "20").await;
    let buyer = funded_buyer(&stack.chain).await;
    transfer(&buyer, &stack.chain.usdc, &deposit, 4_000_000).await;
    wait_received(&stack, &id, "4").await;
    // Time passes (expiry is applied lazily from expires_at, as for any reader).
    stablepay_postgres::testing::execute_sql(
        &stack.store,
        &format!(
            "UPDATE checkout_sessions SET expires_at = now() - interval '1 second' \
             WHERE id = '{}'",
            stablepay_domain::CheckoutSessionId::parse(&id)
                .unwrap()
                .uuid()
        ),
    )
    .await
    .unwrap();
    let first = &wait_payments(&stack, &id, 1).await[0];
    assert_eq!(
        (&first["amount"], &first["fee_amount"]),
        (&json!("4"), &json!("0.04"))
    );
    assert_eq!(session_of(&stack, &id).await["status"], "expired");

    let late = transfer(&buyer, &stack.chain.usdc, &deposit, 16_000_000).await;
    let payments = wait_payments(&stack, &id, 2).await;
    assert_eq!(payments[1]["tx_hash"], late);
    assert_eq!(payments[1]["amount"], "16");
    let s = wait_received(&stack, &id, "20").await;
    assert_eq!(
        s["status"], "expired",
        "late money never completes a session"
    );
    assert_eq!(
        events_about(&stack, "checkout.session.completed", &id).await,
        0
    );
    assert_eq!(events_about(&stack, "payment.succeeded", &id).await, 2);
    assert_swept(&stack, &buyer, &deposit, &recipient, 19_800_000).await;
}

async fn deposit_rows(stack: &Stack) -> Vec<String> {
    stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT status || ' ' || amount_micros || ' ' || block_number AS value \
         FROM deposit_transfers ORDER BY block_number",
    )
    .await
    .unwrap()
}

/// D17 for deposits: a transfer is pending (not counted) below depth; reorged out and
/// re-mined it is counted once; reorged out for good it is never counted.
#[tokio::test(flavor = "multi_thread")]
async fn a_deposit_reorged_out_is_never_counted_and_re_mined_is_counted_once() {
    let chain = PrivateChain::start(None).await;
    let stack = Stack::start_with(StackOptions {
        confirmations: 3,
        ..StackOptions::on(&chain)
    })
    .await;
    stack.fresh_verified_wallet().await;
    stack.record_events().await;

    // Reorged out for good: seen pending, then gone, never counted.
    let (gone, gone_address) = deposit_session(&stack, "5").await;
    let buyer = funded_buyer(&stack.chain).await;
    send_transfer(&buyer, &stack.chain.usdc, &gone_address, 5_000_000).await;
    let pending = poll(Duration::from_secs(10), || async {
        let rows = deposit_rows(&stack).await;
        rows.first()
            .is_some_and(|r| r.starts_with("pending 5000000"))
            .then_some(())
    })
    .await;
    assert!(
        pending.is_some(),
        "the watcher sees the transfer below depth"
    );
    assert_eq!(session_of(&stack, &gone).await["amount_received"], "0");
    chain.call("anvil_rollback", json!([1])).await;
    let dropped = poll(Duration::from_secs(30), || async {
        chain.mine(1).await;
        let s = session_of(&stack, &gone).await;
        assert_eq!(s["amount_received"], "0", "counted while absent");
        assert_eq!(s["status"], "open");
        deposit_rows(&stack).await.is_empty().then_some(())
    })
    .await;
    assert!(dropped.is_some(), "a transfer gone at depth is dropped");
    assert!(stack.payments_of(&gone).await.is_empty());

    // Re-mined in a replacement block: counted once, completing once.
    let (id, deposit) = deposit_session(&stack, "20").await;
    let tx = format!(
        "{:#x}",
        send_transfer(&buyer, &stack.chain.usdc, &deposit, 20_000_000)
            .await
            .transaction_hash
    );
    let raw = chain.raw_transaction(&tx).await;
    let mined_in = chain.head().await;
    chain.mine(1).await;
    let seen = poll(Duration::from_secs(10), || async {
        let rows = deposit_rows(&stack).await;
        rows.iter()
            .any(|r| r == &format!("pending 20000000 {mined_in}"))
            .then_some(())
    })
    .await;
    assert!(
        seen.is_some(),
        "pending at 2 of 3: {:?}",
        deposit_rows(&stack).await
    );
    chain.call("anvil_reorg", json!([2, [[raw, 1]]])).await;
    let moved = poll(Duration::from_secs(10), || async {
        let rows = deposit_rows(&stack).await;
        assert!(
            rows.iter().all(|r| r.starts_with("pending")),
            "confirmed too early: {rows:?}"
        );
        rows.iter()
            .any(|r| r == &format!("pending 20000000 {}", mined_in + 1))
            .then_some(())
    })
    .await;
    assert!(
        moved.is_some(),
        "the row follows its transaction: {:?}",
        deposit_rows(&stack).await
    );
    chain.mine(2).await;
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["amount_received"], "20");
    chain.mine(3).await;
    let payments = wait_payments(&stack, &id, 1).await;
    assert_eq!(payments[0]["tx_hash"], tx);
    assert_eq!(
        deposit_rows(&stack).await,
        [format!("confirmed 20000000 {}", mined_in + 1)]
    );
    assert_eq!(
        events_about(&stack, "checkout.session.completed", &id).await,
        1
    );
    assert_eq!(events_about(&stack, "payment.succeeded", &id).await, 1);
}

/// D17 for sweeps: a sweep counts as mined only at depth; one a reorg removes stays in
/// flight, is sent again, and the money moves once.
#[tokio::test(flavor = "multi_thread")]
async fn a_sweep_reorged_out_before_depth_is_sent_again_and_moves_the_money_once() {
    let chain = PrivateChain::start(None).await;
    let stack = Stack::start_with(StackOptions {
        confirmations: 3,
        ..StackOptions::on(&chain)
    })
    .await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    let (id, deposit) = deposit_session(&stack, "20").await;
    let buyer = funded_buyer(&stack.chain).await;
    let usdc = stack.chain.usdc.clone();
    send_transfer(&buyer, &usdc, &deposit, 20_000_000).await;
    let completed = poll(Duration::from_secs(20), || async {
        chain.mine(1).await;
        (session_of(&stack, &id).await["status"] == "completed").then_some(())
    })
    .await;
    assert!(completed.is_some(), "the deposit completes at depth 3");
    // No block is mined from here on but the sweep's own (automine): it stays below depth.
    let sweeps = || async {
        stablepay_postgres::testing::query_strings(
            &stack.store,
            "SELECT status AS value FROM deposit_sweeps ORDER BY nonce",
        )
        .await
        .unwrap()
    };
    let swept = poll(Duration::from_secs(20), || async {
        (usdc_balance(&buyer, &stack.chain, &deposit).await == 0).then_some(())
    })
    .await;
    assert!(
        swept.is_some(),
        "the worker sweeps once the deposit is deep"
    );
    assert_eq!(sweeps().await, ["sent"], "mined but below depth: in flight");
    // Blocks only on demand from here: the worker may send the sweep again the moment the
    // reorg drops its receipt (it was broadcast long enough ago), and with automine that
    // re-broadcast would be mined before the reorg's effect could be looked at.
    chain.call("evm_setAutomine", json!([false])).await;
    // Back to just before the sweep's block: the test's own polling may have mined a block
    // after it (the worker can sweep between a poll's mining and its status read).
    let sweep_tx = stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT tx_hash AS value FROM deposit_sweeps",
    )
    .await
    .unwrap()
    .remove(0);
    let receipt = chain
        .call("eth_getTransactionReceipt", json!([sweep_tx]))
        .await;
    let hex = receipt["blockNumber"].as_str().expect("the sweep is mined");
    let sweep_block = u64::from_str_radix(hex.trim_start_matches("0x"), 16).unwrap();
    let above = chain.head().await - sweep_block + 1;
    chain.call("anvil_rollback", json!([above])).await;
    assert_eq!(
        usdc_balance(&buyer, &stack.chain, &deposit).await,
        20_000_000,
        "the reorg took the sweep out"
    );
    // Sent again (the same signed transaction, after the re-broadcast delay), then deep.
    let again = poll(Duration::from_secs(40), || async {
        chain.mine(1).await;
        (usdc_balance(&buyer, &stack.chain, &deposit).await == 0).then_some(())
    })
    .await;
    assert!(again.is_some(), "the sweep is re-broadcast");
    let mined = poll(Duration::from_secs(20), || async {
        chain.mine(1).await;
        (sweeps().await == ["mined"]).then_some(())
    })
    .await;
    assert!(mined.is_some(), "mined at depth: {:?}", sweeps().await);
    assert_eq!(
        usdc_balance(&buyer, &stack.chain, &recipient).await,
        19_800_000,
        "the recipient got the net exactly once"
    );
    assert_eq!(usdc_balance(&buyer, &stack.chain, &deposit).await, 0);
}

/// Underpayment tolerance (D32): 0.3 % short completes a session that tolerates 0.5 %, with
/// the shortfall shown on session, payment, webhook and ledger and the fee on what
/// arrived; the same transfer leaves a session that tolerates 0.1 % open.
#[tokio::test(flavor = "multi_thread")]
async fn a_deposit_short_within_tolerance_completes_and_beyond_it_waits() {
    let stack = Stack::start().await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    stack.record_events().await;
    let create = |bps: u64| {
        stack.post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "Order", "amount": "100",
                    "underpayment_tolerance_bps": bps }),
        )
    };
    let (status, lenient) = create(50).await;
    assert_eq!(status, 201, "{lenient}");
    assert_eq!(lenient["underpayment_tolerance_bps"], 50);
    assert_eq!(lenient["underpaid_amount"], Value::Null);
    let (_, strict) = create(10).await;
    // Out of range, and in subscription mode, it is refused on the field.
    let (status, refused) = create(1001).await;
    assert_eq!(status, 400);
    assert_eq!(
        refused["error"]["details"][0]["field"],
        "underpayment_tolerance_bps"
    );
    let (lenient_id, strict_id) = (
        lenient["id"].as_str().unwrap(),
        strict["id"].as_str().unwrap(),
    );

    // 99.7 to each: 0.3 % short (an exchange's withdrawal fee).
    let buyer = funded_buyer(&stack.chain).await;
    let short = 99_700_000;
    let tx = transfer(
        &buyer,
        &stack.chain.usdc,
        lenient["deposit_address"].as_str().unwrap(),
        short,
    )
    .await;
    transfer(
        &buyer,
        &stack.chain.usdc,
        strict["deposit_address"].as_str().unwrap(),
        short,
    )
    .await;

    let done = stack
        .wait_for_session(lenient_id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        (&done["amount_received"], &done["underpaid_amount"]),
        (&json!("99.7"), &json!("0.3"))
    );
    let p = &wait_payments(&stack, lenient_id, 1).await[0];
    // The fee follows what arrived (D24): floor(99.7 × 1 %) = 0.997.
    assert_eq!(
        (
            &p["amount"],
            &p["underpaid_amount"],
            &p["overpaid_amount"],
            &p["fee_amount"],
            &p["merchant_amount"]
        ),
        (
            &json!("99.7"),
            &json!("0.3"),
            &json!("0"),
            &json!("0.997"),
            &json!("98.703")
        ),
        "{p}"
    );
    assert_eq!(p["tx_hash"], tx);
    let pay_id = p["id"].as_str().unwrap();
    let succeeded = stack.events_of_type("payment.succeeded").await;
    let event = succeeded
        .iter()
        .find(|e| e.to_string().contains(pay_id))
        .expect("payment.succeeded");
    assert_eq!(
        event["payload"]["data"]["object"]["underpaid_amount"],
        "0.3"
    );
    let ledger = stack
        .get(&format!("/api/v1/balance_transactions?payment={pay_id}"))
        .await;
    assert_eq!(ledger["data"][0]["amount"], "99.7");
    assert_eq!(ledger["data"][0]["net"], "98.703");
    // The sweep pays the merchant exactly the payment's merchant amount.
    assert_swept(
        &stack,
        &buyer,
        lenient["deposit_address"].as_str().unwrap(),
        &recipient,
        98_703_000,
    )
    .await;

    // Beyond 0.1 % the session waits for the rest, showing what arrived.
    let waiting = wait_received(&stack, strict_id, "99.7").await;
    assert_eq!(waiting["status"], "open");
    assert_eq!(waiting["underpaid_amount"], Value::Null);
    assert!(stack.payments_of(strict_id).await.is_empty());
}
