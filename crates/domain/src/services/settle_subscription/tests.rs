//! Tests of `settle_subscription_receipt` with mocked ports: a subscription checkout's
//! start (`Subscribed` + first `Charged`), a later period's `Charged` and a `Canceled`,
//! at and below depth, and the mismatches that are rejected.

use futures_executor::block_on;

use super::*;
use crate::model::{
    Amount, CheckoutSession, Mode, SessionMode, SessionStatus, SubscriptionId, SubscriptionStatus,
};
use crate::ports::{MockSettlementStore, MockSubscriptionStore, SubscriptionStart};
use crate::rules::eip712::session_ref;

use crate::services::fixtures::subscriptions::*;

/// A settlement store that knows `s` by its reference (`times` reads) and gives the
/// subscriber `customer()` (`customer_reads` times).
pub(super) fn sessions(
    s: &CheckoutSession,
    times: usize,
    customer_reads: usize,
) -> MockSettlementStore {
    let (reference, known) = (session_ref(&s.id), s.clone());
    let mut store = MockSettlementStore::new();
    store
        .expect_session_by_ref()
        .withf(move |r| *r == reference)
        .times(times)
        .return_const(Ok(Some(known)));
    store
        .expect_customer_for()
        .withf(|_, mode, who| *mode == Mode::Test && *who == subscriber())
        .times(customer_reads)
        .returning(|_, _, _| Ok(customer()));
    store
}

/// A subscription store that answers `rec` for (`CHAIN`, `manager()`, `SUB`) and writes
/// nothing unless a test says so.
pub(super) fn subscriptions(rec: Option<SubscriptionRecord>) -> MockSubscriptionStore {
    let mut subs = MockSubscriptionStore::new();
    subs.expect_subscription_by_chain_id()
        .withf(|c, m, id| (*c, *m, *id) == (CHAIN, manager(), SUB))
        .return_const(Ok(rec));
    subs
}

/// The period `period()` of `id` holds `found` (read once) and `n` attempts.
fn period_reads(
    subs: &mut MockSubscriptionStore,
    id: SubscriptionId,
    found: Option<Payment>,
    n: u32,
) {
    subs.expect_payment_for_period()
        .withf(move |s, p| (*s, *p) == (id, period()))
        .times(1)
        .return_const(Ok(found));
    subs.expect_attempts_in_period()
        .withf(move |s, p| (*s, *p) == (id, period()))
        .return_const(Ok(n));
}

fn settle(
    store: MockSettlementStore,
    subs: MockSubscriptionStore,
    r: &ChainReceipt,
    head: u64,
) -> Vec<SettleOutcome> {
    let h = Harness::new(store, subs);
    block_on(settle_subscription_receipt(
        CHAIN,
        r,
        head,
        &h.settle_deps(),
    ))
    .unwrap()
}

// ---- the start ------------------------------------------------------------------------

/// Settles `s`'s subscribe and first charge at depth; expects one start written.
fn start_written(s: &CheckoutSession) -> (Vec<SettleOutcome>, SubscriptionStart) {
    let mut subs = subscriptions(None);
    let seen: Seen<SubscriptionStart> = Seen::default();
    let sink = std::sync::Arc::clone(&seen);
    subs.expect_record_subscription_start()
        .times(1)
        .returning(move |w| {
            sink.lock().unwrap().push(w.clone());
            Ok(SettlementWrite::Written)
        });
    subs.expect_record_billing().never();
    let r = receipt(vec![subscribed(s), charged()]);
    let outcomes = settle(sessions(s, 1, 1), subs, &r, DEEP);
    let start = written(&seen).remove(0);
    (outcomes, start)
}

#[test]
fn a_subscribe_with_its_first_charge_at_depth_starts_an_active_subscription_once() {
    let s = session();
    let (outcomes, w) = start_written(&s);
    let (sub, p) = (&w.subscription.subscription, &w.payment);
    assert_eq!(outcomes, [SettleOutcome::Confirmed(p.id)]);
    let expected = record_of(&s, SubscriptionStatus::Active);
    let expected = SubscriptionRecord {
        subscription: Subscription {
            id: sub.id,
            next_payment_at: Some(next_due()),
            created_at: now(),
            ..expected.subscription
        },
        version: 0,
        ..expected
    };
    assert_eq!(w.subscription, expected);
    let completed = CheckoutSession {
        status: SessionStatus::Completed,
        wallet_address: Some(subscriber()),
        tx_hash: Some(tx(1)),
        completed_at: Some(now()),
        customer: Some(customer()),
        subscription: Some(sub.id),
        ..s.clone()
    };
    assert_eq!(w.session, completed);
    let confirmed = Payment {
        id: p.id,
        checkout_session: Some(s.id),
        ..payment(&w.subscription, PaymentStatus::Confirmed)
    };
    assert_eq!(
        *p, confirmed,
        "the first charge's log index, the period before the next due date"
    );
    assert_eq!(w.attempt, succeeded(w.attempt.id, sub, p.id, 1));
}

