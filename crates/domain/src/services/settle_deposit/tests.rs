//! Tests of `settle_deposit_receipt` with mocked ports, on the settlement fixtures: which
//! tokens a deposit address books, and when money the watcher saw late counts as having
//! arrived in time.

use std::sync::{Arc, Mutex};

use futures_executor::block_on;

use crate::deployment::{ChainContracts, ChainDirectory, TokenDirectory};
use crate::model::{BalanceType, CheckoutSession, Currency, EventType, SessionStatus, Timestamp};
use crate::ports::{
    ChainReceipt, DepositWrite, MockChainReader, MockDepositStore, MockSettlementStore,
    SettlementWrite, TokenTransfer,
};
use crate::services::fixtures::settlement::*;
use crate::services::{settle_deposit_receipt, SettleDeps, SettleError, SettleOutcome};

fn deposit_address() -> crate::model::Address {
    addr(0x40)
}
fn usdt() -> crate::model::Address {
    addr(0x15)
}

/// `session()` with a deposit address, expiring `expires_in` seconds from `now()`.
fn deposit_session(expires_in: i64) -> CheckoutSession {
    CheckoutSession {
        deposit_address: Some(deposit_address()),
        expires_at: now().plus_seconds(expires_in),
        ..session()
    }
}

/// A receipt in `BLOCK` sending `value` of `token` from the payer to the deposit address.
fn sent(token: crate::model::Address, value: u64) -> ChainReceipt {
    ChainReceipt {
        tx_hash: tx(7),
        block_number: BLOCK,
        block_hash: bhash(7),
        succeeded: true,
        transfers: vec![TokenTransfer {
            token,
            from: payer(),
            to: deposit_address(),
            value: u128::from(value),
            log_index: 0,
        }],
        checkout_paid: vec![],
        subscription_events: vec![],
    }
}

/// A deposit store that knows `s` (with no transfers yet) and keeps what is written.
fn deposits(s: &CheckoutSession, written: Arc<Mutex<Vec<DepositWrite>>>) -> MockDepositStore {
    let mut store = MockDepositStore::new();
    let by_address = s.clone();
    store
        .expect_session_by_deposit_address()
        .returning(move |_, a| {
            Ok((Some(a) == by_address.deposit_address).then(|| by_address.clone()))
        });
    let by_id = s.clone();
    store
        .expect_deposit_session()
        .returning(move |_| Ok(Some(by_id.clone())));
    store.expect_deposit_transfers().returning(|_| Ok(vec![]));
    store.expect_record_deposit().returning(move |w| {
        written.lock().unwrap().push(w.clone());
        Ok(SettlementWrite::Written)
    });
    store
}

/// Settles `r` at depth with the chain `chain` (deposit factory on) and the session's
/// token plus USDT configured.
fn settle(
    s: &CheckoutSession,
    r: &ChainReceipt,
    chain: MockChainReader,
) -> (Vec<SettleOutcome>, Vec<DepositWrite>) {
    let (outcomes, written) = try_settle(s, r, chain);
    (outcomes.unwrap(), written)
}

fn try_settle(
    s: &CheckoutSession,
    r: &ChainReceipt,
    chain: MockChainReader,
) -> (Result<Vec<SettleOutcome>, SettleError>, Vec<DepositWrite>) {
    let log = crate::ports::MockScreeningLog::new();
    try_settle_screened(s, r, chain, &crate::services::NO_SCREENING, &log)
}

/// `try_settle` with `screening` asked about the senders (D33), its answers kept in `log`.
fn try_settle_screened(
    s: &CheckoutSession,
    r: &ChainReceipt,
    chain: MockChainReader,
    screening: &crate::services::PayerScreening,
    log: &crate::ports::MockScreeningLog,
) -> (Result<Vec<SettleOutcome>, SettleError>, Vec<DepositWrite>) {
    let written = Arc::new(Mutex::new(Vec::new()));
    let deposit_store = deposits(s, written.clone());
    let mut settlement = MockSettlementStore::new();
    settlement
        .expect_customer_for()
        .returning(|_, _, _| Ok(customer()));
    let chains = ChainDirectory::new(vec![ChainContracts {
        deposit_factory: Some(addr(0x30)),
        ..*directory().get(CHAIN).unwrap()
    }]);
    let tokens = TokenDirectory::new()
        .with(CHAIN, Currency::Usdc, token())
        .with(CHAIN, Currency::Usdt, usdt());
    let harness = Harness::new(MockChainReader::new(), MockSettlementStore::new());
    let deps = SettleDeps {
        chain: &chain,
        store: &settlement,
        deposits: &deposit_store,
        subscriptions: &harness.subscriptions,
        clock: &harness.clock,
        chains: &chains,
        tokens: &tokens,
        screening,
        screening_log: log,
    };
    let outcomes = block_on(settle_deposit_receipt(CHAIN, r, BLOCK + DEPTH, &deps));
    let written = written.lock().unwrap().clone();
    (outcomes, written)
}

