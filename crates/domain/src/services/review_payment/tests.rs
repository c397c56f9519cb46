//! `review_payment` on mocked ports: approve completes the open session with the usual
//! events; return opens a refund request to the sender; anything not pending is a conflict.

use futures_executor::block_on;

use super::*;
use crate::model::CheckoutSession;
use crate::model::{
    Actor, ApiKeyId, EventType, FeeTier, PaymentReview, PaymentStatus, ScreeningAnswer,
    UnderpaymentTolerance,
};
use crate::ports::{MockClock, MockPaymentReviews, MockResourceReader, MockSessionRepository};
use crate::services::fixtures::settlement::{now, receipt, recorded, session};

struct World {
    ctx: AuthContext,
    session: CheckoutSession,
    payment: Payment,
    reader: MockResourceReader,
    sessions: MockSessionRepository,
    reviews: MockPaymentReviews,
    clock: MockClock,
}

fn held() -> PaymentReview {
    PaymentReview::held(&ScreeningAnswer::Listed {
        list: "sanctions_oracle".into(),
        entry: None,
    })
    .unwrap()
}

impl World {
    fn new(review: Option<PaymentReview>) -> Self {
        let session = session();
        let mut payment = recorded(&session, &receipt(&session), PaymentStatus::Confirmed);
        payment.review = review;
        let ctx = AuthContext {
            merchant_id: session.merchant_id,
            mode: session.mode,
            actor: Actor::ApiKey(ApiKeyId::generate()),
            fee_tier: FeeTier::Standard,
            rate_limit_per_min: None,
            underpayment_tolerance: UnderpaymentTolerance::NONE,
        };
        let mut reader = MockResourceReader::new();
        let found = payment.clone();
        reader
            .expect_payment()
            .returning(move |_, _, _| Ok(Some(found.clone())));
        let mut sessions = MockSessionRepository::new();
        let open = session.clone();
        sessions
            .expect_get()
            .returning(move |_, _, _| Ok(Some(open.clone())));
        let mut clock = MockClock::new();
        clock.expect_now().return_const(now());
        Self {
            ctx,
            session,
            payment,
            reader,
            sessions,
            reviews: MockPaymentReviews::new(),
            clock,
        }
    }

    fn review(&self, decision: ReviewDecision) -> Result<Payment, ReviewError> {
        block_on(review_payment(
            &self.ctx,
            self.payment.id,
            decision,
            &Changer::OPERATOR,
            &ReviewDeps {
                reader: &self.reader,
                sessions: &self.sessions,
                reviews: &self.reviews,
                clock: &self.clock,
            },
        ))
    }
}

#[test]
fn approving_completes_the_open_session_with_the_usual_events() {
    let mut w = World::new(Some(held()));
    let session = w.session.id;
    w.reviews
        .expect_decide_review()
        .times(1)
        .withf(move |d| {
            let types: Vec<EventType> = d.events.iter().map(|e| e.event_type).collect();
            d.payment.review.as_ref().map(|r| r.status) == Some(ReviewStatus::Approved)
                && d.completed_session.as_ref().map(|s| (s.id, s.status))
                    == Some((session, SessionStatus::Completed))
                && types
                    == [
                        EventType::CheckoutSessionCompleted,
                        EventType::PaymentSucceeded,
                    ]
                && d.refund_request.is_none()
                && d.audits.len() == 1
                && d.audits[0].action == AuditAction::PaymentReviewApproved
        })
        .returning(|_| Ok(true));
    let decided = w.review(ReviewDecision::Approve).unwrap();
    let review = decided.review.unwrap();
    assert_eq!(
        (review.status, review.decided_at),
        (ReviewStatus::Approved, Some(now()))
    );
}

#[test]
fn returning_opens_a_refund_request_to_the_sender_for_what_is_left() {
    let mut w = World::new(Some(held()));
    let (payment, amount) = (w.payment.id, w.payment.refundable_micros());
    w.reviews
        .expect_decide_review()
        .times(1)
        .withf(move |d| {
            let request = d.refund_request.as_ref().unwrap();
            d.payment.review.as_ref().map(|r| r.status) == Some(ReviewStatus::Returned)
                && d.completed_session.is_none()
                && d.events.is_empty()
                && request.payment == payment
                && request.amount.micros() == amount
                && request
                    .reason
                    .as_deref()
                    .is_some_and(|r| r.contains("sanctions_oracle"))
                && d.audits.iter().map(|a| a.action).collect::<Vec<_>>()
                    == [
                        AuditAction::PaymentReviewReturned,
                        AuditAction::RefundRequestCreated,
                    ]
        })
        .returning(|_| Ok(true));
    assert!(w.review(ReviewDecision::Return).is_ok());
}

#[test]
fn a_payment_not_pending_review_is_a_conflict_and_writes_nothing() {
    for review in [None, Some(held().decided(ReviewStatus::Approved, now()))] {
        let mut w = World::new(review);
        w.reviews.expect_decide_review().never();
        assert!(matches!(
            w.review(ReviewDecision::Approve),
            Err(ReviewError::NotPending(_))
        ));
    }
    // Decided by a concurrent request between the read and the write.
    let mut w = World::new(Some(held()));
    w.reviews.expect_decide_review().returning(|_| Ok(false));
    assert!(matches!(
        w.review(ReviewDecision::Return),
        Err(ReviewError::NotPending(_))
    ));
}
