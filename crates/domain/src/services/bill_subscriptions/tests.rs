//! Tests of `bill_due_subscriptions` with mocked ports: the claim, the simulation, the
//! keeper send, the dunning write of a failed try, the holds, `due_period`, and the
//! follow-up of charges in flight.

use futures_executor::block_on;

use super::*;
use crate::model::{Mode, Subscription};
use crate::ports::{
    ChainError, ChainReceipt, ChargeAttempt, InFlightCharge, KeeperError, MockSubscriptionStore,
    Resent,
};

use crate::services::fixtures::subscriptions::*;

const DAY: i64 = 86_400;
const LIMIT: u32 = 10;

/// A harness whose store hands out `claimed` once, for a lease, and whose keeper has
/// nothing in flight.
fn claiming(claimed: Vec<SubscriptionRecord>) -> Harness {
    let mut h = Harness::new(no_sessions(), MockSubscriptionStore::new());
    let lease = now().plus_seconds(CLAIM_LEASE_SECS);
    h.subscriptions
        .expect_claim_due()
        .withf(move |c, at, until, n| (*c, *at, *until, *n) == (CHAIN, now(), lease, LIMIT))
        .times(1)
        .return_const(Ok(claimed));
    h.keeper
        .expect_in_flight()
        .times(1)
        .returning(|_| Ok(vec![]));
    h.chain.expect_block_number().never();
    h
}

fn bill(h: &Harness) -> BillingReport {
    block_on(bill_due_subscriptions(CHAIN, LIMIT, &h.billing_deps())).unwrap()
}

fn report(charges: Vec<(SubscriptionId, ChargeOutcome)>) -> BillingReport {
    BillingReport {
        charges,
        ..BillingReport::default()
    }
}

/// The keeper's `eth_call` of `charge(SUB)` on `manager()` answers `answer`, once.
fn simulating(h: &mut Harness, answer: Result<ChargeSimulation, ChainError>) {
    h.keeper
        .expect_simulate_charge()
        .withf(|c, m, id| (*c, *m, *id) == (CHAIN, manager(), SUB))
        .times(1)
        .return_const(answer);
}

/// The period `period()` of `id` holds `found` and `n` attempts (each read once).
fn period_reads(h: &mut Harness, id: SubscriptionId, found: Option<Payment>, n: u32) {
    let subs = &mut h.subscriptions;
    subs.expect_payment_for_period()
        .withf(move |s, p| (*s, *p) == (id, period()))
        .times(1)
        .return_const(Ok(found));
    subs.expect_attempts_in_period()
        .withf(move |s, p| (*s, *p) == (id, period()))
        .times(1)
        .return_const(Ok(n));
}

/// Bills `rec`, whose simulation answers `code`, over a period holding `found` and `n`
/// attempts; expects one billing write and returns it with `rec`'s outcome.
fn failure_written(
    rec: &SubscriptionRecord,
    code: Result<ChargeSimulation, ChainError>,
    found: Option<Payment>,
    n: u32,
) -> (ChargeOutcome, BillingWrite) {
    let mut h = claiming(vec![rec.clone()]);
    simulating(&mut h, code);
    period_reads(&mut h, rec.subscription.id, found, n);
    h.keeper.expect_send_charge().never();
    let seen = expect_billing(&mut h.subscriptions);
    let charges = bill(&h).charges;
    let [(id, outcome)] = charges.as_slice() else {
        panic!("expected one charge, got {charges:?}");
    };
    assert_eq!(*id, rec.subscription.id);
    (outcome.clone(), written(&seen).remove(0))
}

// ---- due_period -----------------------------------------------------------------------

