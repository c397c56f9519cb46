//! Tests of `scan_chain`, on the settlement fixtures.

use std::sync::{Arc, Mutex};

use futures_executor::block_on;

use crate::deployment::ChainDirectory;
use crate::model::{CheckoutSession, PaymentStatus};
use crate::ports::{
    ChainError, ChainReceipt, LoggedTx, MockChainReader, MockSettlementStore, PendingPayment,
};
use crate::services::fixtures::settlement::*;
use crate::services::{
    scan_chain, ScanReport, ScanState, SettleError, SettleOutcome, INITIAL_LOOKBACK,
};

pub(super) fn scan(h: &Harness, state: &mut ScanState) -> Result<ScanReport, SettleError> {
    block_on(scan_chain(CHAIN, state, &h.deps()))
}

/// The receipt of `tx(n)` paying `s` in `block` (hash `bhash(n)`).
fn receipt_of(s: &CheckoutSession, n: u8, block: u64) -> ChainReceipt {
    ChainReceipt {
        tx_hash: tx(n),
        block_number: block,
        block_hash: bhash(n),
        ..receipt(s)
    }
}

/// The router log of `tx(n)` in `block` (hash `bhash(n)`).
pub(super) fn logged(n: u8, block: u64) -> LoggedTx {
    LoggedTx {
        tx_hash: tx(n),
        block_number: block,
        block_hash: bhash(n),
    }
}

/// A node at `head` that answers exactly one router-log read of `from..=to` with `logs`.
pub(super) fn node(head: u64, from: u64, to: u64, logs: Vec<LoggedTx>) -> MockChainReader {
    let mut chain = node_at(head);
    chain
        .expect_checkout_paid_logs()
        .withf(move |c, r, f, t| (*c, *r, *f, *t) == (CHAIN, router(), from, to))
        .times(1)
        .return_const(Ok(logs));
    chain
}

fn node_at(head: u64) -> MockChainReader {
    let mut chain = MockChainReader::new();
    chain
        .expect_block_number()
        .withf(|c| *c == CHAIN)
        .times(1)
        .return_const(Ok(head));
    chain
}

/// A store knowing `sessions` and the `pending` payments (listed once for the re-checks),
/// with `cursor` stored and moved exactly once to `moved_to` (or never moved).
pub(super) fn scan_store(
    sessions: Vec<CheckoutSession>,
    pending: Vec<PendingPayment>,
    cursor: Option<u64>,
    moved_to: Option<u64>,
) -> MockSettlementStore {
    let mut store = store_of(
        sessions,
        pending.iter().map(|p| p.payment.clone()).collect(),
    );
    store
        .expect_chain_cursor()
        .withf(|c| *c == CHAIN)
        .times(1)
        .return_const(Ok(cursor));
    match moved_to {
        Some(next) => store
            .expect_set_chain_cursor()
            .withf(move |c, n| (*c, *n) == (CHAIN, next))
            .times(1)
            .return_const(Ok(())),
        None => store.expect_set_chain_cursor().never(),
    };
    store
        .expect_pending_payments()
        .withf(|c, after, limit| (*c, *after, *limit) == (CHAIN, None, 200))
        .times(1)
        .return_const(Ok(pending));
    store.expect_booked_payments().return_const(Ok(vec![]));
    store.expect_record_receipt_miss().never();
    store.expect_fail_pending_payment().never();
    store
}

/// Router-log reads answered by `answer(call)`, recording the `to` of every read.
fn logs_recorded(
    chain: &mut MockChainReader,
    answer: impl Fn(usize) -> Result<Vec<LoggedTx>, ChainError> + Send + 'static,
) -> Arc<Mutex<Vec<u64>>> {
    let tos = Arc::new(Mutex::new(Vec::new()));
    let sink = tos.clone();
    chain
        .expect_checkout_paid_logs()
        .returning(move |_, _, _, to| {
            let mut tos = sink.lock().unwrap();
            tos.push(to);
            answer(tos.len() - 1)
        });
    tos
}

