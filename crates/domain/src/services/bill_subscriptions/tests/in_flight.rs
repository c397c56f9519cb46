//! Tests of the follow-up of the keeper's charges in flight (`in_flight.rs`): replacement
//! after 3 blocks, fills, a nonce lost, any attempt mined, settlement and reverts at depth.

use super::*;
use crate::ports::{SentWork, WorkKind};
// The keeper's address and the nonce its charge took: the sender's of any sent work.
use crate::rules::resend::REPLACE_AFTER_BLOCKS;
use crate::services::fixtures::sending::{self, sender_address as keeper, NONCE};

// ---- charges in flight ----------------------------------------------------------------

/// A harness that claims nothing and has `charges` in flight, with the chain at `head`.
fn following(charges: Vec<InFlightCharge>, head: u64) -> Harness {
    let mut h = Harness::new(no_sessions(), MockSubscriptionStore::new());
    h.subscriptions
        .expect_claim_due()
        .times(1)
        .return_const(Ok(vec![]));
    h.keeper
        .expect_in_flight()
        .withf(|c| *c == CHAIN)
        .times(1)
        .return_const(Ok(charges));
    h.chain
        .expect_block_number()
        .withf(|c| *c == CHAIN)
        .times(1)
        .return_const(Ok(head));
    h
}

/// `tx(1)`, the keeper's charge of `rec` for `period()`, broadcast at block `sent_block`.
fn in_flight(rec: &SubscriptionRecord, sent_block: u64) -> InFlightCharge {
    InFlightCharge {
        work: SentWork {
            chain: CHAIN,
            sent_block,
            ..sending::work(WorkKind::Charge)
        },
        subscription: rec.subscription.id,
        period_key: period(),
    }
}

/// `rec`'s charge replaced once: `tx(2)` (a fill when `fill`) over the charge `tx(1)`.
fn replaced_once(rec: &SubscriptionRecord, fill: bool) -> InFlightCharge {
    let mut charge = in_flight(rec, BLOCK);
    charge.work.tx_hash = tx(2);
    charge.work.attempts.insert(
        0,
        ChargeAttempt {
            tx_hash: tx(2),
            fill,
        },
    );
    charge
}

/// The one write that closes `rec`'s charge `tx(1)` and changes nothing else.
fn closed_unchanged(rec: SubscriptionRecord) -> BillingWrite {
    BillingWrite {
        settles_charge_tx: Some(tx(1)),
        ..BillingWrite::state_only(rec)
    }
}

fn receipt_of_tx1(h: &mut Harness, r: Option<ChainReceipt>) {
    h.chain
        .expect_receipt()
        .withf(|c, t| (*c, *t) == (CHAIN, tx(1)))
        .times(1)
        .return_const(Ok(r));
}

/// A charge unmined `REPLACE_AFTER_BLOCKS` after its broadcast (its nonce still free),
/// whose subscription now reads `status`: sent again with `still_wanted` as expected.
fn stuck(status: SubscriptionStatus, still_wanted: bool, answer: Resent) -> BillingReport {
    let rec = record(SubscriptionStatus::Active);
    let mut fresh = rec.clone();
    fresh.subscription.status = status;
    let mut h = following(vec![in_flight(&rec, BLOCK)], BLOCK + REPLACE_AFTER_BLOCKS);
    receipt_of_tx1(&mut h, None);
    h.subscriptions
        .expect_subscription_public()
        .times(1)
        .return_const(Ok(Some(fresh)));
    h.sending.mined_nonce(NONCE);
    h.sending
        .sender
        .expect_resend()
        .withf(move |kind, c, newest, wanted| {
            (*kind, *c, *newest, *wanted) == (WorkKind::Charge, CHAIN, tx(1), still_wanted)
        })
        .times(1)
        .return_const(Ok(answer));
    no_writes(&mut h.subscriptions);
    bill(&h)
}

#[test]
fn a_charge_unmined_for_three_blocks_is_replaced_at_higher_fees_while_it_still_charges() {
    for status in [SubscriptionStatus::Active, SubscriptionStatus::PastDue] {
        let got = stuck(status, true, Resent::Replaced(tx(2)));
        assert_eq!(
            (got.in_flight, got.replaced, got.filled, got.settled),
            (1, 1, 0, 0)
        );
        assert_eq!(got.errors, Vec::<String>::new());
    }
}

