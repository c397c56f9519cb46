//! POST /refund_requests (D32): the merchant asks the customer where a refund should go,
//! for a payment whose sender may be an exchange's shared wallet (every deposit payment;
//! any payment on request). Nothing moves until the customer confirms an address.

use serde_json::json;

use crate::model::{
    Amount, AuditAction, AuditEvent, AuthContext, Changer, FieldError, Missing, PaymentId,
    RefundRequest, RefundRequestId, RefundRequestStatus, ValidationErrors, REFUND_REQUEST_TTL_SECS,
};
use crate::ports::{Clock, RefundRequestStore, ResourceReader, StoreError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRefundRequest {
    pub payment: PaymentId,
    pub amount: Amount,
    pub reason: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum RefundRequestError {
    #[error(transparent)]
    NotFound(Missing),
    #[error(transparent)]
    Rejected(ValidationErrors),
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn reject(field: &str, message: impl Into<String>) -> RefundRequestError {
    RefundRequestError::Rejected(ValidationErrors(vec![FieldError::new(field, message)]))
}

pub struct RefundRequestDeps<'a> {
    pub reader: &'a dyn ResourceReader,
    pub requests: &'a dyn RefundRequestStore,
    pub clock: &'a dyn Clock,
}

pub async fn create_refund_request(
    ctx: &AuthContext,
    new: NewRefundRequest,
    by: &Changer,
    deps: &RefundRequestDeps<'_>,
) -> Result<RefundRequest, RefundRequestError> {
    let payment = deps
        .reader
        .payment(ctx.merchant_id, ctx.mode, new.payment)
        .await?
        .ok_or_else(|| RefundRequestError::NotFound(Missing::of(new.payment)))?;
    if !payment.takes_refunds() {
        return Err(reject(
            "payment",
            format!(
                "is {}; only confirmed payments can be refunded",
                payment.status.as_str()
            ),
        ));
    }
    let refundable = payment.refundable_micros();
    if new.amount.micros() > refundable {
        return Err(reject(
            "amount",
            format!(
                "{} exceeds the refundable amount {}",
                new.amount,
                crate::model::render_micros(refundable)
            ),
        ));
    }
    let now = deps.clock.now();
    let (request, audit) = opened_refund_request(ctx, &payment, new.amount, new.reason, by, now);
    deps.requests.insert_request(&request, &audit).await?;
    Ok(request)
}

/// A new request of `amount` of `payment`, awaiting the customer's address, and its audit
/// entry (also what returning a payment held for review opens, D33).
pub(crate) fn opened_refund_request(
    ctx: &AuthContext,
    payment: &crate::model::Payment,
    amount: Amount,
    reason: Option<String>,
    by: &Changer,
    now: crate::model::Timestamp,
) -> (RefundRequest, AuditEvent) {
    let request = RefundRequest {
        id: RefundRequestId::generate_at(now),
        merchant_id: ctx.merchant_id,
        mode: ctx.mode,
        payment: payment.id,
        amount,
        currency: payment.currency,
        chain: payment.chain,
        token_address: payment.token_address,
        reason,
        status: RefundRequestStatus::AwaitingAddress,
        requested_by: by.actor,
        destination_address: None,
        confirmation: None,
        confirmed_from: None,
        address_confirmed_at: None,
        refund: None,
        refunded_at: None,
        expires_at: now.plus_seconds(REFUND_REQUEST_TTL_SECS),
        created_at: now,
    };
    let audit = AuditEvent::of(
        by,
        ctx.merchant_id,
        Some(ctx.mode),
        AuditAction::RefundRequestCreated,
        request.id,
        now,
    )
    .after(json!({
        "payment": payment.id.to_string(),
        "amount": request.amount.to_string(),
        "currency": request.currency.as_str(),
        "expires_at": request.expires_at.to_string(),
    }));
    (request, audit)
}