#[test]
fn another_configured_token_is_a_payment_of_its_own_without_fee_and_leaves_the_session_open() {
    let s = deposit_session(600);
    let (outcomes, written) = settle(&s, &sent(usdt(), 3_000_000), chain_knowing_block_times());
    assert!(matches!(
        outcomes.as_slice(),
        [SettleOutcome::DepositRecorded(Some(_))]
    ));
    let [w] = written.as_slice() else {
        panic!("one write, got {written:?}")
    };
    assert_eq!(
        (w.received_before, w.received_after),
        (0, 0),
        "USDT is not USDC received"
    );
    assert!(w.completed_session.is_none());
    let transfer = w.transfer.as_ref().unwrap();
    assert_eq!(
        (transfer.token, transfer.amount_micros),
        (usdt(), 3_000_000)
    );
    let [p] = w.payments.as_slice() else {
        panic!("one payment")
    };
    assert_eq!(p.payment.currency, Currency::Usdt);
    assert_eq!(p.payment.token_address, usdt());
    assert_eq!(p.payment.amount.micros(), 3_000_000);
    assert_eq!(
        (p.payment.fee_micros, p.payment.merchant_micros),
        (0, 3_000_000)
    );
    assert_eq!(p.covers, vec![tx(7)]);
    let events: Vec<_> = w.events.iter().map(|e| e.event_type).collect();
    assert_eq!(events, vec![EventType::PaymentSucceeded]);
    assert_eq!(ledger_kinds(w), [BalanceType::Payment]);
    assert_eq!(
        (
            w.ledger[0].amount_micros,
            w.ledger[0].fee_micros,
            w.ledger[0].currency
        ),
        (3_000_000, 0, Currency::Usdt)
    );
    assert_eq!(w.ledger[0].block_time, Some(block_time()));
}

#[test]
fn a_token_nobody_configured_is_ignored() {
    let s = deposit_session(600);
    let (outcomes, written) = settle(&s, &sent(addr(0x16), 3_000_000), MockChainReader::new());
    assert!(outcomes.is_empty());
    assert!(written.is_empty());
}

/// A chain that knows block `bhash(7)` was mined at `at` (asked for the arrival, then for
/// the ledger entry of the money it books).
fn mined_at(at: Option<Timestamp>) -> MockChainReader {
    let mut chain = MockChainReader::new();
    chain
        .expect_block_time()
        .withf(|c, b| *c == CHAIN && *b == bhash(7))
        .times(1..=2)
        .returning(move |_, _| Ok(at));
    chain
}

fn ledger_kinds(w: &DepositWrite) -> Vec<BalanceType> {
    w.ledger.iter().map(|e| e.kind).collect()
}

#[test]
fn money_seen_after_expiry_but_mined_before_it_completes_the_session() {
    // Expired 30 s ago; the block carrying the exact amount was mined 60 s ago.
    let s = deposit_session(-30);
    let (_, written) = settle(
        &s,
        &sent(token(), s.amount.micros()),
        mined_at(Some(now().plus_seconds(-60))),
    );
    let [w] = written.as_slice() else {
        panic!("one write")
    };
    assert_eq!(
        w.transfer.as_ref().unwrap().arrived_at,
        now().plus_seconds(-60)
    );
    let done = w.completed_session.as_ref().expect("completed");
    assert_eq!(done.status, SessionStatus::Completed);
    assert!(w.payments[0].payment.overpaid_micros == 0);
    assert_eq!(ledger_kinds(w), [BalanceType::Payment], "in time: not late");
}

#[test]
fn money_mined_after_expiry_is_a_late_payment_that_completes_nothing() {
    let s = deposit_session(-30);
    let (_, written) = settle(
        &s,
        &sent(token(), s.amount.micros()),
        mined_at(Some(now().plus_seconds(-10))),
    );
    let [w] = written.as_slice() else {
        panic!("one write")
    };
    assert!(w.completed_session.is_none());
    let events: Vec<_> = w.events.iter().map(|e| e.event_type).collect();
    assert_eq!(events, vec![EventType::PaymentSucceeded]);
    assert_eq!(ledger_kinds(w), [BalanceType::LatePayment]);
}

