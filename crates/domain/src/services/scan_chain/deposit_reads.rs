//! How a tick finds deposits (issue 42 item 7): one read of the configured tokens'
//! `Transfer` logs per range, and one lookup of the recipients they name, whatever the
//! number of open deposit sessions.

use crate::deployment::{ChainContracts, ChainDirectory};
use crate::ports::TransferLog;
use crate::services::fixtures::settlement::*;
use crate::services::{ScanState, LATE_DEPOSIT_WINDOW_SECS};

use super::tests::{logged, node, scan, scan_store};

fn with_deposit_factory() -> ChainDirectory {
    ChainDirectory::new(vec![ChainContracts {
        chain: CHAIN,
        checkout_router: router(),
        treasury: treasury(),
        subscription_manager: None,
        deposit_factory: Some(addr(0x30)),
        confirmations: DEPTH,
    }])
}

/// No pending deposit to re-check and no ended session to book: the tick's other work.
fn nothing_pending(h: &mut Harness) {
    h.deposits
        .expect_pending_deposit_transfers()
        .return_const(Ok(vec![]));
    h.deposits
        .expect_sessions_with_unrecorded_deposits()
        .return_const(Ok(vec![]));
}

#[test]
fn only_transfers_to_watched_addresses_are_settled_after_one_lookup_of_their_recipients() {
    let (watched, stranger) = (addr(0x51), addr(0x52));
    let transfer = |n: u8, to| TransferLog {
        tx: logged(n, 105),
        to,
    };
    let mut chain = node(110, 100, 110, vec![]);
    chain
        .expect_token_transfers()
        .withf(|c, tokens, from, to| (*c, tokens, *from, *to) == (CHAIN, &[token()][..], 100, 110))
        .times(1)
        .return_const(Ok(vec![
            transfer(3, stranger),
            transfer(4, watched),
            transfer(4, watched),
            transfer(5, stranger),
        ]));
    // Only the watched address's transaction is looked at (its receipt is not known yet,
    // so it holds the cursor at its block).
    expect_receipt(&mut chain, tx(4), Err(unavailable()));
    let store = scan_store(vec![], vec![], Some(100), Some(105));
    let mut h = Harness::new(chain, store);
    h.chains = with_deposit_factory();
    h.deposits
        .expect_watched_among()
        .withf(move |c, candidates, since| {
            *c == CHAIN
                && candidates == [watched, stranger]
                && *since == now().plus_seconds(-LATE_DEPOSIT_WINDOW_SECS)
        })
        .times(1)
        .returning(move |_, _, _| Ok(vec![watched]));
    nothing_pending(&mut h);
    let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
    let unresolved: Vec<_> = report.unresolved.iter().map(|(t, _)| *t).collect();
    assert_eq!(unresolved, [tx(4)]);
    assert_eq!(report.cursor, 105);
}

#[test]
fn a_range_without_transfers_looks_nothing_up() {
    let mut chain = node(110, 100, 110, vec![]);
    chain
        .expect_token_transfers()
        .times(1)
        .return_const(Ok(vec![]));
    let store = scan_store(vec![], vec![], Some(100), Some(110));
    let mut h = Harness::new(chain, store);
    h.chains = with_deposit_factory();
    h.deposits.expect_watched_among().never();
    nothing_pending(&mut h);
    let report = scan(&h, &mut ScanState::new(1000).with_trail(0)).unwrap();
    assert_eq!(report.cursor, 110);
    assert!(report.log_error.is_none());
}