#[test]
fn the_due_period_is_the_last_schedule_date_not_after_now() {
    let (anchor, i) = (at(NOW), INTERVAL as i64);
    assert_eq!(
        due_period(anchor, INTERVAL, at(NOW - 5)),
        anchor,
        "not due yet"
    );
    assert_eq!(due_period(anchor, INTERVAL, anchor), anchor);
    assert_eq!(due_period(anchor, INTERVAL, at(NOW + i - 1)), anchor);
    assert_eq!(due_period(anchor, INTERVAL, at(NOW + i)), at(NOW + i));
    assert_eq!(
        due_period(anchor, INTERVAL, at(NOW + 3 * i + 5)),
        at(NOW + 3 * i)
    );
    assert_eq!(
        due_period(anchor, 0, at(NOW + 7)),
        at(NOW + 7),
        "0 s counts as 1 s"
    );
}

// ---- charging -------------------------------------------------------------------------

/// Bills `rec`, which simulates as chargeable; expects one keeper send for `period`,
/// answered `answer`, and no write; returns `rec`'s outcome.
fn sent(
    rec: SubscriptionRecord,
    period: Timestamp,
    answer: Result<TxHash, KeeperError>,
) -> ChargeOutcome {
    let id = rec.subscription.id;
    let mut h = claiming(vec![rec.clone()]);
    simulating(&mut h, Ok(ChargeSimulation::Chargeable));
    // Read again right before the send.
    h.subscriptions
        .expect_subscription_public()
        .withf(move |s| *s == id)
        .times(1)
        .return_const(Ok(Some(rec)));
    h.keeper
        .expect_send_charge()
        .withf(move |c, m, s, n, p| (*c, *m, *s, *n, *p) == (CHAIN, manager(), id, SUB, period))
        .times(1)
        .return_const(answer);
    no_writes(&mut h.subscriptions);
    let got = bill(&h);
    assert_eq!(got.charges.len(), 1);
    assert_eq!(got.charges[0].0, id);
    got.charges[0].1.clone()
}

#[test]
fn a_chargeable_subscription_is_sent_through_the_keeper_for_its_period() {
    let rec = record(SubscriptionStatus::Active);
    assert_eq!(sent(rec, period(), Ok(tx(9))), ChargeOutcome::Sent(tx(9)));
}

#[test]
fn a_keeper_back_after_three_missed_periods_charges_the_current_period() {
    let mut rec = record(SubscriptionStatus::Active);
    let behind = 3 * INTERVAL as i64 + 100;
    rec.subscription.next_payment_at = Some(now().plus_seconds(-behind));
    let current = now().plus_seconds(-100);
    assert_eq!(sent(rec, current, Ok(tx(9))), ChargeOutcome::Sent(tx(9)));
}

#[test]
fn a_failed_send_is_an_error_without_a_write() {
    let rec = record(SubscriptionStatus::Active);
    let why = "billing is not configured on chain 84532".to_owned();
    let refused = Err(KeeperError::NotConfigured(84532));
    assert_eq!(sent(rec, period(), refused), ChargeOutcome::Error(why));
}

#[test]
fn a_portal_cancel_between_the_claim_and_the_send_means_no_charge() {
    for status in [
        SubscriptionStatus::Canceled,
        SubscriptionStatus::Paused,
        SubscriptionStatus::Expired,
    ] {
        let rec = record(SubscriptionStatus::Active);
        let id = rec.subscription.id;
        let mut fresh = rec.clone();
        fresh.subscription.status = status;
        let mut h = claiming(vec![rec]);
        simulating(&mut h, Ok(ChargeSimulation::Chargeable));
        h.subscriptions
            .expect_subscription_public()
            .times(1)
            .return_const(Ok(Some(fresh)));
        h.keeper.expect_send_charge().never();
        no_writes(&mut h.subscriptions);
        assert_eq!(
            bill(&h),
            report(vec![(id, ChargeOutcome::NotLive)]),
            "{status:?}"
        );
    }
}

