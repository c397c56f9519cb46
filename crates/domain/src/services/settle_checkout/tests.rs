//! Tests of `settle_checkout` / `settle_receipt` with mocked ports, on the settlement
//! fixtures (`services::fixtures::settlement`).

use futures_executor::block_on;

use super::*;
use crate::ports::{MockChainReader, MockSettlementStore};
use crate::rules::eip712::session_ref;

use crate::services::fixtures::settlement::*;

/// Settles `r` at depth for the known `s` and expects one rejection mentioning `why`, with
/// nothing looked up past the session and nothing written.
fn assert_rejected(s: CheckoutSession, r: ChainReceipt, why: &str) {
    let reference = session_ref(&s.id);
    let mut store = MockSettlementStore::new();
    store
        .expect_session_by_ref()
        .withf(move |r| *r == reference)
        .times(1)
        .return_const(Ok(Some(s)));
    store.expect_payment_for_session_tx().never();
    store.expect_customer_for().never();
    no_writes(&mut store);
    let h = Harness::new(MockChainReader::new(), store);
    match h.settle_one(&r, BLOCK + 1) {
        SettleOutcome::Rejected(m) => assert!(m.contains(why), "rejected for {m:?}, not {why:?}"),
        other => panic!("expected a rejection ({why}), got {other:?}"),
    }
}

// ---- settle_checkout: the fetches -----------------------------------------------------

#[test]
fn settle_checkout_without_a_receipt_is_unknown_and_writes_nothing() {
    let mut chain = MockChainReader::new();
    chain
        .expect_receipt()
        .withf(|c, t| *c == CHAIN && *t == tx(1))
        .times(1)
        .returning(|_, _| Ok(None));
    chain.expect_block_number().never();
    let store = untouched_store();
    let h = Harness::new(chain, store);
    let outcomes = block_on(settle_checkout(CHAIN, tx(1), &h.deps())).unwrap();
    assert_eq!(outcomes, [SettleOutcome::ReceiptUnknown]);
}

#[test]
fn settle_checkout_rpc_errors_are_chain_errors() {
    let s = session();
    let r = receipt(&s);
    // The receipt read fails.
    let mut chain = MockChainReader::new();
    chain.expect_receipt().returning(|_, _| Err(unavailable()));
    chain.expect_block_number().never();
    let mut store = MockSettlementStore::new();
    no_writes(&mut store);
    let h = Harness::new(chain, store);
    let err = block_on(settle_checkout(CHAIN, tx(1), &h.deps())).unwrap_err();
    assert!(
        matches!(err, SettleError::Chain(ChainError::Unavailable(_))),
        "{err:?}"
    );
    // The head read fails.
    let mut chain = MockChainReader::new();
    chain
        .expect_receipt()
        .returning(move |_, _| Ok(Some(r.clone())));
    chain
        .expect_block_number()
        .returning(|_| Err(unavailable()));
    let store = untouched_store();
    let h = Harness::new(chain, store);
    let err = block_on(settle_checkout(CHAIN, tx(1), &h.deps())).unwrap_err();
    assert!(
        matches!(err, SettleError::Chain(ChainError::Unavailable(_))),
        "{err:?}"
    );
}

#[test]
fn settle_checkout_judges_the_receipt_against_the_fetched_head() {
    let s = session();
    let r = receipt(&s);
    let mut chain = MockChainReader::new();
    chain
        .expect_receipt()
        .times(1)
        .returning(move |_, _| Ok(Some(r.clone())));
    chain
        .expect_block_number()
        .withf(|c| *c == CHAIN)
        .times(1)
        .returning(|_| Ok(BLOCK + 1));
    let mut store = store_of(vec![s], vec![]);
    let w = expect_write(&mut store, is_completing_write);
    let h = Harness::new(chain, store);
    let outcomes = block_on(settle_checkout(CHAIN, tx(1), &h.deps())).unwrap();
    assert_eq!(
        outcomes,
        [SettleOutcome::Confirmed(written(&w)[0].payment.id)]
    );
}