fn refused() -> ChainError {
    ChainError::Unavailable("range too large".into())
}

// ---- the log scan and the cursor -----------------------------------------------------

#[test]
fn the_cursor_passes_the_deepest_confirmed_block_when_everything_resolves() {
    let s = session();
    let mut reverted = receipt_of(&session(), 2, 104);
    reverted.succeeded = false;
    reverted.checkout_paid.clear();
    let mut chain = node(110, 100, 110, vec![logged(2, 104), logged(1, 105)]);
    expect_receipt(&mut chain, tx(1), Ok(Some(receipt_of(&s, 1, 105))));
    expect_receipt(&mut chain, tx(2), Ok(Some(reverted)));
    let mut store = scan_store(vec![s], vec![], Some(100), Some(110));
    let w = expect_write(&mut store, is_completing_write);
    let h = Harness::new(chain, store);
    let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
    assert_eq!(
        (report.head, report.read, report.cursor),
        (110, Some((100, 110)), 110)
    );
    let mut settled = report.settled.clone();
    settled.sort_by_key(|(tx, _)| *tx.as_bytes());
    let id = written(&w)[0].payment.id;
    assert_eq!(
        settled,
        [
            (tx(1), SettleOutcome::Confirmed(id)),
            (
                tx(2),
                SettleOutcome::Rejected("the transaction reverted".into())
            ),
        ]
    );
    assert!(report.unresolved.is_empty() && report.rechecked.is_empty());
}

#[test]
fn a_short_read_moves_the_cursor_only_past_the_blocks_read() {
    let chain = node(110, 100, 104, vec![]);
    let h = Harness::new(chain, scan_store(vec![], vec![], Some(100), Some(105)));
    let report = scan(&h, &mut ScanState::new(5).with_trail(0)).unwrap();
    assert_eq!((report.read, report.cursor), (Some((100, 104)), 105));
}

#[test]
fn an_unknown_receipt_holds_the_cursor_at_its_block_and_others_still_settle() {
    let unknown = "the node returned no receipt yet".to_string();
    // The log's block is deep and the node still has it, has no block, or fails.
    for canonical in [Ok(Some(bhash(1))), Ok(None), Err(refused())] {
        let s = session();
        let mut chain = node(110, 100, 110, vec![logged(1, 103), logged(2, 105)]);
        expect_receipt(&mut chain, tx(1), Ok(None));
        expect_block_hash(&mut chain, 103, canonical.clone());
        expect_receipt(&mut chain, tx(2), Ok(Some(receipt_of(&s, 2, 105))));
        let mut store = scan_store(vec![s], vec![], Some(100), Some(103));
        let w = expect_write(&mut store, is_completing_write);
        let h = Harness::new(chain, store);
        let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
        let id = written(&w)[0].payment.id;
        assert_eq!(report.cursor, 103, "{canonical:?}");
        assert_eq!(
            report.unresolved,
            [(tx(1), unknown.clone())],
            "{canonical:?}"
        );
        assert_eq!(report.settled, [(tx(2), SettleOutcome::Confirmed(id))]);
    }
}

#[test]
fn an_unknown_receipt_above_depth_is_not_judged_by_its_block_hash() {
    let mut chain = node(110, 100, 110, vec![logged(1, 110)]);
    expect_receipt(&mut chain, tx(1), Ok(None));
    chain.expect_block_hash().never();
    let h = Harness::new(chain, scan_store(vec![], vec![], Some(100), Some(110)));
    let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
    assert_eq!(report.unresolved.len(), 1);
    assert_eq!(report.cursor, 110);
}