#[test]
fn a_listed_subscriber_is_paused_for_sanctions_and_an_unscreened_one_not_charged_now() {
    use crate::services::fixtures::screening::{listed, screening_answering};
    for (answer, paused) in [
        (listed(), true),
        (crate::model::ScreeningAnswer::Unknown, false),
    ] {
        let rec = record(SubscriptionStatus::Active);
        let id = rec.subscription.id;
        let mut h = claiming(vec![rec.clone()]);
        simulating(&mut h, Ok(ChargeSimulation::Chargeable));
        h.subscriptions
            .expect_subscription_public()
            .return_const(Ok(Some(rec)));
        h.screening = screening_answering(answer);
        h.screening_log
            .expect_record_checks()
            .times(1)
            .withf(move |c| {
                c[0].path == crate::model::ScreeningPath::SubscriptionCharge
                    && c[0].payer.subject == crate::model::ScreeningSubject::Subscription(id)
            })
            .returning(|_| Ok(()));
        h.keeper.expect_send_charge().never();
        let written = expect_billing(&mut h.subscriptions);
        let expected = if paused {
            ChargeOutcome::NotLive
        } else {
            ChargeOutcome::NotDue
        };
        assert_eq!(bill(&h), report(vec![(id, expected)]));
        let w = written.lock().unwrap()[0].clone();
        if paused {
            assert_eq!(
                w.subscription.subscription.status,
                SubscriptionStatus::Paused
            );
            assert_eq!(
                w.subscription.subscription.last_failure_code.as_deref(),
                Some("payer_sanctioned")
            );
        } else {
            assert_eq!(
                w.subscription.subscription.status,
                SubscriptionStatus::Active
            );
            assert!(w.hold_until.is_some(), "tried again later");
        }
    }
}

#[test]
fn subscriptions_without_a_due_date_or_a_numeric_chain_id_are_not_simulated() {
    let mut unscheduled = record(SubscriptionStatus::Active);
    unscheduled.subscription.next_payment_at = None;
    let mut garbled = record(SubscriptionStatus::Active);
    garbled.subscription.chain_subscription_id = "seven".into();
    let ids = (unscheduled.subscription.id, garbled.subscription.id);
    let mut h = claiming(vec![unscheduled, garbled]);
    h.keeper.expect_simulate_charge().never();
    no_writes(&mut h.subscriptions);
    let mut charges = bill(&h).charges;
    charges.sort_by_key(|(id, _)| *id != ids.0);
    let why = "the chain subscription id is not a number".to_owned();
    assert_eq!(
        charges,
        [
            (ids.0, ChargeOutcome::NotLive),
            (ids.1, ChargeOutcome::Error(why))
        ]
    );
}

#[test]
fn a_chain_without_a_subscription_manager_claims_nothing() {
    let mut h = Harness::new(no_sessions(), MockSubscriptionStore::new());
    h.chains = directory(None);
    h.subscriptions.expect_claim_due().never();
    h.keeper.expect_in_flight().never();
    assert_eq!(bill(&h), BillingReport::default());
}

// ---- failed tries ---------------------------------------------------------------------

#[test]
fn a_failed_charge_on_an_active_subscription_goes_past_due_with_both_events() {
    let rec = record(SubscriptionStatus::Active);
    let code = FailureCode::InsufficientAllowance;
    let fails = Ok(ChargeSimulation::Fails(code));
    let (got, w) = failure_written(&rec, fails, None, 1);
    assert_eq!(got, ChargeOutcome::Failed(code));
    let past_due = Subscription {
        status: SubscriptionStatus::PastDue,
        retry_count: 0,
        next_retry_at: Some(now().plus_seconds(DAY)),
        last_failure_code: Some("insufficient_allowance".into()),
        ..rec.subscription.clone()
    };
    assert_eq!(
        w.subscription.subscription, past_due,
        "the period stays due"
    );
    assert_eq!(w.subscription.version, rec.version);
    let up = w.payment.unwrap();
    let failed = Payment {
        id: up.payment.id,
        ..payment(&rec, PaymentStatus::Failed)
    };
    assert_eq!((up.payment, up.replaces), (failed.clone(), None));
    let attempt = w.attempt.unwrap();
    let expected = failed_attempt(attempt.id, &rec, Some(failed.id), 2, code, None);
    assert_eq!(attempt, expected);
    assert_eq!(
        event_types(&w.events),
        [EventType::PaymentFailed, EventType::SubscriptionPastDue]
    );
    for e in &w.events {
        assert_eq!(
            (e.merchant_id, e.mode, e.created_at),
            (rec.subscription.merchant_id, Mode::Test, now())
        );
    }
    let (paid, sub) = (json(&w.events[0]), json(&w.events[1]));
    assert_eq!(
        (paid["id"].as_str(), paid["status"].as_str()),
        (Some(failed.id.to_string().as_str()), Some("failed"))
    );
    assert_eq!(sub["status"], "past_due");
    assert_eq!((w.settles_charge_tx, w.hold_until), (None, None));
}

