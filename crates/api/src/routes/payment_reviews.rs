//! POST /api/v1/payments/:id/review (D33): the merchant approves a payment held because its
//! payer was listed after the money moved, or returns it (a refund request to its sender).

use serde::Deserialize;
use stablepay_domain::representation::PaymentResource;
use stablepay_domain::services::{review_payment, ReviewDecision, ReviewDeps};
use stablepay_domain::PaymentId;

use crate::error::ApiError;
use crate::input::json_body;
use crate::request::{Reply, WriteCall};

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ReviewPaymentRequest)]
pub(crate) struct ReviewBody {
    /// `approve` completes the session with the usual events; `return` opens a refund
    /// request to the payment's sender for what it has left to refund.
    #[schema(value_type = String, pattern = "^(approve|return)$")]
    decision: Option<String>,
}

#[utoipa::path(post, path = "/api/v1/payments/{id}/review", operation_id = "review_payment",
    tag = "Payments", params(("id" = PaymentId, Path)), request_body = ReviewBody,
    responses(
        (status = 200, description = "The payment with its review decided", body = PaymentResource),
        (status = 404, description = "No such payment"),
        (status = 409, description = "The payment is not held for review, or was decided already"),
    ))]
pub async fn review(call: WriteCall) -> Result<Reply, ApiError> {
    let id: PaymentId = call.path_id()?;
    let body: ReviewBody = json_body(&call.body)?;
    let decision = match body.decision.as_deref() {
        None => return Err(ApiError::invalid_field("decision", "is required")),
        Some(d) => ReviewDecision::parse(d)
            .ok_or_else(|| ApiError::invalid_field("decision", "must be approve or return"))?,
    };
    let ports = call.ports();
    let payment = review_payment(
        &call.auth,
        id,
        decision,
        &call.changer(),
        &ReviewDeps {
            reader: ports.reader(),
            sessions: ports.sessions(),
            reviews: ports.payment_reviews(),
            clock: call.state.clock.as_ref(),
        },
    )
    .await?;
    Reply::ok(&PaymentResource::from(payment))
}