#[test]
fn the_start_fires_session_completed_subscription_created_and_payment_succeeded_in_order() {
    let s = session();
    let (_, w) = start_written(&s);
    assert_eq!(
        event_types(&w.events),
        [
            EventType::CheckoutSessionCompleted,
            EventType::SubscriptionCreated,
            EventType::PaymentSucceeded
        ]
    );
    for e in &w.events {
        assert_eq!(
            (e.merchant_id, e.mode, e.created_at),
            (s.merchant_id, Mode::Test, now())
        );
    }
    let bodies: Vec<_> = w.events.iter().map(json).collect();
    let ids: Vec<_> = bodies.iter().map(|b| b["id"].clone()).collect();
    let sub = &w.subscription.subscription;
    assert_eq!(
        ids,
        [
            s.id.to_string(),
            sub.id.to_string(),
            w.payment.id.to_string()
        ]
    );
    let statuses: Vec<_> = bodies.iter().map(|b| b["status"].clone()).collect();
    assert_eq!(statuses, ["completed", "active", "confirmed"]);
    assert_eq!(bodies[0]["subscription"], sub.id.to_string());
}

#[test]
fn a_subscribe_already_recorded_answers_the_subscription_without_writing() {
    let (s, rec) = (session(), record(SubscriptionStatus::Active));
    let id = rec.subscription.id;
    let mut subs = subscriptions(Some(rec));
    no_writes(&mut subs);
    let r = receipt(vec![subscribed(&s), charged()]);
    assert_eq!(
        settle(sessions(&s, 1, 0), subs, &r, DEEP),
        [SettleOutcome::SubscriptionRecorded(id)]
    );
}

#[test]
fn a_start_that_loses_a_race_answers_the_subscription_the_winner_recorded() {
    let (s, rec) = (session(), record(SubscriptionStatus::Active));
    let id = rec.subscription.id;
    let mut answers = vec![None, Some(rec)];
    let mut subs = MockSubscriptionStore::new();
    subs.expect_subscription_by_chain_id()
        .times(2)
        .returning(move |_, _, _| Ok(answers.remove(0)));
    subs.expect_record_subscription_start()
        .times(1)
        .return_const(Ok(SettlementWrite::Stale));
    subs.expect_record_billing().never();
    let r = receipt(vec![subscribed(&s), charged()]);
    assert_eq!(
        settle(sessions(&s, 2, 1), subs, &r, DEEP),
        [SettleOutcome::SubscriptionRecorded(id)]
    );
}

/// Settles `r` at depth for the known `s` and expects one rejection mentioning `why`,
/// with no subscription looked up and nothing written.
fn assert_start_rejected(s: &CheckoutSession, r: &ChainReceipt, why: &str) {
    let mut subs = MockSubscriptionStore::new();
    subs.expect_subscription_by_chain_id().never();
    no_writes(&mut subs);
    match settle(sessions(s, 1, 0), subs, r, DEEP).as_slice() {
        [SettleOutcome::Rejected(m)] => assert!(m.contains(why), "rejected for {m:?}, not {why:?}"),
        other => panic!("expected a rejection ({why}), got {other:?}"),
    }
}

#[test]
fn a_subscribe_with_another_fee_or_plan_is_rejected() {
    let s = session();
    let mut r = receipt(vec![subscribed(&s), charged()]);
    if let SubscriptionEvent::Subscribed { fee_amount, .. } = &mut r.subscription_events[0].event {
        *fee_amount = 1;
    }
    assert_start_rejected(&s, &r, "fee 1 is not the session's 100000");
    let mut r = receipt(vec![subscribed(&s), charged()]);
    if let SubscriptionEvent::Subscribed { plan_id, .. } = &mut r.subscription_events[0].event {
        *plan_id = 9;
    }
    assert_start_rejected(&s, &r, "plan 9 is not the session's plan");
}

#[test]
fn a_first_charge_that_differs_from_the_session_is_rejected() {
    let s = session();
    for change in [(1, 0), (0, 1)] {
        let mut r = receipt(vec![subscribed(&s), charged()]);
        if let SubscriptionEvent::Charged {
            net_amount,
            fee_amount,
            ..
        } = &mut r.subscription_events[1].event
        {
            *net_amount -= change.0;
            *fee_amount -= change.1;
        }
        assert_start_rejected(&s, &r, "does not match the session's 9900000/100000");
    }
}