#[test]
fn a_failed_retry_with_retries_exhausted_expires_the_subscription() {
    let mut rec = record(SubscriptionStatus::PastDue);
    rec.subscription.retry_count = 2;
    rec.subscription.next_retry_at = Some(now().plus_seconds(-5));
    rec.subscription.last_failure_code = Some("insufficient_allowance".into());
    let earlier = Payment {
        created_at: now().plus_seconds(-9 * DAY),
        ..payment(&rec, PaymentStatus::Failed)
    };
    let code = FailureCode::InsufficientBalance;
    let fails = Ok(ChargeSimulation::Fails(code));
    let (got, w) = failure_written(&rec, fails, Some(earlier.clone()), 3);
    assert_eq!(got, ChargeOutcome::Failed(code));
    let expired = Subscription {
        status: SubscriptionStatus::Expired,
        retry_count: 3,
        next_retry_at: None,
        next_payment_at: None,
        last_failure_code: Some("insufficient_balance".into()),
        ..rec.subscription.clone()
    };
    assert_eq!(w.subscription.subscription, expired);
    assert_eq!(
        w.payment, None,
        "the period's failed payment is already recorded"
    );
    let attempt = w.attempt.unwrap();
    let expected = failed_attempt(attempt.id, &rec, Some(earlier.id), 4, code, None);
    assert_eq!(attempt, expected);
    assert_eq!(
        event_types(&w.events),
        [EventType::PaymentFailed, EventType::SubscriptionExpired]
    );
    assert_eq!(json(&w.events[0])["id"], earlier.id.to_string());
    assert_eq!(json(&w.events[1])["status"], "expired");
}

#[test]
fn an_unavailable_chain_records_an_attempt_and_holds_the_claim_for_a_lease() {
    let rec = record(SubscriptionStatus::Active);
    let code = FailureCode::ChainUnavailable;
    let down = Err(ChainError::Unavailable("timeout".into()));
    let (got, w) = failure_written(&rec, down, None, 0);
    assert_eq!(got, ChargeOutcome::Failed(code));
    let noted = Subscription {
        last_failure_code: Some("chain_unavailable".into()),
        ..rec.subscription.clone()
    };
    assert_eq!(
        w.subscription.subscription, noted,
        "still active, no retry counted"
    );
    assert_eq!(w.payment, None);
    let attempt = w.attempt.unwrap();
    assert_eq!(
        attempt,
        failed_attempt(attempt.id, &rec, None, 1, code, None)
    );
    assert_eq!(w.events, []);
    assert_eq!(w.hold_until, Some(now().plus_seconds(CLAIM_LEASE_SECS)));
}

#[test]
fn a_subscription_inactive_on_chain_is_canceled_without_a_failed_payment() {
    let rec = record(SubscriptionStatus::Active);
    let code = FailureCode::SubscriptionInactive;
    let (got, w) = failure_written(&rec, Ok(ChargeSimulation::Fails(code)), None, 0);
    assert_eq!(got, ChargeOutcome::Failed(code));
    let canceled = Subscription {
        status: SubscriptionStatus::Canceled,
        canceled_at: Some(now()),
        next_payment_at: None,
        ..rec.subscription.clone()
    };
    assert_eq!(w.subscription.subscription, canceled);
    assert_eq!(w.payment, None);
    let attempt = w.attempt.unwrap();
    assert_eq!(
        attempt,
        failed_attempt(attempt.id, &rec, None, 1, code, None)
    );
    assert_eq!(event_types(&w.events), [EventType::SubscriptionCanceled]);
}