#[test]
fn a_chain_missing_from_the_directory_is_not_configured() {
    let s = session();
    let r = receipt(&s);
    let store = untouched_store();
    let mut h = Harness::new(MockChainReader::new(), store);
    h.chains = ChainDirectory::default();
    let err = h.settle(&r, BLOCK + 1).unwrap_err();
    assert!(
        matches!(err, SettleError::ChainNotConfigured(84532)),
        "{err:?}"
    );
}

// ---- settle_receipt: verification -----------------------------------------------------

#[test]
fn a_reverted_transaction_is_rejected() {
    let s = session();
    let mut r = receipt(&s);
    r.succeeded = false;
    assert_rejected(s, r.clone(), "reverted");
    // Without any router log (as a reverted transaction usually has): no lookup at all.
    r.checkout_paid.clear();
    let store = untouched_store();
    let h = Harness::new(MockChainReader::new(), store);
    assert_eq!(
        h.settle_one(&r, BLOCK + 1),
        SettleOutcome::Rejected("the transaction reverted".into())
    );
}

#[test]
fn a_transaction_without_a_log_from_the_configured_router_is_rejected() {
    let s = session();
    let mut r = receipt(&s);
    r.checkout_paid[0].router = addr(0x66);
    let store = untouched_store();
    let h = Harness::new(MockChainReader::new(), store);
    assert_eq!(
        h.settle_one(&r, BLOCK + 1),
        SettleOutcome::Rejected("the transaction has no CheckoutPaid event from the router".into())
    );
}

#[test]
fn a_log_from_another_router_is_ignored_next_to_the_router_log() {
    let (s, other) = (session(), session());
    let mut r = receipt(&s);
    // A look-alike log for another known session, from another contract: if it counted,
    // it would pay `other` too (same amounts, same legs).
    let foreign = CheckoutPaid {
        router: addr(0x66),
        ..paid(&other)
    };
    r.checkout_paid.insert(0, foreign);
    let mut store = store_of(vec![s.clone(), other], vec![]);
    let w = expect_write(&mut store, move |w| {
        w.payment.checkout_session == Some(s.id)
    });
    let h = Harness::new(MockChainReader::new(), store);
    let outcome = h.settle_one(&r, BLOCK + 1);
    assert_eq!(outcome, SettleOutcome::Confirmed(written(&w)[0].payment.id));
}

#[test]
fn an_unknown_reference_is_rejected() {
    let s = session();
    let r = receipt(&s);
    let mut store = MockSettlementStore::new();
    store
        .expect_session_by_ref()
        .times(1)
        .returning(|_| Ok(None));
    store.expect_payment_for_session_tx().never();
    no_writes(&mut store);
    let h = Harness::new(MockChainReader::new(), store);
    assert_eq!(
        h.settle_one(&r, BLOCK + 1),
        SettleOutcome::Rejected("no checkout session has this reference".into())
    );
}

#[test]
fn a_session_on_another_chain_is_rejected() {
    let s = CheckoutSession {
        chain: ChainId::Base,
        ..session()
    };
    let r = receipt(&s);
    assert_rejected(s, r, "the session belongs to another chain");
}

#[test]
fn another_token_is_rejected() {
    let s = session();
    let mut r = receipt(&s);
    r.checkout_paid[0].token = addr(0x66);
    assert_rejected(s, r, "token");
}

#[test]
fn another_recipient_is_rejected() {
    let s = session();
    let mut r = receipt(&s);
    r.checkout_paid[0].recipient = addr(0x66);
    assert_rejected(s, r, "recipient");
}

#[test]
fn other_amounts_are_rejected() {
    let s = session();
    let mut r = receipt(&s);
    r.checkout_paid[0].net_amount += 1;
    assert_rejected(s.clone(), r, "amounts");
    let mut r = receipt(&s);
    r.checkout_paid[0].fee_amount -= 1;
    assert_rejected(s, r, "amounts");
}

