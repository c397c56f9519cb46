//! Tests of the re-check of booked payments (D32), on the settlement fixtures.

use std::sync::{Arc, Mutex};

use futures_executor::block_on;

use crate::model::{BalanceType, CheckoutSession, PaymentStatus};
use crate::ports::{
    BookedPayment, ChainReceipt, MockChainReader, MockSettlementStore, Rebooking, SettlementWrite,
};
use crate::rules::confirmations::RECEIPT_MISSES_BEFORE_FAILED;
use crate::rules::ledger::{payment_entries, MoneyIn};
use crate::services::fixtures::settlement::*;
use crate::services::{recheck_booked_payment, recheck_booked_payments, BookedCheck};

/// `s`'s confirmed payment booked from `r`, with what earlier re-checks learnt.
fn booked(s: &CheckoutSession, r: &ChainReceipt, misses: u32, last: Option<u64>) -> BookedPayment {
    BookedPayment {
        payment: recorded(s, r, PaymentStatus::Confirmed),
        tx_hash: r.tx_hash,
        block_number: r.block_number,
        block_hash: r.block_hash,
        receipt_misses: misses,
        last_miss_head: last,
    }
}

/// A store holding `b`'s ledger history (its booking, plus `extra`) that records every
/// rebooking it is asked to write.
fn books(b: &BookedPayment, extra: bool) -> (MockSettlementStore, Arc<Mutex<Vec<Rebooking>>>) {
    let mut history =
        payment_entries(&b.payment, MoneyIn::Payment, block_time(), now()).expect("mined");
    if extra {
        history.extend(crate::rules::ledger::reversal_of_payment(&history, now()));
    }
    let mut store = MockSettlementStore::new();
    store
        .expect_payment_history()
        .returning(move |_| Ok(history.clone()));
    let written = Arc::new(Mutex::new(Vec::new()));
    let sink = written.clone();
    store.expect_rebook_payment().returning(move |r| {
        sink.lock().unwrap().push(r.clone());
        Ok(SettlementWrite::Written)
    });
    store.expect_record_receipt_miss().never();
    (store, written)
}

fn check(h: &Harness, b: &BookedPayment, head: u64) -> BookedCheck {
    block_on(recheck_booked_payment(b, head, &h.deps())).expect("checked")
}

fn kinds(r: &Rebooking) -> Vec<BalanceType> {
    r.ledger.iter().map(|e| e.kind).collect()
}

#[test]
fn a_payment_re_mined_in_another_block_at_depth_is_reversed_and_booked_anew() {
    let s = session();
    let r = receipt(&s);
    let b = booked(&s, &r, 0, None);
    let moved = ChainReceipt {
        block_number: BLOCK + 1,
        block_hash: bhash(9),
        ..r
    };
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(Some(moved)));
    let (store, written) = books(&b, false);
    let h = Harness::new(chain, store);
    assert_eq!(check(&h, &b, BLOCK + DEPTH), BookedCheck::Rebooked);
    let w = written.lock().unwrap();
    assert_eq!(kinds(&w[0]), [BalanceType::Reversal, BalanceType::Payment]);
    assert_eq!(
        w[0].replaces,
        (PaymentStatus::Confirmed, r.block_hash, false)
    );
    assert_eq!(
        (
            w[0].payment.status,
            w[0].payment.block_hash,
            w[0].payment.block_number
        ),
        (PaymentStatus::Confirmed, Some(bhash(9)), Some(BLOCK + 1))
    );
    let net: i64 = w[0].ledger.iter().map(|e| e.net_micros).sum();
    assert_eq!(net, 0, "the move nets to nothing");
    assert_eq!(w[0].ledger[1].block_number, Some(BLOCK + 1));
}

#[test]
fn a_re_mined_payment_below_depth_waits() {
    let s = session();
    let r = receipt(&s);
    let b = booked(&s, &r, 0, None);
    let moved = ChainReceipt {
        block_number: BLOCK + 5,
        block_hash: bhash(9),
        ..r
    };
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(Some(moved)));
    let (store, written) = books(&b, false);
    let h = Harness::new(chain, store);
    assert_eq!(check(&h, &b, BLOCK + 5), BookedCheck::Standing);
    assert!(written.lock().unwrap().is_empty());
}

#[test]
fn a_missing_receipt_is_counted_once_per_head_and_reverses_only_at_the_limit() {
    let s = session();
    let r = receipt(&s);
    // A miss below the limit is remembered, nothing is booked.
    let b = booked(&s, &r, 0, None);
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(None));
    let mut store = MockSettlementStore::new();
    store.expect_rebook_payment().never();
    store
        .expect_record_receipt_miss()
        .withf(|_, misses, head| (*misses, *head) == (1, BLOCK + 9))
        .times(1)
        .return_const(Ok(()));
    let h = Harness::new(chain, store);
    assert_eq!(check(&h, &b, BLOCK + 9), BookedCheck::Standing);

    // At the same head again: not counted, not written.
    let b = booked(&s, &r, RECEIPT_MISSES_BEFORE_FAILED - 1, Some(BLOCK + 9));
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(None));
    let (store, written) = books(&b, false);
    let h = Harness::new(chain, store);
    assert_eq!(check(&h, &b, BLOCK + 9), BookedCheck::Standing);
    assert!(written.lock().unwrap().is_empty());

    // The last miss at a new head reverses it: failed, its entries taken back.
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(None));
    let (store, written) = books(&b, false);
    let h = Harness::new(chain, store);
    assert_eq!(check(&h, &b, BLOCK + 10), BookedCheck::Reversed);
    let w = written.lock().unwrap();
    assert_eq!(kinds(&w[0]), [BalanceType::Reversal]);
    assert_eq!(w[0].ledger[0].net_micros, -(NET as i64));
    assert_eq!(
        (w[0].payment.status, w[0].payment.reversed),
        (PaymentStatus::Failed, true)
    );
}

