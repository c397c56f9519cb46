//! Tests of `reconcile_ledger` on mocked ports, on the settlement fixtures' router payment.

use futures_executor::block_on;

use crate::model::{RefundId, TxHash};
use crate::ports::{
    BookedRefund, BookedTx, BooksInRange, ChainReceipt, LoggedTx, MockChainReader,
    MockReconcileStore, MockSettlementStore,
};
use crate::services::fixtures::settlement::*;
use crate::services::{reconcile_ledger, Difference, ReconcileReport};

const GROSS: i64 = (NET + FEE) as i64;

/// A chain whose router logged `logged` in blocks 90..=110 and which answers `receipts`.
fn chain(logged: Vec<TxHash>, receipts: Vec<(TxHash, Option<ChainReceipt>)>) -> MockChainReader {
    let mut chain = MockChainReader::new();
    let logs: Vec<LoggedTx> = logged
        .into_iter()
        .map(|tx_hash| LoggedTx {
            tx_hash,
            block_number: BLOCK,
            block_hash: bhash(1),
        })
        .collect();
    chain
        .expect_checkout_paid_logs()
        .withf(|c, _, from, to| (*c, *from, *to) == (CHAIN, 90, 110))
        .times(1)
        .return_const(Ok(logs));
    for (tx, receipt) in receipts {
        expect_receipt(&mut chain, tx, Ok(receipt));
    }
    chain
}

fn run(chain: MockChainReader, books: BooksInRange) -> ReconcileReport {
    let mut store = MockReconcileStore::new();
    store.expect_books_in_range().return_const(Ok(books));
    let h = Harness::new(chain, MockSettlementStore::new());
    block_on(reconcile_ledger(CHAIN, 90, 110, &h.deps(), &store)).unwrap()
}

fn booked(tx: TxHash, amount: i64, fee: i64) -> BookedTx {
    BookedTx {
        tx_hash: tx,
        amount_micros: amount,
        fee_micros: fee,
    }
}

#[test]
fn books_equal_to_the_chain_have_no_difference() {
    let s = session();
    let books = BooksInRange {
        txs: vec![booked(tx(1), GROSS, FEE as i64)],
        ..BooksInRange::default()
    };
    let report = run(chain(vec![tx(1)], vec![(tx(1), Some(receipt(&s)))]), books);
    assert_eq!(report.transactions, 1);
    assert!(report.differences.is_empty(), "{:?}", report.differences);
    assert!(report.unverified.is_empty());
}

#[test]
fn each_kind_of_difference_is_found_and_named() {
    let s = session();
    let paid = |n| ChainReceipt {
        tx_hash: tx(n),
        ..receipt(&s)
    };
    let books = BooksInRange {
        txs: vec![
            // The amount differs; the split differs; reverted on chain; reversed (nets
            // to nothing, so not read at all).
            booked(tx(2), GROSS + 1, FEE as i64),
            booked(tx(3), GROSS, FEE as i64 + 5),
            booked(tx(4), GROSS, FEE as i64),
            booked(tx(6), 0, 0),
        ],
        refunds: vec![BookedRefund {
            refund: RefundId::generate(),
            tx_hash: tx(7),
            log_index: 9,
            token: token(),
            amount_micros: 1_000_000,
        }],
        deposits: Vec::new(),
    };
    let reverted = ChainReceipt {
        succeeded: false,
        ..paid(4)
    };
    let refund = ChainReceipt {
        tx_hash: tx(7),
        checkout_paid: Vec::new(),
        transfers: vec![transfer(payer(), 999_999, 9)],
        ..receipt(&s)
    };
    let report = run(
        chain(
            vec![tx(2), tx(3), tx(4), tx(5)],
            vec![
                (tx(2), Some(paid(2))),
                (tx(3), Some(paid(3))),
                (tx(4), Some(reverted)),
                (tx(5), Some(paid(5))),
                (tx(7), Some(refund)),
            ],
        ),
        books,
    );
    let found: Vec<String> = report.differences.iter().map(|d| d.to_string()).collect();
    assert_eq!(report.differences.len(), 5, "{found:#?}");
    let d = &report.differences;
    assert!(matches!(d[0], Difference::AmountDiffers { tx: t, .. } if t == tx(2)));
    assert!(matches!(d[1], Difference::SplitDiffers { tx: t, .. } if t == tx(3)));
    assert!(matches!(d[2], Difference::BookedNotOnChain { tx: t, .. } if t == tx(4)));
    assert!(matches!(d[3], Difference::OnChainNotBooked { tx: t, .. } if t == tx(5)));
    assert!(matches!(
        d[4],
        Difference::RefundDiffers {
            on_chain_micros: Some(999_999),
            ..
        }
    ));
    assert!(
        found[0].contains("is booked at 10.000001 and moved 10"),
        "{}",
        found[0]
    );
}

#[test]
fn a_missing_receipt_is_unverified_never_a_difference() {
    let books = BooksInRange {
        txs: vec![booked(tx(1), GROSS, FEE as i64)],
        ..BooksInRange::default()
    };
    let report = run(chain(vec![], vec![(tx(1), None)]), books);
    assert!(report.differences.is_empty());
    assert_eq!(report.unverified.len(), 1);
}