#[test]
fn a_not_due_answer_holds_the_claim_briefly_without_an_attempt() {
    let rec = record(SubscriptionStatus::Active);
    let id = rec.subscription.id;
    let mut h = claiming(vec![rec.clone()]);
    simulating(&mut h, Ok(ChargeSimulation::NotDue));
    h.subscriptions.expect_payment_for_period().never();
    h.subscriptions.expect_attempts_in_period().never();
    let seen = expect_billing(&mut h.subscriptions);
    assert_eq!(bill(&h), report(vec![(id, ChargeOutcome::NotDue)]));
    let hold = BillingWrite {
        hold_until: Some(now().plus_seconds(NOT_DUE_RETRY_SECS)),
        ..BillingWrite::state_only(rec)
    };
    assert_eq!(written(&seen), [hold]);
}

#[test]
fn a_failure_write_that_loses_a_race_is_decided_again_from_the_fresh_subscription() {
    let rec = record(SubscriptionStatus::Active);
    let id = rec.subscription.id;
    // Another worker recorded the period's failure first.
    let earlier = payment(&rec, PaymentStatus::Failed);
    let mut fresh = rec.clone();
    fresh.version += 1;
    fresh.subscription.status = SubscriptionStatus::PastDue;
    fresh.subscription.next_retry_at = Some(now().plus_seconds(DAY));
    let mut h = claiming(vec![rec]);
    let code = FailureCode::InsufficientAllowance;
    simulating(&mut h, Ok(ChargeSimulation::Fails(code)));
    let subs = &mut h.subscriptions;
    let mut found = vec![None, Some(earlier.clone())];
    subs.expect_payment_for_period()
        .times(2)
        .returning(move |_, _| Ok(found.remove(0)));
    let mut attempts = vec![0, 1];
    subs.expect_attempts_in_period()
        .times(2)
        .returning(move |_, _| Ok(attempts.remove(0)));
    subs.expect_subscription_public()
        .withf(move |s| *s == id)
        .times(1)
        .return_const(Ok(Some(fresh.clone())));
    let seen = expect_billings(subs, vec![SettlementWrite::Stale, SettlementWrite::Written]);
    assert_eq!(bill(&h), report(vec![(id, ChargeOutcome::Failed(code))]));
    let w = written(&seen).remove(1);
    assert_eq!(w.subscription.version, fresh.version);
    let sub = &w.subscription.subscription;
    assert_eq!(
        (sub.status, sub.retry_count),
        (SubscriptionStatus::PastDue, 1)
    );
    assert_eq!(sub.next_retry_at, Some(now().plus_seconds(3 * DAY)));
    assert_eq!(w.payment, None);
    let attempt = w.attempt.unwrap();
    assert_eq!(
        (attempt.attempt_number, attempt.payment),
        (2, Some(earlier.id))
    );
    assert_eq!(event_types(&w.events), [EventType::PaymentFailed]);
}

#[test]
fn a_failure_on_a_subscription_canceled_meanwhile_is_not_recorded() {
    let rec = record(SubscriptionStatus::Active);
    let id = rec.subscription.id;
    let mut fresh = rec.clone();
    fresh.subscription.status = SubscriptionStatus::Canceled;
    let mut h = claiming(vec![rec]);
    simulating(
        &mut h,
        Ok(ChargeSimulation::Fails(FailureCode::InsufficientBalance)),
    );
    period_reads(&mut h, id, None, 0);
    h.subscriptions
        .expect_subscription_public()
        .times(1)
        .return_const(Ok(Some(fresh)));
    let seen = expect_billings(&mut h.subscriptions, vec![SettlementWrite::Stale]);
    assert_eq!(bill(&h), report(vec![(id, ChargeOutcome::NotLive)]));
    assert_eq!(written(&seen).len(), 1);
}

// The follow-up of charges in flight (replacements, fills, settlement at depth).
mod in_flight;
