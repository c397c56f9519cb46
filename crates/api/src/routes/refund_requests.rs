//! Refund requests (D32): the merchant's API (create, retrieve, list) and the customer's
//! public endpoints (the confirmation text to sign, the address), per-IP rate limited like
//! `/pay`; the request's id is the customer's capability. Rules live in the domain's
//! `create_refund_request` and `confirm_refund_address`; the page is in `stablepay-web`.

use super::refunds::{amount_field, payment_field, reason_field};
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use stablepay_domain::representation::{List, RefundRequestResource};
use stablepay_domain::rules::refund_requests::confirmation_message;
use stablepay_domain::services::{
    confirm_refund_address, create_refund_request, AddressProof, ConfirmAddressDeps,
    NewRefundRequest, RefundRequestDeps,
};
use stablepay_domain::{Address, Missing, PaymentId, RefundRequestId, Signature, ValidationErrors};
use stablepay_request_store::Checked;

use crate::error::ApiError;
use crate::input::json_body;
use crate::request::{
    admit_public, render_json as json, InTransaction, ReadCall, ReadReply, Reply, WriteCall,
};
use crate::state::{AppState, HttpWorkerStore};

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateRefundRequestRequest)]
pub(crate) struct RefundRequestBody {
    #[schema(value_type = PaymentId)]
    payment: Option<String>,
    /// How much to refund, at most what the payment has left to refund.
    #[schema(schema_with = crate::openapi::fields::required_positive_amount, required = true)]
    amount: Option<serde_json::Value>,
    #[schema(schema_with = crate::openapi::fields::reason)]
    reason: Option<String>,
}

impl TryFrom<RefundRequestBody> for NewRefundRequest {
    type Error = ValidationErrors;

    fn try_from(b: RefundRequestBody) -> Result<Self, ValidationErrors> {
        let mut e = ValidationErrors::default();
        let payment = payment_field(&mut e, b.payment);
        let amount = match b.amount.filter(|v| !v.is_null()) {
            None => {
                e.push("amount", "is required");
                None
            }
            Some(v) => amount_field(&mut e, v),
        };
        let reason = reason_field(&mut e, b.reason);
        match (payment, amount, e.is_empty()) {
            (Some(payment), Some(amount), true) => Ok(NewRefundRequest {
                payment,
                amount,
                reason,
            }),
            _ => Err(e),
        }
    }
}

/// Asks the payer for the address their refund should reach: send them the request's
/// `url`. Use it when the payment may have come from an exchange's shared wallet (every
/// deposit payment), where a refund to the sender is lost to the customer.
#[utoipa::path(post, path = "/api/v1/refund_requests", operation_id = "create_refund_request",
    tag = "Refund requests", request_body = RefundRequestBody,
    responses((status = 201, description = "The new request", body = RefundRequestResource),
        (status = 404, description = "No such payment")))]
pub async fn create(call: WriteCall) -> Result<InTransaction, ApiError> {
    let body: RefundRequestBody = json_body(&call.body)?;
    let new = NewRefundRequest::try_from(body)?;
    // Stored in one transaction with its Idempotency-Key's answer.
    Ok(InTransaction::new(move |call: WriteCall| async move {
        let s = &call.state;
        let deps = RefundRequestDeps {
            reader: call.ports().reader(),
            requests: call.ports().refund_requests(),
            clock: s.clock.as_ref(),
        };
        let request = create_refund_request(&call.auth, new, &call.changer(), &deps).await?;
        let now = s.clock.now();
        Reply::created(&RefundRequestResource::new(request, now, &s.public_url))
    }))
}

#[utoipa::path(get, path = "/api/v1/refund_requests/{id}", operation_id = "retrieve_refund_request",
    tag = "Refund requests", params(("id" = RefundRequestId, Path)),
    responses((status = 200, description = "The request", body = RefundRequestResource)))]
pub async fn retrieve(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let id: RefundRequestId = call.path_id()?;
    let found = call.reads().refund_request(id).await?;
    let found = found.try_map(|r| r.ok_or_else(|| Missing::of(id)))?;
    let (now, url) = (call.state.clock.now(), call.state.public_url.clone());
    Reply::read(found.map(|r| RefundRequestResource::new(r, now, &url)))
}