#[test]
fn an_expired_session_whose_block_the_node_does_not_know_is_an_error_that_writes_nothing() {
    // An error, not an outcome: the watcher leaves the transaction unresolved (read again
    // next tick) and a pending re-check stops before it could drop the row.
    let s = deposit_session(-30);
    let (outcomes, written) = try_settle(&s, &sent(token(), s.amount.micros()), mined_at(None));
    assert!(
        matches!(outcomes, Err(SettleError::Chain(_))),
        "{outcomes:?}"
    );
    assert!(written.is_empty());
}

#[test]
fn another_token_on_an_expired_session_asks_the_block_time_only_for_its_ledger_entry() {
    let s = deposit_session(-30);
    // The arrival rule does not apply to another token: one read, the ledger entry's.
    let mut chain = MockChainReader::new();
    chain
        .expect_block_time()
        .withf(|c, b| *c == CHAIN && *b == bhash(7))
        .times(1)
        .returning(|_, _| Ok(Some(block_time())));
    let (_, written) = settle(&s, &sent(usdt(), 2_000_000), chain);
    let [w] = written.as_slice() else {
        panic!("one write")
    };
    assert_eq!(w.payments[0].payment.currency, Currency::Usdt);
    assert_eq!(ledger_kinds(w), [BalanceType::Payment]);
}

#[test]
fn an_open_session_never_asks_for_the_block_time() {
    let s = deposit_session(600);
    // No expectation on the chain: a block_time call would panic.
    let (_, written) = settle(&s, &sent(token(), 4_000_000), MockChainReader::new());
    let [w] = written.as_slice() else {
        panic!("one write")
    };
    assert_eq!(w.transfer.as_ref().unwrap().arrived_at, now());
    assert_eq!(w.received_after, 4_000_000);
    assert!(w.payments.is_empty(), "underpaid and open: waits for more");
}

/// Screening that answers `answer` for the payer, in test mode, its one check stored.
fn screened(
    answer: crate::model::ScreeningAnswer,
) -> (
    crate::services::PayerScreening,
    crate::ports::MockScreeningLog,
) {
    let mut log = crate::ports::MockScreeningLog::new();
    log.expect_record_checks()
        .times(1)
        .withf(|c| {
            c[0].path == crate::model::ScreeningPath::Deposit && c[0].payer.address == payer()
        })
        .returning(|_| Ok(()));
    (
        crate::services::fixtures::screening::screening_answering(answer),
        log,
    )
}

#[test]
fn a_listed_sender_s_deposit_is_booked_held_and_completes_nothing() {
    let s = deposit_session(600);
    let (screening, log) = screened(crate::services::fixtures::screening::listed());
    let (outcomes, written) = try_settle_screened(
        &s,
        &sent(token(), s.amount.micros()),
        chain_knowing_block_times(),
        &screening,
        &log,
    );
    assert!(matches!(
        outcomes.unwrap().as_slice(),
        [SettleOutcome::DepositRecorded(Some(_))]
    ));
    let [w] = written.as_slice() else {
        panic!("one write, got {written:?}")
    };
    assert!(w.completed_session.is_none());
    assert_eq!(w.received_after, s.amount.micros());
    let [p] = w.payments.as_slice() else {
        panic!("one payment")
    };
    assert_eq!(
        p.payment.review.as_ref().map(|r| r.status),
        Some(crate::model::ReviewStatus::Pending)
    );
    let types: Vec<EventType> = w.events.iter().map(|e| e.event_type).collect();
    assert_eq!(types, [EventType::PaymentRequiresReview]);
}

#[test]
fn an_unscreened_sender_s_deposit_stays_pending_for_the_re_check() {
    let s = deposit_session(600);
    let (screening, log) = screened(crate::model::ScreeningAnswer::Unknown);
    let (outcomes, written) = try_settle_screened(
        &s,
        &sent(token(), s.amount.micros()),
        chain_knowing_block_times(),
        &screening,
        &log,
    );
    assert_eq!(outcomes.unwrap(), [SettleOutcome::DepositPending]);
    let [w] = written.as_slice() else {
        panic!("one write, got {written:?}")
    };
    assert!(w.payments.is_empty() && w.completed_session.is_none() && w.events.is_empty());
    assert_eq!(w.transfer.as_ref().map(|t| t.confirmed), Some(false));
    assert_eq!(w.received_after, 0);
}
