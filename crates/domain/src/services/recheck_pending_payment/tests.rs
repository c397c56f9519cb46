//! Tests of `recheck_pending_payment`, on the settlement fixtures.

use futures_executor::block_on;

use crate::deployment::ChainDirectory;
use crate::model::{Address, BlockHash, CheckoutSession, PaymentStatus};
use crate::ports::{
    ChainError, ChainReceipt, MockChainReader, MockSettlementStore, PendingPayment, StoreError,
};
use crate::rules::confirmations::RECEIPT_MISSES_BEFORE_FAILED;
use crate::services::fixtures::settlement::*;
use crate::services::{recheck_pending_payment, SettleError, SettleOutcome};

fn recheck(h: &Harness, p: &PendingPayment, head: u64) -> Result<SettleOutcome, SettleError> {
    block_on(recheck_pending_payment(p, head, &h.deps()))
}

/// A store that knows `s` and `p` but must write nothing: no settlement, no miss, no failure.
fn quiet_store(s: &CheckoutSession, p: &PendingPayment) -> MockSettlementStore {
    let mut store = store_of(vec![s.clone()], vec![p.payment.clone()]);
    no_writes(&mut store);
    store
}

/// A store that expects `p` to be failed once (answering `still_pending`), and nothing else.
fn failing_store(p: &PendingPayment, still_pending: bool) -> MockSettlementStore {
    let id = p.payment.id;
    let mut store = MockSettlementStore::new();
    store.expect_session_by_ref().never();
    store.expect_record_checkout_settlement().never();
    store.expect_record_receipt_miss().never();
    store
        .expect_fail_pending_payment()
        .withf(move |p| p.payment.id == id)
        .times(1)
        .return_const(Ok(still_pending));
    store
}

/// A node with no receipt for `tx(1)` whose canonical block at `number` is `canonical`.
fn no_receipt(number: u64, canonical: Result<Option<BlockHash>, ChainError>) -> MockChainReader {
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(None));
    expect_block_hash(&mut chain, number, canonical);
    chain
}

// ---- a receipt is returned -----------------------------------------------------------

#[test]
fn a_receipt_that_pays_at_depth_confirms_through_the_settlement() {
    let s = session();
    let r = receipt(&s);
    let p = pending(&s, &r, 1, Some(BLOCK));
    let id = p.payment.id;
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(Some(r)));
    chain.expect_block_hash().never();
    let mut store = store_of(vec![s], vec![p.payment.clone()]);
    store.expect_fail_pending_payment().never();
    store.expect_record_receipt_miss().never();
    let _w = expect_write(&mut store, move |w| {
        is_completing_write(w) && w.replaces == Some(PaymentStatus::Pending) && w.payment.id == id
    });
    let h = Harness::new(chain, store);
    assert_eq!(
        recheck(&h, &p, BLOCK + 1).unwrap(),
        SettleOutcome::Confirmed(id)
    );
}

#[test]
fn a_receipt_that_pays_below_depth_is_never_failed() {
    let s = session();
    let r = receipt(&s);
    let p = pending(&s, &r, 0, None);
    let id = p.payment.id;
    // Unchanged: nothing to write.
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(Some(r.clone())));
    let h = Harness::new(chain, quiet_store(&s, &p));
    assert_eq!(
        recheck(&h, &p, BLOCK).unwrap(),
        SettleOutcome::AlreadyRecorded(id)
    );
    // Re-mined into a later block, still below depth: moved, still pending.
    let moved = ChainReceipt {
        block_number: BLOCK + 2,
        block_hash: bhash(2),
        ..r
    };
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(Some(moved)));
    let mut store = store_of(vec![s], vec![p.payment.clone()]);
    store.expect_fail_pending_payment().never();
    let _w = expect_write(&mut store, move |w| {
        is_pending_write(w)
            && w.replaces == Some(PaymentStatus::Pending)
            && (w.payment.id, w.payment.block_hash) == (id, Some(bhash(2)))
    });
    let h = Harness::new(chain, store);
    assert_eq!(
        recheck(&h, &p, BLOCK + 2).unwrap(),
        SettleOutcome::Pending(id)
    );
}

