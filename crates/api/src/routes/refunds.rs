use actix_web::http::StatusCode;
use serde::Deserialize;
use stablepay_domain::representation::RefundResource;
use stablepay_domain::rules::validation::{bounded_text, REASON_MAX};
use stablepay_domain::services::{record_refund, NewRefund, RefundDeps, RefundOutcome};
use stablepay_domain::{Amount, PaymentId, RefundRequestId, TxHash, ValidationErrors};

use crate::error::ApiError;
use crate::input::json_body;
use crate::request::{Reply, WriteCall};

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateRefundRequest)]
pub(crate) struct RefundBody {
    #[schema(value_type = PaymentId)]
    payment: Option<String>,
    /// The refund transfer you sent from the settlement wallet to the payer.
    #[schema(value_type = TxHash)]
    tx_hash: Option<String>,
    /// If given, must equal the transfer's amount.
    #[schema(schema_with = crate::openapi::fields::positive_amount)]
    amount: Option<serde_json::Value>,
    #[schema(schema_with = crate::openapi::fields::reason)]
    reason: Option<String>,
    /// The refund request (`rr_…`) this refund pays: the transfer must then go to the
    /// address the customer confirmed on the request's page, not to the payer.
    #[schema(value_type = Option<RefundRequestId>)]
    refund_request: Option<String>,
}

impl TryFrom<RefundBody> for NewRefund {
    type Error = ValidationErrors;

    fn try_from(b: RefundBody) -> Result<Self, ValidationErrors> {
        let mut e = ValidationErrors::default();
        let payment = payment_field(&mut e, b.payment);
        let tx_hash = match b.tx_hash {
            None => {
                e.push("tx_hash", "is required");
                None
            }
            Some(t) => e.check(
                "tx_hash",
                TxHash::parse(&t).map_err(|_| "must be a 0x-prefixed 32-byte transaction hash"),
            ),
        };
        let amount = b
            .amount
            .filter(|v| !v.is_null())
            .and_then(|v| amount_field(&mut e, v));
        let reason = reason_field(&mut e, b.reason);
        let refund_request = b.refund_request.and_then(|r| {
            e.check(
                "refund_request",
                RefundRequestId::parse(&r).map_err(|_| "must be a rr_ id"),
            )
        });
        match (payment, tx_hash, e.is_empty()) {
            (Some(payment), Some(tx_hash), true) => Ok(NewRefund {
                payment,
                tx_hash,
                amount,
                reason,
                refund_request,
            }),
            _ => Err(e),
        }
    }
}

/// `payment`, required: a `pay_` id. Shared with refund requests.
pub(crate) fn payment_field(e: &mut ValidationErrors, raw: Option<String>) -> Option<PaymentId> {
    match raw {
        None => {
            e.push("payment", "is required");
            None
        }
        Some(p) => e.check(
            "payment",
            PaymentId::parse(&p).map_err(|_| "must be a pay_ id"),
        ),
    }
}

/// `amount` as given (not null): a decimal string, never a JSON number.
pub(crate) fn amount_field(e: &mut ValidationErrors, v: serde_json::Value) -> Option<Amount> {
    match v {
        serde_json::Value::String(s) => e.check("amount", Amount::parse(&s)),
        _ => e.check::<Amount, _>(
            "amount",
            Err("must be a decimal string such as \"10.50\", not a JSON number"),
        ),
    }
}

/// `reason`, optional: at most `REASON_MAX` characters.
pub(crate) fn reason_field(e: &mut ValidationErrors, raw: Option<String>) -> Option<String> {
    raw.and_then(|r| e.check("reason", bounded_text(&r, 0, REASON_MAX)))
}

/// Records a refund you sent on-chain, after verifying the transfer (200 when the same
/// transfer was already recorded).
#[utoipa::path(post, path = "/api/v1/refunds", operation_id = "create_refund", tag = "Refunds",
    request_body = RefundBody,
    responses(
        (status = 201, description = "The recorded refund", body = RefundResource),
        (status = 200, description = "This transfer was already recorded", body = RefundResource),
        (status = 404, description = "No such payment")))]
pub async fn create(call: WriteCall) -> Result<Reply, ApiError> {
    let body: RefundBody = json_body(&call.body)?;
    let new = NewRefund::try_from(body)?;
    let s = &call.state;
    let deps = RefundDeps {
        reader: call.ports().reader(),
        wallets: call.ports().wallets(),
        refunds: call.ports().refunds(),
        requests: call.ports().refund_requests(),
        chain: s.chain.as_ref(),
        clock: s.clock.as_ref(),
        chains: &s.chains,
    };
    let outcome = record_refund(&call.auth, new, &call.changer(), &deps).await?;
    match outcome {
        RefundOutcome::Created(r) => Reply::json(StatusCode::CREATED, &RefundResource::from(r)),
        RefundOutcome::Existing(r) => Reply::ok(&RefundResource::from(r)),
    }
}