#[test]
fn a_stuck_charge_of_a_subscription_canceled_since_is_replaced_by_a_fill() {
    for status in [
        SubscriptionStatus::Canceled,
        SubscriptionStatus::Paused,
        SubscriptionStatus::Expired,
    ] {
        let got = stuck(status, false, Resent::Filled(tx(2)));
        assert_eq!(
            (got.in_flight, got.replaced, got.filled),
            (1, 1, 1),
            "{status:?}"
        );
    }
}

#[test]
fn a_younger_in_flight_charge_without_a_receipt_is_left_alone() {
    let rec = record(SubscriptionStatus::Active);
    let head = BLOCK + REPLACE_AFTER_BLOCKS - 1;
    let mut h = following(vec![in_flight(&rec, BLOCK)], head);
    receipt_of_tx1(&mut h, None);
    h.sending.sender.expect_resend().never();
    no_writes(&mut h.subscriptions);
    let got = bill(&h);
    assert_eq!((got.in_flight, got.replaced, got.settled), (1, 0, 0));
}

/// A charge whose nonce went to another transaction (the keeper's account is past it and
/// no attempt of the charge was mined) can never be mined: it is closed, nothing is
/// charged or sent, and the period is claimed again when due.
#[test]
fn a_charge_whose_nonce_went_elsewhere_is_given_up_and_closed() {
    let rec = record(SubscriptionStatus::Active);
    let mut h = following(vec![in_flight(&rec, BLOCK)], BLOCK + REPLACE_AFTER_BLOCKS);
    receipt_of_tx1(&mut h, None);
    h.sending.mined_nonce(NONCE + 1);
    h.sending
        .attempts
        .expect_attempts_at()
        .withf(|c, k, n| (*c, *k, *n) == (CHAIN, keeper(), NONCE))
        .times(1)
        .returning(|_, _, _| {
            Ok(vec![ChargeAttempt {
                tx_hash: tx(1),
                fill: false,
            }])
        });
    h.sending
        .receipts
        .expect_mined_attempt()
        .times(1)
        .returning(|_, _| Ok(None));
    h.sending.sender.expect_resend().never();
    h.subscriptions
        .expect_subscription_public()
        .times(1)
        .return_const(Ok(Some(rec.clone())));
    let seen = expect_billing(&mut h.subscriptions);
    let got = bill(&h);
    assert_eq!(
        (got.in_flight, got.nonce_lost, got.replaced, got.settled),
        (1, 1, 0, 0)
    );
    assert_eq!(written(&seen), [closed_unchanged(rec)]);
}

#[test]
fn an_earlier_attempt_that_was_mined_settles_the_charge() {
    let rec = record(SubscriptionStatus::Active);
    let mut h = following(vec![replaced_once(&rec, false)], DEEP);
    h.chain
        .expect_receipt()
        .withf(|c, t| (*c, *t) == (CHAIN, tx(2)))
        .times(1)
        .return_const(Ok(None));
    receipt_of_tx1(&mut h, Some(receipt(vec![charged()])));
    h.sending.sender.expect_resend().never();
    h.subscriptions
        .expect_subscription_by_chain_id()
        .return_const(Ok(Some(rec.clone())));
    period_reads(&mut h, rec.subscription.id, None, 0);
    let seen = expect_billing(&mut h.subscriptions);
    let got = bill(&h);
    assert_eq!((got.in_flight, got.settled, got.replaced), (1, 1, 0));
    assert_eq!(written(&seen).remove(0).settles_charge_tx, Some(tx(1)));
}

#[test]
fn a_mined_fill_at_depth_closes_the_charge_without_a_payment() {
    let rec = record(SubscriptionStatus::Canceled);
    let mut h = following(vec![replaced_once(&rec, true)], DEEP);
    let mut fill = receipt(vec![]);
    fill.tx_hash = tx(2);
    h.chain
        .expect_receipt()
        .withf(|c, t| (*c, *t) == (CHAIN, tx(2)))
        .times(1)
        .return_const(Ok(Some(fill)));
    h.subscriptions
        .expect_subscription_public()
        .times(1)
        .return_const(Ok(Some(rec.clone())));
    h.subscriptions.expect_subscription_by_chain_id().never();
    let seen = expect_billing(&mut h.subscriptions);
    let got = bill(&h);
    assert_eq!((got.in_flight, got.settled), (1, 1));
    let w = written(&seen).remove(0);
    assert_eq!(
        (w.settles_charge_tx, w.payment, w.events.len()),
        (Some(tx(2)), None, 0)
    );
    assert_eq!(
        w.subscription.subscription.status,
        SubscriptionStatus::Canceled
    );
}