#[test]
fn a_paying_receipt_the_settlement_rejects_leaves_the_payment_pending() {
    let s = session();
    let mut r = receipt(&s);
    r.checkout_paid[0].net_amount += 1;
    let p = pending(&s, &receipt(&s), 0, None);
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(Some(r)));
    let h = Harness::new(chain, quiet_store(&s, &p));
    assert_eq!(
        recheck(&h, &p, BLOCK + 10).unwrap(),
        SettleOutcome::Pending(p.payment.id)
    );
}

#[test]
fn a_receipt_that_reverted_when_re_mined_fails_the_payment_only_at_its_own_depth() {
    let s = session();
    let p = pending(&s, &receipt(&s), 0, None);
    let id = p.payment.id;
    // Re-mined three blocks later and reverted: the recorded block is deep, the receipt's
    // is not.
    let mut r = receipt(&s);
    r.block_number = BLOCK + 3;
    r.block_hash = bhash(3);
    r.succeeded = false;
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(Some(r.clone())));
    let mut store = MockSettlementStore::new();
    store.expect_session_by_ref().never();
    no_writes(&mut store);
    let h = Harness::new(chain, store);
    assert_eq!(
        recheck(&h, &p, BLOCK + 3).unwrap(),
        SettleOutcome::Pending(id)
    );
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(Some(r)));
    let h = Harness::new(chain, failing_store(&p, true));
    assert_eq!(
        recheck(&h, &p, BLOCK + 4).unwrap(),
        SettleOutcome::Failed(id)
    );
}

#[test]
fn a_successful_receipt_without_this_sessions_log_is_no_proof_and_stays_pending() {
    let s = session();
    let p = pending(&s, &receipt(&s), 0, None);
    let id = p.payment.id;
    let other_session = paid(&session()).reference;
    let not_ours: [fn(&mut ChainReceipt, [u8; 32]); 2] = [
        |r, other| r.checkout_paid[0].reference = other,
        // e.g. the router address was reconfigured while the payment was pending
        |r, _| r.checkout_paid[0].router = Address::from_bytes([0x66; 20]),
    ];
    for (case, change) in not_ours.into_iter().enumerate() {
        let mut r = receipt(&s);
        change(&mut r, other_session);
        let mut chain = MockChainReader::new();
        expect_receipt(&mut chain, tx(1), Ok(Some(r)));
        let mut store = MockSettlementStore::new();
        store.expect_session_by_ref().never();
        no_writes(&mut store);
        let h = Harness::new(chain, store);
        let deep = recheck(&h, &p, BLOCK + 10).unwrap();
        assert_eq!(deep, SettleOutcome::Pending(id), "case {case}");
    }
}

#[test]
fn failing_a_payment_that_is_no_longer_pending_is_already_recorded() {
    let s = session();
    let p = pending(&s, &receipt(&s), 0, None);
    let mut r = receipt(&s);
    r.succeeded = false;
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(Some(r)));
    let h = Harness::new(chain, failing_store(&p, false));
    assert_eq!(
        recheck(&h, &p, BLOCK + 1).unwrap(),
        SettleOutcome::AlreadyRecorded(p.payment.id)
    );
}

// ---- no receipt ----------------------------------------------------------------------

#[test]
fn a_lagging_node_that_still_has_the_recorded_block_changes_nothing() {
    let s = session();
    // Even with every miss counted and the block deep, the node still has our block.
    let p = pending(
        &s,
        &receipt(&s),
        RECEIPT_MISSES_BEFORE_FAILED,
        Some(BLOCK + 1),
    );
    let h = Harness::new(no_receipt(BLOCK, Ok(Some(bhash(1)))), quiet_store(&s, &p));
    assert_eq!(
        recheck(&h, &p, BLOCK + 10).unwrap(),
        SettleOutcome::Pending(p.payment.id)
    );
}