#[test]
fn a_first_charge_without_both_transfer_legs_is_rejected() {
    let s = session();
    let why = "the first charge has no matching Transfer legs";
    let legs: [fn(&mut ChainReceipt); 4] = [
        |r| r.transfers.retain(|t| t.to != payee()),
        |r| r.transfers.retain(|t| t.to != treasury()),
        |r| r.transfers[0].from = addr(0x77),
        |r| r.transfers[1].to = addr(0x77),
    ];
    for change in legs {
        let mut r = receipt(vec![subscribed(&s), charged()]);
        change(&mut r);
        assert_start_rejected(&s, &r, why);
    }
}

#[test]
fn a_subscribe_without_a_first_charge_or_for_a_payment_session_is_rejected() {
    let s = session();
    let r = receipt(vec![subscribed(&s)]);
    let mut subs = MockSubscriptionStore::new();
    no_writes(&mut subs);
    let mut store = MockSettlementStore::new();
    store.expect_session_by_ref().never();
    assert_eq!(
        settle(store, subs, &r, DEEP),
        [SettleOutcome::Rejected(
            "the subscribe has no first charge".into()
        )]
    );
    let one_time = CheckoutSession {
        session_mode: SessionMode::Payment,
        ..session()
    };
    let r = receipt(vec![subscribed(&one_time), charged()]);
    assert_start_rejected(&one_time, &r, "the session is not a subscription checkout");
}

#[test]
fn logs_of_another_manager_reverted_receipts_and_chains_without_a_manager_are_ignored() {
    let s = session();
    let untouched = || {
        let store = no_sessions();
        let mut subs = MockSubscriptionStore::new();
        subs.expect_subscription_by_chain_id().never();
        // No live subscription on the other manager: it is not followed.
        subs.expect_managers_in_use()
            .returning(|_| Ok(vec![manager()]));
        no_writes(&mut subs);
        (store, subs)
    };
    let mut foreign = receipt(vec![subscribed(&s), charged(), canceled()]);
    for l in &mut foreign.subscription_events {
        l.manager = addr(0x66);
    }
    let (store, subs) = untouched();
    assert_eq!(settle(store, subs, &foreign, DEEP), []);
    let mut reverted = receipt(vec![subscribed(&s), charged()]);
    reverted.succeeded = false;
    let (store, subs) = untouched();
    assert_eq!(settle(store, subs, &reverted, DEEP), []);
    let (store, subs) = untouched();
    let r = receipt(vec![subscribed(&s), charged()]);
    let mut h = Harness::new(store, subs);
    h.chains = directory(None);
    let outcomes = block_on(settle_subscription_receipt(
        CHAIN,
        &r,
        DEEP,
        &h.settle_deps(),
    ));
    assert_eq!(outcomes.unwrap(), []);
}

#[test]
fn after_a_rotation_a_charge_on_the_old_manager_is_recorded_on_its_subscription() {
    let old = addr(0x77);
    let rec = SubscriptionRecord {
        manager: old,
        ..record(SubscriptionStatus::Active)
    };
    let mut subs = MockSubscriptionStore::new();
    subs.expect_managers_in_use()
        .withf(|c| *c == CHAIN)
        .times(1)
        .returning(move |_| Ok(vec![manager(), old]));
    let known = rec.clone();
    subs.expect_subscription_by_chain_id()
        .withf(move |c, m, id| (*c, *m, *id) == (CHAIN, old, SUB))
        .return_const(Ok(Some(known)));
    period_reads(&mut subs, rec.subscription.id, None, 0);
    let seen = expect_billing(&mut subs);
    let mut on_old = charged();
    on_old.manager = old;
    let outcomes = settle(no_sessions(), subs, &receipt(vec![on_old]), DEEP);
    let w = written(&seen).remove(0);
    let p = &w.payment.clone().unwrap().payment;
    assert_eq!(outcomes, [SettleOutcome::Confirmed(p.id)]);
    assert_eq!(p.subscription, Some(rec.subscription.id));
    assert_eq!(
        w.subscription.manager, old,
        "the subscription stays on its manager"
    );
}

// ---- a later charge -------------------------------------------------------------------