#[test]
fn a_missing_net_transfer_leg_is_rejected() {
    let s = session();
    let why = "no Transfer of the net amount to the recipient";
    let mut r = receipt(&s);
    r.transfers.remove(0);
    assert_rejected(s.clone(), r, why);
    // A leg of the right value that is not the payer's, or not in the session's token.
    let mut r = receipt(&s);
    r.transfers[0].from = addr(0x77);
    assert_rejected(s.clone(), r, why);
    let mut r = receipt(&s);
    r.transfers[0].token = addr(0x77);
    assert_rejected(s.clone(), r, why);
    let mut r = receipt(&s);
    r.transfers[0].value -= 1;
    assert_rejected(s, r, why);
}

#[test]
fn a_missing_fee_transfer_leg_to_the_treasury_is_rejected() {
    let s = session();
    let why = "no Transfer of the fee to the treasury";
    let mut r = receipt(&s);
    r.transfers.remove(1);
    assert_rejected(s.clone(), r, why);
    let mut r = receipt(&s);
    r.transfers[1].to = addr(0x77);
    assert_rejected(s, r, why);
}

/// A one-signature payment (D23): the payer's total reaches the router, which moves both
/// legs; the router's legs without the payer's transfer to it are not enough.
#[test]
fn legs_through_the_router_after_the_payers_transfer_to_it_are_accepted() {
    let s = session();
    let through_router = |r: &mut ChainReceipt| {
        for t in &mut r.transfers {
            t.from = router();
        }
        r.transfers
            .insert(0, transfer(router(), s.net_micros + s.fee_micros, 0));
    };
    let mut r = receipt(&s);
    through_router(&mut r);
    let mut store = store_of(vec![s.clone()], vec![]);
    let w = expect_write(&mut store, is_completing_write);
    let h = Harness::new(MockChainReader::new(), store);
    let outcome = h.settle_one(&r, BLOCK + 1);
    assert_eq!(outcome, SettleOutcome::Confirmed(written(&w)[0].payment.id));

    // Without the payer's transfer of the total (or with less), the router's legs do not count.
    let mut r = receipt(&s);
    through_router(&mut r);
    r.transfers.remove(0);
    assert_rejected(
        s.clone(),
        r,
        "no Transfer of the net amount to the recipient",
    );
    let mut r = receipt(&s);
    through_router(&mut r);
    r.transfers[0].value -= 1;
    assert_rejected(s, r, "no Transfer of the net amount to the recipient");
}

#[test]
fn a_fee_free_session_needs_no_fee_leg() {
    let s = CheckoutSession {
        fee_micros: 0,
        net_micros: NET + FEE,
        fee_bps: 0,
        ..session()
    };
    let mut r = receipt(&s);
    r.transfers.retain(|t| t.to != treasury());
    let mut store = store_of(vec![s], vec![]);
    let w = expect_write(&mut store, is_completing_write);
    let h = Harness::new(MockChainReader::new(), store);
    let outcome = h.settle_one(&r, BLOCK + 1);
    assert_eq!(outcome, SettleOutcome::Confirmed(written(&w)[0].payment.id));
}

// ---- settle_receipt: what is written --------------------------------------------------

#[test]
fn a_new_payment_below_depth_is_recorded_pending() {
    let s = session();
    let r = receipt(&s);
    let mut store = store_of(vec![s.clone()], vec![]);
    let w = expect_write(&mut store, |w| is_pending_write(w) && w.replaces.is_none());
    let h = Harness::new(MockChainReader::new(), store);
    let outcome = h.settle_one(&r, BLOCK);
    let write = written(&w).remove(0);
    assert!(
        write.ledger.is_empty(),
        "pending money is not in the ledger"
    );
    let p = &write.payment;
    assert_eq!(outcome, SettleOutcome::Pending(p.id));
    assert_eq!(
        (p.tx_hash, p.block_number, p.block_hash, p.log_index),
        (Some(tx(1)), Some(BLOCK), Some(bhash(1)), Some(2))
    );
    assert_eq!(
        (p.checkout_session, p.customer),
        (Some(s.id), Some(customer()))
    );
    assert_eq!(
        (p.merchant_id, p.mode, p.chain),
        (s.merchant_id, s.mode, CHAIN)
    );
    assert_eq!(
        (p.fee_micros, p.merchant_micros, p.refunded_micros),
        (FEE, NET, 0)
    );
    assert_eq!((p.wallet_address, p.token_address), (payer(), token()));
    assert_eq!((p.created_at, &p.metadata), (now(), &s.metadata));
}

