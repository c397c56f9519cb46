//! A payment held for review (D33), decided from its page: approve (the checkout completes
//! with the usual webhooks) or return (a refund request to its sender), the same use case
//! as POST /api/v1/payments/:id/review.

use stablepay_domain::services::{review_payment, ReviewDecision, ReviewDeps, ReviewError};
use stablepay_domain::PaymentId;

use super::page_handler;
use crate::shell::{Reply, WebError};

page_handler!(decide, |p| async move {
    let id = PaymentId::parse(&p.path("id")).map_err(|_| WebError::NotFound)?;
    let decision = p
        .form
        .text("decision")
        .and_then(|d| ReviewDecision::parse(d.trim()))
        .ok_or_else(|| WebError::Invalid("decision: must be approve or return".into()))?;
    let s = &p.state;
    let deps = ReviewDeps {
        reader: s.store.reader(),
        sessions: s.store.sessions(),
        reviews: s.store.payment_reviews(),
        clock: s.clock.as_ref(),
    };
    match review_payment(&p.ctx(), id, decision, &p.changer(), &deps).await {
        Ok(_) => {
            let notice = match decision {
                ReviewDecision::Approve => "review_approved",
                ReviewDecision::Return => "review_returned",
            };
            Ok(Reply::Redirect(
                p.link(&format!("/payments/{id}?notice={notice}")),
            ))
        }
        Err(ReviewError::NotFound(_)) => Err(WebError::NotFound),
        Err(ReviewError::NotPending(m)) => Err(WebError::Invalid(m)),
        Err(ReviewError::Store(e)) => Err(e.into()),
    }
});