#[test]
fn a_receipt_rpc_error_holds_the_cursor_and_others_still_settle() {
    let s = session();
    let mut chain = node(110, 100, 110, vec![logged(1, 103), logged(2, 105)]);
    expect_receipt(
        &mut chain,
        tx(1),
        Err(ChainError::Unavailable("timeout".into())),
    );
    expect_receipt(&mut chain, tx(2), Ok(Some(receipt_of(&s, 2, 105))));
    chain.expect_block_hash().never();
    let mut store = scan_store(vec![s], vec![], Some(100), Some(103));
    let w = expect_write(&mut store, is_completing_write);
    let h = Harness::new(chain, store);
    let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
    let id = written(&w)[0].payment.id;
    assert_eq!(report.cursor, 103);
    assert_eq!(
        report.unresolved,
        [(tx(1), "chain unavailable: timeout".to_string())]
    );
    assert_eq!(report.settled, [(tx(2), SettleOutcome::Confirmed(id))]);
}

#[test]
fn a_stale_log_from_a_replaced_deep_block_lets_the_cursor_pass() {
    let mut chain = node(110, 100, 110, vec![logged(1, 103)]);
    expect_receipt(&mut chain, tx(1), Ok(None));
    expect_block_hash(&mut chain, 103, Ok(Some(bhash(0x99))));
    let mut store = scan_store(vec![], vec![], Some(100), Some(110));
    store.expect_record_checkout_settlement().never();
    let h = Harness::new(chain, store);
    let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
    assert_eq!(report.cursor, 110);
    assert!(
        report.settled.is_empty() && report.unresolved.is_empty(),
        "{report:?}"
    );
}

#[test]
fn an_unresolved_transaction_in_the_first_block_leaves_the_cursor_unwritten() {
    let mut chain = node(110, 100, 110, vec![logged(1, 100)]);
    expect_receipt(
        &mut chain,
        tx(1),
        Err(ChainError::Unavailable("timeout".into())),
    );
    let h = Harness::new(chain, scan_store(vec![], vec![], Some(100), None));
    let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
    assert_eq!((report.read, report.cursor), (Some((100, 110)), 100));
}

#[test]
fn without_a_stored_cursor_the_scan_starts_the_lookback_below_the_head() {
    let from = 5000 - INITIAL_LOOKBACK;
    let h = Harness::new(
        node(5000, from, from + 999, vec![]),
        scan_store(vec![], vec![], None, Some(from + 1000)),
    );
    let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
    assert_eq!(report.read, Some((from, from + 999)));
    // Near genesis the lookback stops at block 0.
    let h = Harness::new(
        node(10, 0, 10, vec![]),
        scan_store(vec![], vec![], None, Some(10)),
    );
    let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
    assert_eq!((report.read, report.cursor), (Some((0, 10)), 10));
}

// ---- what the scan state remembers between ticks -------------------------------------

/// Tick 1 (cursor 100, head 110): `tx(1)` in block 103 has no receipt yet and holds the
/// cursor there; `tx(2)` in block 105 settles. Returns the state and `tx(2)`'s session.
fn first_tick_holding_the_cursor_at_103() -> (ScanState, CheckoutSession) {
    let s2 = session();
    let mut chain = node(110, 100, 110, vec![logged(1, 103), logged(2, 105)]);
    expect_receipt(&mut chain, tx(1), Ok(None));
    expect_block_hash(&mut chain, 103, Ok(Some(bhash(1))));
    expect_receipt(&mut chain, tx(2), Ok(Some(receipt_of(&s2, 2, 105))));
    let mut store = scan_store(vec![s2.clone()], vec![], Some(100), Some(103));
    let _w = expect_write(&mut store, is_completing_write);
    let mut state = ScanState::new(1000).with_trail(0);
    let report = scan(&Harness::new(chain, store), &mut state).unwrap();
    assert_eq!((report.cursor, report.unresolved.len()), (103, 1));
    (state, s2)
}