#[test]
fn a_node_without_the_recorded_block_changes_nothing() {
    let s = session();
    let p = pending(
        &s,
        &receipt(&s),
        RECEIPT_MISSES_BEFORE_FAILED,
        Some(BLOCK + 1),
    );
    let h = Harness::new(no_receipt(BLOCK, Ok(None)), quiet_store(&s, &p));
    assert_eq!(
        recheck(&h, &p, BLOCK + 10).unwrap(),
        SettleOutcome::Pending(p.payment.id)
    );
}

#[test]
fn a_replaced_block_counts_one_miss_per_head() {
    let s = session();
    let r = receipt(&s);
    // First miss: counted at this head.
    let p = pending(&s, &r, 0, None);
    let id = p.payment.id;
    let mut store = MockSettlementStore::new();
    store.expect_fail_pending_payment().never();
    store
        .expect_record_receipt_miss()
        .withf(move |p, misses, head| (*p, *misses, *head) == (id, 1, BLOCK + 5))
        .times(1)
        .return_const(Ok(()));
    let h = Harness::new(no_receipt(BLOCK, Ok(Some(bhash(9)))), store);
    assert_eq!(
        recheck(&h, &p, BLOCK + 5).unwrap(),
        SettleOutcome::Pending(id)
    );
    // Checked again at the same head (or at an older one): not counted, not failed, even
    // one miss short of the threshold.
    for misses in [1, RECEIPT_MISSES_BEFORE_FAILED - 1] {
        for head in [BLOCK + 5, BLOCK + 4] {
            let p = pending(&s, &r, misses, Some(BLOCK + 5));
            let h = Harness::new(no_receipt(BLOCK, Ok(Some(bhash(9)))), quiet_store(&s, &p));
            let outcome = recheck(&h, &p, head).unwrap();
            let expected = SettleOutcome::Pending(p.payment.id);
            assert_eq!(outcome, expected, "{misses} misses, head {head}");
        }
    }
}

#[test]
fn the_last_miss_at_a_new_head_fails_a_payment_whose_block_is_deep() {
    let s = session();
    let p = pending(
        &s,
        &receipt(&s),
        RECEIPT_MISSES_BEFORE_FAILED - 1,
        Some(BLOCK + 4),
    );
    let h = Harness::new(
        no_receipt(BLOCK, Ok(Some(bhash(9)))),
        failing_store(&p, true),
    );
    assert_eq!(
        recheck(&h, &p, BLOCK + 5).unwrap(),
        SettleOutcome::Failed(p.payment.id)
    );
}

#[test]
fn enough_misses_do_not_fail_a_payment_whose_block_is_not_deep() {
    let s = session();
    let mut r = receipt(&s);
    r.block_number = BLOCK + 5;
    let p = pending(&s, &r, RECEIPT_MISSES_BEFORE_FAILED - 1, Some(BLOCK + 4));
    let id = p.payment.id;
    let mut store = MockSettlementStore::new();
    store.expect_fail_pending_payment().never();
    store
        .expect_record_receipt_miss()
        .withf(move |p, misses, head| {
            (*p, *misses, *head) == (id, RECEIPT_MISSES_BEFORE_FAILED, BLOCK + 5)
        })
        .times(1)
        .return_const(Ok(()));
    let h = Harness::new(no_receipt(BLOCK + 5, Ok(Some(bhash(9)))), store);
    assert_eq!(
        recheck(&h, &p, BLOCK + 5).unwrap(),
        SettleOutcome::Pending(id)
    );
}