/// Settles a receipt with only `charged()` at depth against `rec` whose period holds
/// `found` and `n` attempts; expects one billing write and returns it with the outcome.
fn charge_written(
    rec: &SubscriptionRecord,
    found: Option<Payment>,
    n: u32,
) -> (SettleOutcome, BillingWrite) {
    let mut subs = subscriptions(Some(rec.clone()));
    period_reads(&mut subs, rec.subscription.id, found, n);
    subs.expect_record_subscription_start().never();
    let seen = expect_billing(&mut subs);
    let outcomes = settle(no_sessions(), subs, &receipt(vec![charged()]), DEEP);
    let w = written(&seen).remove(0);
    match outcomes.as_slice() {
        [outcome] => (outcome.clone(), w),
        other => panic!("expected one outcome, got {other:?}"),
    }
}

#[test]
fn a_later_charge_at_depth_records_the_period_payment_and_settles_the_keeper_tx() {
    let rec = record(SubscriptionStatus::Active);
    let sub = rec.subscription.clone();
    let (outcome, w) = charge_written(&rec, None, 0);
    let up = w.payment.clone().unwrap();
    let p = &up.payment;
    assert_eq!(outcome, SettleOutcome::Confirmed(p.id));
    assert_eq!(up.replaces, None);
    assert_eq!(
        *p,
        Payment {
            id: p.id,
            ..payment(&rec, PaymentStatus::Confirmed)
        }
    );
    let attempt = w.attempt.clone().unwrap();
    assert_eq!(attempt, succeeded(attempt.id, &sub, p.id, 1));
    let expected = SubscriptionRecord {
        subscription: Subscription {
            next_payment_at: Some(next_due()),
            ..sub
        },
        ..rec
    };
    assert_eq!(
        w.subscription, expected,
        "active, due again at the chain's date, same version"
    );
    assert_eq!(event_types(&w.events), [EventType::PaymentSucceeded]);
    assert_eq!(json(&w.events[0])["id"], p.id.to_string());
    assert_eq!((w.settles_charge_tx, w.hold_until), (Some(tx(1)), None));
}

#[test]
fn a_charge_on_a_past_due_subscription_replaces_the_failed_payment_and_recovers_it() {
    let mut rec = record(SubscriptionStatus::PastDue);
    rec.subscription.retry_count = 1;
    rec.subscription.next_retry_at = Some(now());
    rec.subscription.last_failure_code = Some("insufficient_balance".into());
    let failed = Payment {
        created_at: now().plus_seconds(-86_400),
        ..payment(&rec, PaymentStatus::Failed)
    };
    let (outcome, w) = charge_written(&rec, Some(failed.clone()), 2);
    let up = w.payment.unwrap();
    assert_eq!(outcome, SettleOutcome::Confirmed(failed.id));
    assert_eq!(up.replaces, Some(PaymentStatus::Failed));
    let confirmed = Payment {
        id: failed.id,
        created_at: failed.created_at,
        ..payment(&rec, PaymentStatus::Confirmed)
    };
    assert_eq!(
        up.payment, confirmed,
        "the failed record becomes the confirmed one"
    );
    assert_eq!(w.attempt.map(|a| a.attempt_number), Some(3));
    let recovered = Subscription {
        status: SubscriptionStatus::Active,
        retry_count: 0,
        next_retry_at: None,
        last_failure_code: None,
        next_payment_at: Some(next_due()),
        ..rec.subscription
    };
    assert_eq!(w.subscription.subscription, recovered);
    assert_eq!(event_types(&w.events), [EventType::PaymentSucceeded]);
}

#[test]
fn a_charge_on_a_canceled_subscription_is_recorded_without_reviving_it() {
    let mut rec = record(SubscriptionStatus::Canceled);
    rec.subscription.canceled_at = Some(now().plus_seconds(-5));
    rec.subscription.next_payment_at = None;
    let (outcome, w) = charge_written(&rec, None, 0);
    let up = w.payment.unwrap();
    assert_eq!(outcome, SettleOutcome::Confirmed(up.payment.id));
    assert_eq!(up.payment.status, PaymentStatus::Confirmed);
    assert_eq!(w.subscription, rec, "status, dates and version unchanged");
    assert_eq!(event_types(&w.events), [EventType::PaymentSucceeded]);
}

#[test]
fn a_charge_already_recorded_for_its_period_writes_nothing() {
    let rec = record(SubscriptionStatus::Active);
    let confirmed = payment(&rec, PaymentStatus::Confirmed);
    let mut subs = subscriptions(Some(rec.clone()));
    period_reads(&mut subs, rec.subscription.id, Some(confirmed.clone()), 1);
    no_writes(&mut subs);
    let r = receipt(vec![charged()]);
    assert_eq!(
        settle(no_sessions(), subs, &r, DEEP),
        [SettleOutcome::AlreadyRecorded(confirmed.id)]
    );
}