#[test]
fn a_new_payment_at_depth_is_confirmed_and_completes_the_session() {
    let s = session();
    let r = receipt(&s);
    let mut store = store_of(vec![s.clone()], vec![]);
    let w = expect_write(&mut store, |w| {
        is_completing_write(w) && w.replaces.is_none()
    });
    let h = Harness::new(MockChainReader::new(), store);
    let outcome = h.settle_one(&r, BLOCK + 1);
    let w = written(&w).remove(0);
    assert_eq!(outcome, SettleOutcome::Confirmed(w.payment.id));
    let [entry] = w.ledger.as_slice() else {
        panic!("one ledger entry, got {:?}", w.ledger)
    };
    assert_eq!(
        (entry.kind, entry.source, entry.amount_micros),
        (
            crate::model::BalanceType::Payment,
            crate::model::BalanceSource::Payment(w.payment.id),
            s.amount.micros() as i64
        )
    );
    assert_eq!(
        (entry.fee_micros, entry.block_time),
        (s.fee_micros as i64, Some(block_time()))
    );
    let done = w.completed_session.unwrap();
    assert_eq!(done.id, s.id);
    assert_eq!(
        (
            done.wallet_address,
            done.tx_hash,
            done.completed_at,
            done.customer
        ),
        (Some(payer()), Some(tx(1)), Some(now()), Some(customer()))
    );
    for e in &w.events {
        assert_eq!(
            (e.merchant_id, e.mode, e.created_at),
            (s.merchant_id, s.mode, now())
        );
    }
    let session_json: serde_json::Value = serde_json::from_str(&w.events[0].object_json).unwrap();
    assert_eq!(session_json["id"], s.id.to_string());
    assert_eq!(session_json["status"], "completed");
    let payment_json: serde_json::Value = serde_json::from_str(&w.events[1].object_json).unwrap();
    assert_eq!(payment_json["id"], w.payment.id.to_string());
    assert_eq!(payment_json["status"], "confirmed");
}

#[test]
fn an_unchanged_pending_payment_below_depth_is_already_recorded() {
    let s = session();
    let r = receipt(&s);
    let p = recorded(&s, &r, PaymentStatus::Pending);
    let mut store = store_of(vec![s], vec![p.clone()]);
    store.expect_customer_for().never();
    no_writes(&mut store);
    let h = Harness::new(MockChainReader::new(), store);
    assert_eq!(
        h.settle_one(&r, BLOCK),
        SettleOutcome::AlreadyRecorded(p.id)
    );
}

#[test]
fn a_pending_payment_seen_in_another_block_is_moved() {
    let s = session();
    let before = receipt(&s);
    let moves: [fn(&mut ChainReceipt); 4] = [
        // Re-mined: another height, hash and log index.
        |r| {
            r.block_number = BLOCK + 1;
            r.block_hash = bhash(2);
            r.checkout_paid[0].log_index = 5;
        },
        // Each difference alone is a move too.
        |r| r.block_number = BLOCK + 1,
        |r| r.block_hash = bhash(2),
        |r| r.checkout_paid[0].log_index = 5,
    ];
    for change in moves {
        let p = recorded(&s, &before, PaymentStatus::Pending);
        let mut r = before.clone();
        change(&mut r);
        let (id, at) = (
            p.id,
            (
                r.block_number,
                Some(r.block_hash),
                r.checkout_paid[0].log_index,
            ),
        );
        let mut store = store_of(vec![s.clone()], vec![p.clone()]);
        let w = expect_write(&mut store, move |w| {
            is_pending_write(w)
                && w.replaces == Some(PaymentStatus::Pending)
                && w.payment.id == id
                && (
                    w.payment.block_number,
                    w.payment.block_hash,
                    w.payment.log_index,
                ) == (Some(at.0), at.1, Some(at.2))
        });
        let h = Harness::new(MockChainReader::new(), store);
        // Head == the new block: still below depth.
        assert_eq!(h.settle_one(&r, r.block_number), SettleOutcome::Pending(id));
        assert_eq!(
            written(&w)[0].payment.created_at,
            p.created_at,
            "the record keeps its age"
        );
    }
}