#[test]
fn an_unknown_answer_is_never_a_verdict() {
    let s = session();
    let r = receipt(&s);
    let b = booked(&s, &r, RECEIPT_MISSES_BEFORE_FAILED, Some(BLOCK));
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Err(unavailable()));
    let (store, written) = books(&b, false);
    let h = Harness::new(chain, store);
    assert!(block_on(recheck_booked_payment(&b, BLOCK + 20, &h.deps())).is_err());
    assert!(written.lock().unwrap().is_empty());
}

#[test]
fn a_reverted_or_paymentless_receipt_at_depth_reverses() {
    let s = session();
    let r = receipt(&s);
    let b = booked(&s, &r, 0, None);
    for mined in [
        ChainReceipt {
            succeeded: false,
            block_hash: bhash(7),
            ..r.clone()
        },
        ChainReceipt {
            checkout_paid: Vec::new(),
            transfers: Vec::new(),
            block_hash: bhash(7),
            ..r.clone()
        },
    ] {
        let mut chain = MockChainReader::new();
        expect_receipt(&mut chain, tx(1), Ok(Some(mined)));
        let (store, written) = books(&b, false);
        let h = Harness::new(chain, store);
        assert_eq!(check(&h, &b, BLOCK + DEPTH), BookedCheck::Reversed);
        assert_eq!(kinds(&written.lock().unwrap()[0]), [BalanceType::Reversal]);
    }
}

#[test]
fn a_reversed_payment_mined_again_is_booked_again_without_another_reversal() {
    let s = session();
    let r = receipt(&s);
    let mut b = booked(&s, &r, RECEIPT_MISSES_BEFORE_FAILED, Some(BLOCK));
    b.payment.status = PaymentStatus::Failed;
    b.payment.reversed = true;
    // Still absent: nothing.
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(None));
    let (store, written) = books(&b, true);
    let h = Harness::new(chain, store);
    assert_eq!(check(&h, &b, BLOCK + 30), BookedCheck::Standing);
    assert!(written.lock().unwrap().is_empty());
    // Back at depth, in the very block it was booked in: booked again.
    let mut chain = MockChainReader::new();
    expect_receipt(&mut chain, tx(1), Ok(Some(r.clone())));
    let (store, written) = books(&b, true);
    let h = Harness::new(chain, store);
    assert_eq!(check(&h, &b, BLOCK + 30), BookedCheck::Rebooked);
    let w = written.lock().unwrap();
    assert_eq!(kinds(&w[0]), [BalanceType::Payment]);
    assert_eq!(w[0].replaces, (PaymentStatus::Failed, r.block_hash, true));
    assert_eq!(
        (w[0].payment.status, w[0].payment.reversed),
        (PaymentStatus::Confirmed, false)
    );
}

#[test]
fn a_tick_reads_each_block_once_and_checks_only_payments_whose_block_changed() {
    let s = session();
    let r = receipt(&s);
    let standing = booked(&s, &r, 0, None);
    let mut other = booked(&s, &r, 0, None);
    other.payment.id = crate::model::PaymentId::generate();
    let mut store = MockSettlementStore::new();
    let batch = vec![standing.clone(), other];
    store
        .expect_booked_payments()
        .withf(|c, from, after, _| (*c, *from, *after) == (CHAIN, BLOCK - 50, None))
        .times(1)
        .returning(move |_, _, _, _| Ok(batch.clone()));
    store.expect_rebook_payment().never();
    let mut chain = MockChainReader::new();
    expect_block_hash(&mut chain, BLOCK, Ok(Some(r.block_hash)));
    chain.expect_receipt().never();
    let h = Harness::new(chain, store);
    let tick = block_on(recheck_booked_payments(
        CHAIN,
        BLOCK + 50,
        BLOCK - 50,
        None,
        &h.deps(),
    ))
    .expect("ticked");
    assert!(tick.checked.is_empty());
    assert_eq!(tick.next, None, "a short batch starts over");
}

#[test]
fn a_tick_reads_at_most_eight_blocks_and_the_next_goes_on_after_them() {
    let s = session();
    let batch: Vec<BookedPayment> = (0..10u8)
        .map(|n| {
            let r = ChainReceipt {
                block_number: BLOCK + u64::from(n),
                block_hash: bhash(n),
                ..receipt(&s)
            };
            booked(&s, &r, 0, None)
        })
        .collect();
    let eighth = (batch[7].block_number, batch[7].payment.id);
    let mut store = MockSettlementStore::new();
    store
        .expect_booked_payments()
        .times(1)
        .returning(move |_, _, _, _| Ok(batch.clone()));
    let mut chain = MockChainReader::new();
    for n in 0..8u8 {
        expect_block_hash(&mut chain, BLOCK + u64::from(n), Ok(Some(bhash(n))));
    }
    chain.expect_receipt().never();
    let h = Harness::new(chain, store);
    let tick = block_on(recheck_booked_payments(
        CHAIN,
        BLOCK + 50,
        BLOCK,
        None,
        &h.deps(),
    ))
    .expect("ticked");
    assert!(tick.checked.is_empty());
    assert_eq!(
        tick.next,
        Some(eighth),
        "the ninth block waits for the next tick"
    );
}
