//! Router payments whose payer is screened at depth (D33): listed → booked held for review
//! (no completion, only `payment.requires_review`); unknown → left pending, nothing booked.

use super::*;
use crate::model::{ReviewStatus, ScreeningAnswer, ScreeningPath};
use crate::ports::MockChainReader;
use crate::services::fixtures::screening::{listed, screening_answering};
use crate::services::fixtures::settlement::*;

fn harness(
    answer: ScreeningAnswer,
    check: impl Fn(&CheckoutSettlement) -> bool + Send + 'static,
) -> (Harness, CheckoutSession, ChainReceipt) {
    let s = session();
    let r = receipt(&s);
    let mut store = store_of(vec![s.clone()], vec![]);
    store
        .expect_record_checkout_settlement()
        .times(1)
        .withf(check)
        .returning(|_| Ok(SettlementWrite::Written));
    let mut h = Harness::new(MockChainReader::new(), store);
    h.screening = screening_answering(answer);
    h.screening_log
        .expect_record_checks()
        .times(1)
        .withf(|c| c.len() == 1 && c[0].path == ScreeningPath::Router)
        .returning(|_| Ok(()));
    (h, s, r)
}

#[test]
fn a_listed_payer_at_depth_is_booked_held_and_the_session_left_open() {
    let (h, _, r) = harness(listed(), |w| {
        w.payment.status == PaymentStatus::Confirmed
            && w.payment
                .review
                .as_ref()
                .map(|r| (r.status, r.source.as_str()))
                == Some((ReviewStatus::Pending, "sanctions_oracle"))
            && w.completed_session.is_none()
            && w.events.len() == 1
            && w.events[0].event_type == EventType::PaymentRequiresReview
            && !w.ledger.is_empty()
    });
    assert!(matches!(
        h.settle_one(&r, BLOCK + 1),
        SettleOutcome::Confirmed(_)
    ));
}

#[test]
fn an_unanswered_payer_at_depth_stays_pending_with_nothing_booked() {
    let (h, _, r) = harness(ScreeningAnswer::Unknown, |w| {
        w.payment.status == PaymentStatus::Pending
            && w.payment.review.is_none()
            && w.completed_session.is_none()
            && w.events.is_empty()
            && w.ledger.is_empty()
    });
    assert!(matches!(
        h.settle_one(&r, BLOCK + 1),
        SettleOutcome::Pending(_)
    ));
}

#[test]
fn a_clear_payer_completes_the_session_as_before() {
    let (h, _, r) = harness(ScreeningAnswer::Clear, move |w| {
        w.payment.review.is_none()
            && w.completed_session.as_ref().map(|c| c.status) == Some(SessionStatus::Completed)
            && w.events.iter().map(|e| e.event_type).collect::<Vec<_>>()
                == [
                    EventType::CheckoutSessionCompleted,
                    EventType::PaymentSucceeded,
                ]
    });
    assert!(matches!(
        h.settle_one(&r, BLOCK + 1),
        SettleOutcome::Confirmed(_)
    ));
}