#[test]
fn a_transaction_settled_on_an_earlier_tick_is_not_fetched_again() {
    let (mut state, _) = first_tick_holding_the_cursor_at_103();
    // Tick 2 reads from the held cursor: only `tx(1)` is fetched, now it settles.
    let s1 = session();
    let mut chain = node(111, 103, 111, vec![logged(1, 103), logged(2, 105)]);
    expect_receipt(&mut chain, tx(1), Ok(Some(receipt_of(&s1, 1, 103))));
    let mut store = scan_store(vec![s1], vec![], Some(103), Some(111));
    let w = expect_write(&mut store, is_completing_write);
    let report = scan(&Harness::new(chain, store), &mut state).unwrap();
    let id = written(&w)[0].payment.id;
    assert_eq!(report.settled, [(tx(1), SettleOutcome::Confirmed(id))]);
    assert_eq!(report.cursor, 111);
}

#[test]
fn a_settled_transaction_logged_in_another_block_is_fetched_again() {
    let (mut state, s2) = first_tick_holding_the_cursor_at_103();
    let confirmed = recorded(&s2, &receipt_of(&s2, 2, 105), PaymentStatus::Confirmed);
    // Tick 2: `tx(2)` is now logged in block 106 (another hash): fetched and judged again.
    let moved = LoggedTx {
        tx_hash: tx(2),
        block_number: 106,
        block_hash: bhash(7),
    };
    let mut chain = node(111, 103, 111, vec![logged(1, 103), moved]);
    expect_receipt(&mut chain, tx(1), Ok(None));
    expect_block_hash(&mut chain, 103, Ok(Some(bhash(1))));
    expect_receipt(&mut chain, tx(2), Ok(Some(receipt_of(&s2, 2, 106))));
    let mut store = store_of(vec![s2], vec![confirmed.clone()]);
    store.expect_chain_cursor().return_const(Ok(Some(103)));
    store.expect_pending_payments().return_const(Ok(vec![]));
    store.expect_booked_payments().return_const(Ok(vec![]));
    no_writes(&mut store);
    let report = scan(&Harness::new(chain, store), &mut state).unwrap();
    let outcome = SettleOutcome::AlreadyRecorded(confirmed.id);
    assert_eq!(report.settled, [(tx(2), outcome)]);
    assert_eq!(report.cursor, 103);
}

#[test]
fn a_transaction_below_depth_is_fetched_again_and_confirms_in_the_tick_it_reaches_depth() {
    let s = session();
    let r = receipt_of(&s, 1, 110);
    // Tick 1 (head 110, depth 2): recorded pending, not remembered.
    let mut chain = node(110, 100, 110, vec![logged(1, 110)]);
    expect_receipt(&mut chain, tx(1), Ok(Some(r.clone())));
    let mut store = scan_store(vec![s.clone()], vec![], Some(100), Some(110));
    let _w = expect_write(&mut store, is_pending_write);
    let mut state = ScanState::new(1000).with_trail(0);
    let report = scan(&Harness::new(chain, store), &mut state).unwrap();
    assert!(matches!(
        report.settled[..],
        [(_, SettleOutcome::Pending(_))]
    ));
    // Tick 2 (head 111): the scan itself fetches it again and confirms it.
    let pending = recorded(&s, &r, PaymentStatus::Pending);
    let mut chain = node(111, 110, 111, vec![logged(1, 110)]);
    expect_receipt(&mut chain, tx(1), Ok(Some(r)));
    let mut store = store_of(vec![s], vec![pending.clone()]);
    store.expect_chain_cursor().return_const(Ok(Some(110)));
    store
        .expect_set_chain_cursor()
        .withf(|c, n| (*c, *n) == (CHAIN, 111))
        .times(1)
        .return_const(Ok(()));
    // Listed as pending, but the scan handled it: no second fetch.
    store
        .expect_pending_payments()
        .return_const(Ok(vec![PendingPayment {
            tx_hash: pending.tx_hash.unwrap(),
            block_number: pending.block_number.unwrap(),
            payment: pending,
            receipt_misses: 0,
            last_miss_head: None,
        }]));
    store.expect_booked_payments().return_const(Ok(vec![]));
    let w = expect_write(&mut store, is_completing_write);
    let report = scan(&Harness::new(chain, store), &mut state).unwrap();
    assert_eq!(
        report.settled,
        [(tx(1), SettleOutcome::Confirmed(written(&w)[0].payment.id))]
    );
}