#[test]
fn an_in_flight_charge_below_depth_waits() {
    let rec = record(SubscriptionStatus::Active);
    let mut h = following(vec![in_flight(&rec, BLOCK)], BLOCK);
    receipt_of_tx1(&mut h, Some(receipt(vec![charged()])));
    h.sending.sender.expect_resend().never();
    h.subscriptions.expect_subscription_by_chain_id().never();
    no_writes(&mut h.subscriptions);
    let got = bill(&h);
    assert_eq!((got.in_flight, got.replaced, got.settled), (1, 0, 0));
}

#[test]
fn a_mined_in_flight_charge_at_depth_is_settled_as_the_period_payment() {
    let rec = record(SubscriptionStatus::Active);
    let mut h = following(vec![in_flight(&rec, BLOCK)], DEEP);
    receipt_of_tx1(&mut h, Some(receipt(vec![charged()])));
    h.subscriptions
        .expect_subscription_by_chain_id()
        .withf(|c, m, id| (*c, *m, *id) == (CHAIN, manager(), SUB))
        .return_const(Ok(Some(rec.clone())));
    period_reads(&mut h, rec.subscription.id, None, 0);
    let seen = expect_billing(&mut h.subscriptions);
    let got = bill(&h);
    assert_eq!((got.in_flight, got.settled), (1, 1));
    let w = written(&seen).remove(0);
    assert_eq!(w.settles_charge_tx, Some(tx(1)));
    let paid = w.payment.map(|p| (p.payment.status, p.payment.tx_hash));
    assert_eq!(paid, Some((PaymentStatus::Confirmed, Some(tx(1)))));
}

/// A harness following `rec`'s charge, reverted at depth, which the chain now simulates
/// as `now_says`.
fn reverted(rec: &SubscriptionRecord, now_says: ChargeSimulation) -> Harness {
    let mut reverted = receipt(vec![]);
    reverted.succeeded = false;
    let mut h = following(vec![in_flight(rec, BLOCK)], DEEP);
    receipt_of_tx1(&mut h, Some(reverted));
    let id = rec.subscription.id;
    h.subscriptions
        .expect_subscription_public()
        .withf(move |s| *s == id)
        .times(1)
        .return_const(Ok(Some(rec.clone())));
    simulating(&mut h, Ok(now_says));
    h
}

#[test]
fn a_reverted_in_flight_charge_at_depth_is_recorded_as_a_failed_try_with_its_tx() {
    let rec = record(SubscriptionStatus::Active);
    let code = FailureCode::InsufficientBalance;
    let mut h = reverted(&rec, ChargeSimulation::Fails(code));
    period_reads(&mut h, rec.subscription.id, None, 0);
    let seen = expect_billing(&mut h.subscriptions);
    assert_eq!(bill(&h).settled, 1);
    let w = written(&seen).remove(0);
    let up = w.payment.unwrap();
    assert_eq!(up.payment.tx_hash, None, "nothing was transferred");
    let attempt = w.attempt.unwrap();
    let expected = failed_attempt(attempt.id, &rec, Some(up.payment.id), 1, code, Some(tx(1)));
    assert_eq!(attempt, expected);
    assert_eq!((w.settles_charge_tx, w.hold_until), (Some(tx(1)), None));
    assert_eq!(
        event_types(&w.events),
        [EventType::PaymentFailed, EventType::SubscriptionPastDue]
    );
}

#[test]
fn a_reverted_in_flight_charge_that_is_chargeable_again_is_closed_unchanged() {
    let rec = record(SubscriptionStatus::Active);
    let mut h = reverted(&rec, ChargeSimulation::Chargeable);
    h.subscriptions.expect_payment_for_period().never();
    let seen = expect_billing(&mut h.subscriptions);
    assert_eq!(bill(&h).settled, 1);
    assert_eq!(written(&seen), [closed_unchanged(rec)]);
}

#[test]
fn a_keeper_that_cannot_list_its_charges_is_reported_without_reading_the_head() {
    let mut h = Harness::new(no_sessions(), MockSubscriptionStore::new());
    h.subscriptions
        .expect_claim_due()
        .times(1)
        .return_const(Ok(vec![]));
    let down = KeeperError::Chain(ChainError::Unavailable("down".into()));
    h.keeper.expect_in_flight().times(1).return_const(Err(down));
    h.chain.expect_block_number().never();
    let got = bill(&h);
    assert_eq!(got.errors, ["chain unavailable: down"]);
    assert_eq!(got.in_flight, 0);
}