#[test]
fn a_charge_or_cancel_of_an_unknown_subscription_is_deferred() {
    for r in [receipt(vec![charged()]), receipt(vec![canceled()])] {
        let mut subs = subscriptions(None);
        subs.expect_payment_for_period().never();
        no_writes(&mut subs);
        assert_eq!(
            settle(no_sessions(), subs, &r, DEEP),
            [SettleOutcome::Deferred(
                "subscription 7 is not recorded".into()
            )]
        );
    }
}

#[test]
fn a_charge_that_does_not_match_the_subscription_terms_is_rejected() {
    let changes: [fn(&mut ChainReceipt, &mut SubscriptionRecord); 5] = [
        |_, rec| rec.fee_micros = FEE + 1,
        |_, rec| rec.subscription.wallet_address = addr(0x77),
        |_, rec| rec.subscription.amount = Amount::from_micros(NET + FEE + 1).unwrap(),
        |r, _| r.transfers.retain(|t| t.to != payee()),
        |r, _| r.transfers.retain(|t| t.to != treasury()),
    ];
    for change in changes {
        let (mut r, mut rec) = (receipt(vec![charged()]), record(SubscriptionStatus::Active));
        change(&mut r, &mut rec);
        let mut subs = subscriptions(Some(rec));
        subs.expect_payment_for_period().never();
        no_writes(&mut subs);
        assert_eq!(
            settle(no_sessions(), subs, &r, DEEP),
            [SettleOutcome::Rejected(
                "the charge of subscription 7 does not match its terms".into()
            )]
        );
    }
}

// ---- a cancel -------------------------------------------------------------------------

#[test]
fn a_cancel_at_depth_cancels_with_one_subscription_canceled_event() {
    let mut rec = record(SubscriptionStatus::PastDue);
    rec.subscription.next_retry_at = Some(now().plus_seconds(86_400));
    let sub = rec.subscription.clone();
    let mut subs = subscriptions(Some(rec.clone()));
    let seen = expect_billing(&mut subs);
    subs.expect_record_subscription_start().never();
    let r = receipt(vec![canceled()]);
    assert_eq!(
        settle(no_sessions(), subs, &r, DEEP),
        [SettleOutcome::SubscriptionRecorded(sub.id)]
    );
    let w = written(&seen).remove(0);
    let expected = Subscription {
        status: SubscriptionStatus::Canceled,
        canceled_at: Some(now()),
        next_payment_at: None,
        next_retry_at: None,
        ..sub
    };
    assert_eq!(
        w.subscription,
        SubscriptionRecord {
            subscription: expected,
            ..rec
        }
    );
    assert_eq!(
        (w.payment, w.attempt, w.settles_charge_tx, w.hold_until),
        (None, None, None, None)
    );
    assert_eq!(event_types(&w.events), [EventType::SubscriptionCanceled]);
    let body = json(&w.events[0]);
    assert_eq!(
        (body["id"].as_str(), body["status"].as_str()),
        (Some(sub.id.to_string().as_str()), Some("canceled"))
    );
}

#[test]
fn a_cancel_of_an_ended_subscription_writes_nothing() {
    for status in [SubscriptionStatus::Canceled, SubscriptionStatus::Expired] {
        let rec = record(status);
        let id = rec.subscription.id;
        let mut subs = subscriptions(Some(rec));
        no_writes(&mut subs);
        let r = receipt(vec![canceled()]);
        assert_eq!(
            settle(no_sessions(), subs, &r, DEEP),
            [SettleOutcome::SubscriptionRecorded(id)]
        );
    }
}

// ---- depth ---------------------------------------------------------------------------

#[test]
fn nothing_is_written_below_depth() {
    let s = session();
    let start = receipt(vec![subscribed(&s), charged()]);
    let mut subs = MockSubscriptionStore::new();
    subs.expect_subscription_by_chain_id().never();
    no_writes(&mut subs);
    assert_eq!(
        settle(sessions(&s, 1, 0), subs, &start, BLOCK),
        [SettleOutcome::AwaitingDepth]
    );
    for r in [receipt(vec![charged()]), receipt(vec![canceled()])] {
        let mut subs = subscriptions(Some(record(SubscriptionStatus::Active)));
        subs.expect_payment_for_period().never();
        no_writes(&mut subs);
        assert_eq!(
            settle(no_sessions(), subs, &r, BLOCK),
            [SettleOutcome::AwaitingDepth]
        );
    }
}