#[test]
fn each_tick_reads_again_a_trail_below_the_cursor_and_settles_what_a_lagging_node_missed() {
    // The cursor is at 100 but a lagging log node never returned `tx(1)` in block 95.
    let s = session();
    let mut chain = node(110, 100 - 16, 110, vec![logged(1, 95)]);
    expect_receipt(&mut chain, tx(1), Ok(Some(receipt_of(&s, 1, 95))));
    let mut store = scan_store(vec![s], vec![], Some(100), Some(110));
    let w = expect_write(&mut store, is_completing_write);
    let mut state = ScanState::new(1000);
    let report = scan(&Harness::new(chain, store), &mut state).unwrap();
    assert_eq!(report.read, Some((84, 110)));
    assert_eq!(
        report.settled,
        [(tx(1), SettleOutcome::Confirmed(written(&w)[0].payment.id))]
    );
    // An unresolved transaction in the trail never moves the cursor backwards.
    let mut chain = node(111, 110 - 16, 111, vec![logged(2, 100)]);
    expect_receipt(&mut chain, tx(2), Err(unavailable()));
    let mut store = MockSettlementStore::new();
    store.expect_chain_cursor().return_const(Ok(Some(110)));
    store.expect_pending_payments().return_const(Ok(vec![]));
    store.expect_booked_payments().return_const(Ok(vec![]));
    no_writes(&mut store);
    let report = scan(&Harness::new(chain, store), &mut state).unwrap();
    assert_eq!((report.cursor, report.unresolved.len()), (110, 1));
}

#[test]
fn the_trail_is_at_least_the_depth_and_at_most_half_a_range() {
    let mut chain = node(5000, 4000 - 250, 4249, vec![]);
    chain.expect_checkout_paid_logs().never();
    let mut store = MockSettlementStore::new();
    store.expect_chain_cursor().return_const(Ok(Some(4000)));
    store.expect_set_chain_cursor().return_const(Ok(()));
    store.expect_pending_payments().return_const(Ok(vec![]));
    store.expect_booked_payments().return_const(Ok(vec![]));
    let mut state = ScanState::new(500).with_trail(10_000);
    let report = scan(&Harness::new(chain, store), &mut state).unwrap();
    assert_eq!(report.read, Some((3750, 4249)));
    assert_eq!(report.cursor, 4250);
}

#[test]
fn rechecks_go_round_robin_so_long_pending_payments_cannot_starve_newer_ones() {
    // 200 payments that stay pending fill the first batch; the next tick continues after
    // the last of them, and a short batch wraps around to the oldest again.
    let s = session();
    let stuck: Vec<PendingPayment> = (0..200)
        .map(|_| PendingPayment {
            payment: recorded(&s, &receipt(&s), PaymentStatus::Pending),
            tx_hash: receipt(&s).tx_hash,
            block_number: receipt(&s).block_number,
            receipt_misses: 0,
            last_miss_head: None,
        })
        .collect();
    let last = stuck[199].payment.id;
    let mut state = ScanState::new(1000).with_trail(0);
    // Each tick's `after` proves where the previous one left off.
    for (after, batch) in [(None, stuck.clone()), (Some(last), vec![]), (None, vec![])] {
        let mut chain = node_at(110);
        // The cursor is ahead of the head: no log read; every re-check finds no receipt
        // and no replaced block (a lagging node), so every payment stays pending.
        chain.expect_receipt().return_const(Ok(None));
        chain.expect_block_hash().return_const(Ok(Some(bhash(1))));
        let mut store = MockSettlementStore::new();
        store.expect_chain_cursor().return_const(Ok(Some(111)));
        store
            .expect_pending_payments()
            .withf(move |c, a, limit| (*c, *a, *limit) == (CHAIN, after, 200))
            .times(1)
            .return_const(Ok(batch.clone()));
        store.expect_booked_payments().return_const(Ok(vec![]));
        no_writes(&mut store);
        let report = scan(&Harness::new(chain, store), &mut state).unwrap();
        assert_eq!(report.rechecked.len(), batch.len());
    }
}

