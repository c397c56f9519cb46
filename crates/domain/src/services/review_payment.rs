//! POST /payments/:id/review (D33): the merchant's decision on a payment held because its
//! payer was listed after the money had moved. Approve completes the session with the usual
//! events, as if the payment had been clear; return opens a refund request to its sender
//! for what it has left to refund. Either is one conditional write, with its audit entry,
//! that only a pending review takes: a second decision is a conflict.

use serde_json::json;

use crate::model::{
    AuditAction, AuditEvent, AuthContext, Changer, Missing, Payment, PaymentId, ReviewStatus,
    SessionStatus,
};
use crate::ports::{
    Clock, PaymentReviews, ResourceReader, ReviewDecided, SessionRepository, StoreError,
};
use crate::services::{completed_by, opened_refund_request, payment_events};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewDecision {
    Approve,
    Return,
}

impl ReviewDecision {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "approve" => Some(Self::Approve),
            "return" => Some(Self::Return),
            _ => None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error(transparent)]
    NotFound(Missing),
    /// Not held, or decided already (by another request, or earlier).
    #[error("{0}")]
    NotPending(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub struct ReviewDeps<'a> {
    pub reader: &'a dyn ResourceReader,
    pub sessions: &'a dyn SessionRepository,
    pub reviews: &'a dyn PaymentReviews,
    pub clock: &'a dyn Clock,
}

/// The payment as decided.
pub async fn review_payment(
    ctx: &AuthContext,
    id: PaymentId,
    decision: ReviewDecision,
    by: &Changer,
    deps: &ReviewDeps<'_>,
) -> Result<Payment, ReviewError> {
    let payment = deps
        .reader
        .payment(ctx.merchant_id, ctx.mode, id)
        .await?
        .ok_or_else(|| ReviewError::NotFound(Missing::of(id)))?;
    let review = match &payment.review {
        Some(r) if r.is_pending() => r.clone(),
        Some(r) => {
            return Err(ReviewError::NotPending(format!(
                "payment {id} was {} already",
                r.status.as_str()
            )))
        }
        None => {
            return Err(ReviewError::NotPending(format!(
                "payment {id} is not held for review"
            )))
        }
    };
    let now = deps.clock.now();
    let status = match decision {
        ReviewDecision::Approve => ReviewStatus::Approved,
        ReviewDecision::Return => ReviewStatus::Returned,
    };
    let decided = Payment {
        review: Some(review.decided(status, now)),
        ..payment.clone()
    };
    let action = match decision {
        ReviewDecision::Approve => AuditAction::PaymentReviewApproved,
        ReviewDecision::Return => AuditAction::PaymentReviewReturned,
    };
    let audit = AuditEvent::of(by, ctx.merchant_id, Some(ctx.mode), action, id, now).after(json!({
        "review": status.as_str(),
        "source": review.source,
    }));
    let mut write = ReviewDecided {
        payment: decided.clone(),
        completed_session: None,
        events: Vec::new(),
        refund_request: None,
        audits: vec![audit],
    };
    match decision {
        ReviewDecision::Approve => {
            let completed = match payment.checkout_session {
                Some(session) => deps
                    .sessions
                    .get(ctx.merchant_id, ctx.mode, session)
                    .await?
                    .filter(|s| s.status != SessionStatus::Completed)
                    // Every held payment was mined: it has its transaction.
                    .zip(payment.tx_hash)
                    .map(|(s, tx)| {
                        // An expired session too: money is never dropped (as a late payment).
                        completed_by(&s, payment.wallet_address, tx, payment.customer, now)
                    }),
                None => None,
            };
            write.events = payment_events(completed.as_ref(), &decided, now);
            write.completed_session = completed;
        }
        ReviewDecision::Return => {
            let (request, opened) = opened_refund_request(
                ctx,
                &payment,
                crate::model::Amount::from_micros(payment.refundable_micros()).map_err(|_| {
                    ReviewError::NotPending(format!("payment {id} has nothing left to refund"))
                })?,
                Some(format!("Returned: {}", review.reason)),
                by,
                now,
            );
            write.refund_request = Some(request);
            write.audits.push(opened);
        }
    }
    if !deps.reviews.decide_review(&write).await? {
        return Err(ReviewError::NotPending(format!(
            "payment {id} was decided by another request"
        )));
    }
    Ok(decided)
}

#[cfg(test)]
mod tests;
