//! The merchant's decisions on payments held for review (D33).

use async_trait::async_trait;

use super::{EventDraft, StoreError};
use crate::model::{AuditEvent, CheckoutSession, Payment, RefundRequest};

/// One decision and everything it brings, written together.
#[derive(Debug, Clone)]
pub struct ReviewDecided {
    /// The payment with its review decided.
    pub payment: Payment,
    /// Approve: the session the payment completes (none if another payment completed it).
    pub completed_session: Option<CheckoutSession>,
    /// Approve: `checkout.session.completed` (when it completes one) and `payment.succeeded`.
    pub events: Vec<EventDraft>,
    /// Return: the refund request to the payment's sender.
    pub refund_request: Option<RefundRequest>,
    pub audits: Vec<AuditEvent>,
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait PaymentReviews: Send + Sync {
    /// Writes `decided` in one transaction only if the stored payment's review is still
    /// pending; `false` (nothing written) otherwise. Errors: `Unavailable`/`Internal`.
    async fn decide_review(&self, decided: &ReviewDecided) -> Result<bool, StoreError>;
}