// ---- the getLogs range ---------------------------------------------------------------

#[test]
fn a_refused_range_is_halved_and_retried_within_the_tick() {
    let mut chain = node_at(5000);
    let tos = logs_recorded(&mut chain, |call| {
        if call == 0 {
            Err(refused())
        } else {
            Ok(vec![])
        }
    });
    let h = Harness::new(chain, scan_store(vec![], vec![], Some(100), Some(600)));
    let mut state = ScanState::new(1000).with_trail(0);
    let report = scan(&h, &mut state).unwrap();
    assert_eq!(*tos.lock().unwrap(), [1099, 599]);
    assert_eq!((report.read, report.cursor), (Some((100, 599)), 600));
    assert_eq!(state.range.current(), 500);
}

#[test]
fn the_range_gives_up_after_three_retries_but_the_rechecks_still_run() {
    let mut chain = node_at(5000);
    let tos = logs_recorded(&mut chain, |_| Err(refused()));
    let mut store = MockSettlementStore::new();
    store.expect_chain_cursor().return_const(Ok(Some(100)));
    store
        .expect_pending_payments()
        .times(1)
        .return_const(Ok(vec![]));
    store.expect_booked_payments().return_const(Ok(vec![]));
    no_writes(&mut store);
    let h = Harness::new(chain, store);
    let mut state = ScanState::new(1000).with_trail(0);
    let report = scan(&h, &mut state).unwrap();
    assert!(report.log_error.is_some(), "{report:?}");
    assert_eq!((report.read, report.cursor), (None, 100));
    assert_eq!(*tos.lock().unwrap(), [1099, 599, 349, 224]);
    assert_eq!(state.range.current(), 125);
}

#[test]
fn a_single_block_range_cannot_shrink() {
    assert_eq!(ScanState::new(0).range.current(), 1);
    let mut chain = node_at(5000);
    let tos = logs_recorded(&mut chain, |_| Err(refused()));
    let mut store = MockSettlementStore::new();
    store.expect_chain_cursor().return_const(Ok(Some(100)));
    store.expect_pending_payments().return_const(Ok(vec![]));
    store.expect_booked_payments().return_const(Ok(vec![]));
    no_writes(&mut store);
    let h = Harness::new(chain, store);
    let mut state = ScanState::new(1).with_trail(0);
    assert!(scan(&h, &mut state).unwrap().log_error.is_some());
    assert_eq!(*tos.lock().unwrap(), [100]);
}

#[test]
fn a_shrunk_range_grows_back_after_sixteen_successful_reads() {
    let mut state = ScanState::new(1000).with_trail(0);
    for tick in 0..=15 {
        let mut chain = node_at(5000);
        let tos = logs_recorded(&mut chain, move |call| {
            if tick == 0 && call == 0 {
                Err(refused())
            } else {
                Ok(vec![])
            }
        });
        let h = Harness::new(chain, scan_store(vec![], vec![], Some(100), Some(600)));
        scan(&h, &mut state).unwrap();
        assert_eq!(tos.lock().unwrap().last(), Some(&599), "tick {tick}");
        let expected = if tick < 15 { 500 } else { 1000 };
        assert_eq!(state.range.current(), expected, "after tick {tick}");
    }
}

// ---- the pending re-checks -----------------------------------------------------------