#[utoipa::path(get, path = "/api/v1/refund_requests", operation_id = "list_refund_requests",
    tag = "Refund requests",
    params(crate::openapi::PageParams,
        ("payment" = Option<PaymentId>, Query, description = "Only this payment's requests")),
    responses((status = 200, description = "Requests, newest first", body = List<RefundRequestResource>)))]
pub async fn list(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let mut q = call.query()?;
    let payment = q.id_filter::<PaymentId>("payment")?;
    let page = q.page::<RefundRequestId>()?;
    q.finish()?;
    let rows = call.reads().refund_requests(payment, &page).await?;
    let (now, url) = (call.state.clock.now(), call.state.public_url.clone());
    Reply::read(
        rows.map(|rows| List::from_page(rows, |r| RefundRequestResource::new(r, now, &url))),
    )
}

fn confirm_deps<'a>(state: &'a AppState, store: &'a HttpWorkerStore) -> ConfirmAddressDeps<'a> {
    ConfirmAddressDeps {
        requests: store.storage().refund_requests(),
        chain: state.chain.as_ref(),
        clock: state.clock.as_ref(),
        public_url: &state.public_url,
    }
}

#[derive(Serialize)]
struct ConfirmationText {
    message: String,
}

/// `GET /refund/{id}/message?address=0x…`: the text a wallet signs to confirm `address`.
pub async fn message(
    state: Data<AppState>,
    store: Data<HttpWorkerStore>,
    req: HttpRequest,
) -> HttpResponse {
    json(
        async {
            let id: RefundRequestId = admit_public(&state, &req)?;
            let mut query = crate::input::Query::parse(req.query_string())?;
            let raw = query
                .take("address")
                .ok_or_else(|| ApiError::invalid_field("address", "is required"))?;
            query.finish()?;
            let address = Address::parse(&raw)
                .map_err(|e| ApiError::invalid_field("address", e.to_string()))?;
            let request = store
                .storage()
                .refund_requests()
                .request_by_id(id)
                .await?
                .ok_or_else(|| Missing::of(id))?;
            Ok(ConfirmationText {
                message: confirmation_message(&request, address),
            })
        }
        .await,
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AddressBody {
    address: Option<String>,
    signature: Option<String>,
    address_confirmation: Option<String>,
}

/// `POST /refund/{id}/address`: `{address, signature}` or `{address, address_confirmation}`.
pub async fn confirm(
    state: Data<AppState>,
    store: Data<HttpWorkerStore>,
    req: HttpRequest,
    body: Bytes,
) -> HttpResponse {
    json(
        async {
            let id: RefundRequestId = admit_public(&state, &req)?;
            let b: AddressBody = json_body(&body)?;
            let mut e = ValidationErrors::default();
            let address = match b.address {
                None => {
                    e.push("address", "is required");
                    None
                }
                Some(a) => e.check("address", Address::parse(&a)),
            };
            let proof = match (b.signature, b.address_confirmation) {
                (Some(sig), None) => e
                    .check("signature", Signature::parse(&sig))
                    .map(AddressProof::Signature),
                (None, Some(again)) => e
                    .check("address_confirmation", Address::parse(&again))
                    .map(AddressProof::TypedTwice),
                (Some(_), Some(_)) => {
                    e.push(
                        "signature",
                        "give either signature or address_confirmation, not both",
                    );
                    None
                }
                (None, None) => {
                    e.push(
                        "signature",
                        "is required (or address_confirmation: the address typed again)",
                    );
                    None
                }
            };
            let (Some(address), Some(proof)) = (address, proof) else {
                return Err(e.into());
            };
            e.into_result()?;
            let client = state.public_rate_limiter.client_address(&req);
            let confirmed = confirm_refund_address(
                id,
                address,
                proof,
                Some(client),
                &confirm_deps(&state, &store),
            )
            .await?;
            let now = state.clock.now();
            Ok(RefundRequestResource::new(
                confirmed,
                now,
                &state.public_url,
            ))
        }
        .await,
    )
}