#[test]
fn a_legacy_payment_without_a_block_hash_is_never_failed() {
    let s = session();
    let mut p = pending(
        &s,
        &receipt(&s),
        RECEIPT_MISSES_BEFORE_FAILED + 5,
        Some(BLOCK),
    );
    p.payment.block_hash = None;
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(None));
    chain.expect_block_hash().never();
    let h = Harness::new(chain, quiet_store(&s, &p));
    assert_eq!(
        recheck(&h, &p, BLOCK + 100).unwrap(),
        SettleOutcome::Pending(p.payment.id)
    );
}

// ---- errors --------------------------------------------------------------------------

#[test]
fn rpc_errors_are_errors_and_write_nothing() {
    let s = session();
    let p = pending(&s, &receipt(&s), RECEIPT_MISSES_BEFORE_FAILED, Some(BLOCK));
    let down = || ChainError::Unavailable("timeout".into());
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Err(down()));
    chain.expect_block_hash().never();
    let h = Harness::new(chain, quiet_store(&s, &p));
    let err = recheck(&h, &p, BLOCK + 10).unwrap_err();
    assert!(
        matches!(err, SettleError::Chain(ChainError::Unavailable(_))),
        "{err:?}"
    );
    let h = Harness::new(no_receipt(BLOCK, Err(down())), quiet_store(&s, &p));
    let err = recheck(&h, &p, BLOCK + 10).unwrap_err();
    assert!(
        matches!(err, SettleError::Chain(ChainError::Unavailable(_))),
        "{err:?}"
    );
}

#[test]
fn a_store_error_while_counting_a_miss_is_an_error() {
    let s = session();
    let p = pending(&s, &receipt(&s), 0, None);
    let mut store = MockSettlementStore::new();
    store
        .expect_record_receipt_miss()
        .times(1)
        .return_const(Err(StoreError::Unavailable("db".into())));
    let h = Harness::new(no_receipt(BLOCK, Ok(Some(bhash(9)))), store);
    let err = recheck(&h, &p, BLOCK + 5).unwrap_err();
    assert!(matches!(err, SettleError::Store(_)), "{err:?}");
}

#[test]
fn a_chain_missing_from_the_directory_is_refused_before_any_read() {
    let s = session();
    let p = pending(&s, &receipt(&s), 0, None);
    let mut chain = MockChainReader::new();
    chain.expect_receipt().never();
    let mut h = Harness::new(chain, quiet_store(&s, &p));
    h.chains = ChainDirectory::default();
    let err = recheck(&h, &p, BLOCK + 5).unwrap_err();
    assert!(
        matches!(err, SettleError::ChainNotConfigured(84532)),
        "{err:?}"
    );
}

#[test]
fn a_transaction_paying_two_sessions_reports_the_outcome_of_this_payment() {
    // One transaction pays session A (log 2) then session B (log 5); B's payment is
    // re-checked at depth. Both settle; the answer is B's.
    let a = session();
    let b = CheckoutSession {
        id: crate::model::CheckoutSessionId::generate(),
        ..session()
    };
    let mut r = receipt(&a);
    r.checkout_paid.push(crate::ports::CheckoutPaid {
        log_index: 5,
        ..paid(&b)
    });
    r.transfers
        .push(transfer(b.recipient_address, b.net_micros, 3));
    r.transfers.push(transfer(treasury(), b.fee_micros, 4));
    let a_payment = recorded(&a, &r, PaymentStatus::Confirmed);
    let mut b_pending = pending(&b, &r, 0, None);
    b_pending.payment.log_index = Some(5);
    let b_id = b_pending.payment.id;
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(Some(r)));
    let mut store = store_of(
        vec![a, b],
        vec![a_payment.clone(), b_pending.payment.clone()],
    );
    store.expect_fail_pending_payment().never();
    let _w = expect_write(&mut store, move |w| {
        w.payment.id == b_id && is_completing_write(w)
    });
    let h = Harness::new(chain, store);
    assert_eq!(
        recheck(&h, &b_pending, BLOCK + 1).unwrap(),
        SettleOutcome::Confirmed(b_id),
        "not A's AlreadyRecorded({})",
        a_payment.id
    );
}