#[test]
fn a_pending_payment_reaching_depth_is_confirmed() {
    let s = session();
    let r = receipt(&s);
    let p = recorded(&s, &r, PaymentStatus::Pending);
    let id = p.id;
    let mut store = store_of(vec![s], vec![p]);
    let _w = expect_write(&mut store, move |w| {
        is_completing_write(w) && w.replaces == Some(PaymentStatus::Pending) && w.payment.id == id
    });
    let h = Harness::new(MockChainReader::new(), store);
    assert_eq!(h.settle_one(&r, BLOCK + 1), SettleOutcome::Confirmed(id));
}

#[test]
fn confirmed_and_refunded_payments_are_never_rewritten() {
    let s = session();
    let r = receipt(&s);
    let mut moved = r.clone();
    moved.block_number = BLOCK + 3;
    moved.block_hash = bhash(3);
    for status in [PaymentStatus::Confirmed, PaymentStatus::Refunded] {
        for (seen, head) in [(&r, BLOCK + 1), (&r, BLOCK), (&moved, BLOCK + 3)] {
            let p = recorded(&s, &r, status);
            let mut store = store_of(vec![s.clone()], vec![p.clone()]);
            store.expect_customer_for().never();
            no_writes(&mut store);
            let h = Harness::new(MockChainReader::new(), store);
            assert_eq!(
                h.settle_one(seen, head),
                SettleOutcome::AlreadyRecorded(p.id),
                "{status:?} at head {head}"
            );
        }
    }
}

#[test]
fn a_failed_payment_back_at_depth_is_revived() {
    let s = session();
    let r = receipt(&s);
    let p = recorded(&s, &r, PaymentStatus::Failed);
    let id = p.id;
    let mut store = store_of(vec![s], vec![p]);
    let _w = expect_write(&mut store, move |w| {
        is_completing_write(w) && w.replaces == Some(PaymentStatus::Failed) && w.payment.id == id
    });
    let h = Harness::new(MockChainReader::new(), store);
    assert_eq!(h.settle_one(&r, BLOCK + 1), SettleOutcome::Confirmed(id));
}

#[test]
fn a_failed_payment_back_below_depth_is_pending_again() {
    let s = session();
    let r = receipt(&s);
    let p = recorded(&s, &r, PaymentStatus::Failed);
    let id = p.id;
    let mut store = store_of(vec![s], vec![p]);
    let _w = expect_write(&mut store, move |w| {
        is_pending_write(w) && w.replaces == Some(PaymentStatus::Failed) && w.payment.id == id
    });
    let h = Harness::new(MockChainReader::new(), store);
    assert_eq!(h.settle_one(&r, BLOCK), SettleOutcome::Pending(id));
}

#[test]
fn a_session_completed_by_another_payment_only_gains_this_payment() {
    let s = CheckoutSession {
        status: SessionStatus::Completed,
        tx_hash: Some(tx(9)),
        completed_at: Some(now().plus_seconds(-10)),
        ..session()
    };
    let r = receipt(&s);
    let mut store = store_of(vec![s], vec![]);
    let w = expect_write(&mut store, |w| {
        w.payment.status == PaymentStatus::Confirmed
            && w.completed_session.is_none()
            && event_types(w) == [EventType::PaymentSucceeded]
    });
    let h = Harness::new(MockChainReader::new(), store);
    let outcome = h.settle_one(&r, BLOCK + 1);
    let w = written(&w).remove(0);
    assert_eq!(outcome, SettleOutcome::Confirmed(w.payment.id));
    let kinds: Vec<_> = w.ledger.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [crate::model::BalanceType::LatePayment]);
}