#[test]
fn a_failing_recheck_does_not_stop_the_next_one() {
    let (s1, s2) = (session(), session());
    let (r1, r2) = (receipt_of(&s1, 1, 100), receipt_of(&s2, 2, 100));
    let (p1, p2) = (pending(&s1, &r1, 0, None), pending(&s2, &r2, 0, None));
    let id2 = p2.payment.id;
    let mut chain = node(110, 110, 110, vec![]);
    expect_receipt(
        &mut chain,
        tx(1),
        Err(ChainError::Unavailable("timeout".into())),
    );
    expect_receipt(&mut chain, tx(2), Ok(Some(r2)));
    let mut store = scan_store(vec![s1, s2], vec![p1, p2], Some(110), None);
    let _w = expect_write(&mut store, move |w| {
        is_completing_write(w) && w.payment.id == id2 && w.replaces == Some(PaymentStatus::Pending)
    });
    let h = Harness::new(chain, store);
    let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
    assert_eq!(
        report.recheck_errors,
        [(tx(1), "chain unavailable: timeout".to_string())]
    );
    assert_eq!(report.rechecked, [(tx(2), SettleOutcome::Confirmed(id2))]);
}

#[test]
fn a_pending_payment_whose_transaction_was_scanned_is_not_rechecked() {
    let s = session();
    let r = receipt_of(&s, 1, 105);
    let p = pending(&s, &r, 0, None);
    let id = p.payment.id;
    let mut chain = node(110, 100, 110, vec![logged(1, 105)]);
    expect_receipt(&mut chain, tx(1), Ok(Some(r)));
    let mut store = scan_store(vec![s], vec![p], Some(100), Some(110));
    let _w = expect_write(&mut store, is_completing_write);
    let h = Harness::new(chain, store);
    let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
    assert_eq!(report.settled, [(tx(1), SettleOutcome::Confirmed(id))]);
    assert!(report.rechecked.is_empty() && report.recheck_errors.is_empty());
}

#[test]
fn a_cursor_ahead_of_the_head_reads_nothing_but_still_rechecks() {
    let s = session();
    let r = receipt(&s);
    let p = pending(&s, &r, 0, None);
    let id = p.payment.id;
    let mut chain = node_at(110);
    chain.expect_checkout_paid_logs().never();
    expect_receipt(&mut chain, tx(1), Ok(Some(r)));
    let mut store = scan_store(vec![s], vec![p], Some(120), None);
    let _w = expect_write(&mut store, is_completing_write);
    let h = Harness::new(chain, store);
    let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
    assert_eq!((report.read, report.cursor), (None, 120));
    assert_eq!(report.rechecked, [(tx(1), SettleOutcome::Confirmed(id))]);
}

// ---- errors --------------------------------------------------------------------------

#[test]
fn a_head_rpc_error_is_an_error_and_touches_nothing() {
    let mut chain = MockChainReader::new();
    chain
        .expect_block_number()
        .return_const(Err(ChainError::Unavailable("timeout".into())));
    chain.expect_checkout_paid_logs().never();
    let mut store = MockSettlementStore::new();
    store.expect_chain_cursor().never();
    store.expect_pending_payments().never();
    no_writes(&mut store);
    let h = Harness::new(chain, store);
    let err = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap_err();
    assert!(
        matches!(err, SettleError::Chain(ChainError::Unavailable(_))),
        "{err:?}"
    );
}

#[test]
fn a_chain_missing_from_the_directory_is_refused_before_any_read() {
    let mut chain = MockChainReader::new();
    chain.expect_block_number().never();
    let mut store = MockSettlementStore::new();
    store.expect_chain_cursor().never();
    no_writes(&mut store);
    let mut h = Harness::new(chain, store);
    h.chains = ChainDirectory::default();
    let err = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap_err();
    assert!(
        matches!(err, SettleError::ChainNotConfigured(84532)),
        "{err:?}"
    );
}
