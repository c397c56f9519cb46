//! The subscriber of a subscribe screened when its first charge is booked (D33): the
//! money already moved, so a listed subscriber's payment is held for review, its
//! subscription recorded paused with `payer_sanctioned` and the session left open with
//! only `payment.requires_review`; one no source answered for is settled on a later pass.

use std::sync::Arc;

use futures_executor::block_on;

use super::tests::{sessions, subscriptions};
use super::*;
use crate::model::{
    ReviewStatus, ScreeningAnswer, ScreeningPath, ScreeningSubject, SessionStatus,
    SubscriptionStatus,
};
use crate::ports::SubscriptionStart;
use crate::services::fixtures::screening::{listed, screening_answering};
use crate::services::fixtures::subscriptions::*;

/// Settles `s`'s subscribe and first charge at depth with every payer answered `answer`.
fn settle_screened(
    answer: ScreeningAnswer,
    writes: usize,
) -> (Vec<SettleOutcome>, Vec<SubscriptionStart>) {
    let s = session();
    let mut subs = subscriptions(None);
    let seen: Seen<SubscriptionStart> = Seen::default();
    let sink = Arc::clone(&seen);
    subs.expect_record_subscription_start()
        .times(writes)
        .returning(move |w| {
            sink.lock().unwrap().push(w.clone());
            Ok(SettlementWrite::Written)
        });
    let mut h = Harness::new(sessions(&s, 1, writes), subs);
    h.screening = screening_answering(answer);
    let id = s.id;
    h.screening_log
        .expect_record_checks()
        .times(1)
        .withf(move |c| {
            c[0].path == ScreeningPath::Subscribe
                && c[0].payer.subject == ScreeningSubject::Session(id)
                && c[0].payer.address == subscriber()
        })
        .returning(|_| Ok(()));
    let r = receipt(vec![subscribed(&s), charged()]);
    let outcomes = block_on(settle_subscription_receipt(
        CHAIN,
        &r,
        DEEP,
        &h.settle_deps(),
    ))
    .unwrap();
    let written = seen.lock().unwrap().clone();
    (outcomes, written)
}

#[test]
fn a_listed_subscriber_s_first_charge_is_held_and_its_subscription_paused() {
    let (outcomes, written) = settle_screened(listed(), 1);
    let w = &written[0];
    assert_eq!(outcomes, [SettleOutcome::Confirmed(w.payment.id)]);
    assert!(w.held());
    let review = w.payment.review.as_ref().expect("held");
    assert_eq!(review.status, ReviewStatus::Pending);
    assert_eq!(w.payment.status, PaymentStatus::Confirmed);
    let sub = &w.subscription.subscription;
    assert_eq!(sub.status, SubscriptionStatus::Paused);
    assert_eq!(sub.last_failure_code.as_deref(), Some("payer_sanctioned"));
    assert_eq!(w.session.status, SessionStatus::Open, "not completed");
    assert_eq!(w.session.subscription, Some(sub.id));
    assert_eq!(w.session.customer, Some(customer()));
    let types: Vec<EventType> = w.events.iter().map(|e| e.event_type).collect();
    assert_eq!(types, [EventType::PaymentRequiresReview]);
    assert_eq!(
        w.ledger.len(),
        1,
        "the money is in the merchant's wallet: booked"
    );
}

#[test]
fn a_clear_subscriber_starts_as_without_screening() {
    let (_, written) = settle_screened(ScreeningAnswer::Clear, 1);
    let w = &written[0];
    assert!(!w.held());
    assert_eq!(w.payment.review, None);
    assert_eq!(
        w.subscription.subscription.status,
        SubscriptionStatus::Active
    );
    assert_eq!(w.session.status, SessionStatus::Completed);
}

#[test]
fn an_unscreened_subscriber_is_settled_later_never_taken_for_clear() {
    let (outcomes, written) = settle_screened(ScreeningAnswer::Unknown, 0);
    assert!(written.is_empty());
    assert!(
        matches!(&outcomes[..], [SettleOutcome::Deferred(_)]),
        "{outcomes:?}"
    );
}