#[test]
fn a_late_payment_completes_an_expired_session() {
    let s = CheckoutSession {
        status: SessionStatus::Expired,
        expires_at: now().plus_seconds(-1),
        ..session()
    };
    let r = receipt(&s);
    let mut store = store_of(vec![s], vec![]);
    let w = expect_write(&mut store, is_completing_write);
    let h = Harness::new(MockChainReader::new(), store);
    let outcome = h.settle_one(&r, BLOCK + 1);
    assert_eq!(outcome, SettleOutcome::Confirmed(written(&w)[0].payment.id));
}

// ---- settle_receipt: concurrent writers and store errors ------------------------------

#[test]
fn a_lost_race_rereads_and_reports_the_winner() {
    let s = session();
    let r = receipt(&s);
    let winner = recorded(&s, &r, PaymentStatus::Confirmed);
    let mut store = store_with_sessions(vec![s]);
    store
        .expect_payment_for_session_tx()
        .times(1)
        .returning(|_, _, _| Ok(None));
    store
        .expect_payment_for_session_tx()
        .times(1)
        .return_const(Ok(Some(winner.clone())));
    let _w = expect_writes(&mut store, vec![SettlementWrite::Stale], |w| {
        w.replaces.is_none()
    });
    let h = Harness::new(MockChainReader::new(), store);
    assert_eq!(
        h.settle_one(&r, BLOCK + 1),
        SettleOutcome::AlreadyRecorded(winner.id)
    );
}

#[test]
fn a_stale_write_is_decided_again_from_fresh_state() {
    let s = session();
    let r = receipt(&s);
    let rival = recorded(&s, &r, PaymentStatus::Pending);
    let mut store = store_with_sessions(vec![s]);
    store
        .expect_payment_for_session_tx()
        .times(1)
        .returning(|_, _, _| Ok(None));
    store
        .expect_payment_for_session_tx()
        .times(1)
        .return_const(Ok(Some(rival.clone())));
    let w = expect_writes(
        &mut store,
        vec![SettlementWrite::Stale, SettlementWrite::Written],
        is_completing_write,
    );
    let h = Harness::new(MockChainReader::new(), store);
    assert_eq!(
        h.settle_one(&r, BLOCK + 1),
        SettleOutcome::Confirmed(rival.id)
    );
    let w = written(&w);
    assert_eq!(
        (w[0].replaces, w[1].replaces),
        (None, Some(PaymentStatus::Pending))
    );
    assert_eq!(w[1].payment.id, rival.id);
}

#[test]
fn a_write_stale_on_every_attempt_is_contended() {
    let s = session();
    let r = receipt(&s);
    let mut store = store_of(vec![s], vec![]);
    let _w = expect_writes(
        &mut store,
        vec![SettlementWrite::Stale; WRITE_ATTEMPTS],
        |_| true,
    );
    let h = Harness::new(MockChainReader::new(), store);
    let err = h.settle(&r, BLOCK + 1).unwrap_err();
    assert!(matches!(err, SettleError::Contended), "{err:?}");
}

#[test]
fn store_errors_are_surfaced() {
    let s = session();
    let r = receipt(&s);
    let mut store = MockSettlementStore::new();
    store
        .expect_session_by_ref()
        .returning(|_| Err(StoreError::Unavailable("db".into())));
    no_writes(&mut store);
    let h = Harness::new(MockChainReader::new(), store);
    assert!(matches!(
        h.settle(&r, BLOCK + 1),
        Err(SettleError::Store(_))
    ));
    let mut store = store_of(vec![s], vec![]);
    store
        .expect_record_checkout_settlement()
        .times(1)
        .returning(|_| Err(StoreError::Internal("boom".into())));
    let h = Harness::new(MockChainReader::new(), store);
    assert!(matches!(
        h.settle(&r, BLOCK + 1),
        Err(SettleError::Store(_))
    ));
}
