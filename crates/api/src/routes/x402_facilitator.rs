//! The x402 facilitator (D29) under the merchant's API key, in the v2 shapes the official
//! SDKs' facilitator clients speak: `GET /api/v1/x402/supported`, `POST
//! /api/v1/x402/verify` and `POST /api/v1/x402/settle`. An invalid payment is a 200 that
//! says why (the SDKs treat any other status as a transport failure); a malformed body and
//! auth keep the error envelope.

use serde::Serialize;
use serde_json::json;
use stablepay_domain::rules::x402::{
    FacilitatorRequest, SettleResponse, VerifyResponse, SCHEME, VERSION,
};
use stablepay_domain::services::{x402_settle, x402_supported, x402_verify, X402Deps};

use crate::error::ApiError;
use crate::input::json_body;
use crate::request::{ReadCall, ReadReply, Reply, WriteCall};
use crate::routes::x402::x402_deps;
use stablepay_request_store::Checked;

/// One kind of payment the facilitator settles.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = X402SupportedKind)]
pub(crate) struct SupportedKind {
    x402_version: u64,
    scheme: &'static str,
    network: String,
}

/// `GET /x402/supported`.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = X402Supported)]
pub(crate) struct SupportedResponse {
    kinds: Vec<SupportedKind>,
    extensions: Vec<String>,
    /// The address that sends settlements, per network pattern (`eip155:*`).
    #[schema(value_type = Object)]
    signers: serde_json::Value,
}

fn deps(call: &WriteCall) -> X402Deps<'_> {
    x402_deps(&call.state, call.ports())
}

fn request(call: &WriteCall) -> Result<FacilitatorRequest, ApiError> {
    let request: FacilitatorRequest = json_body(&call.body)?;
    if request.x402_version != VERSION {
        return Err(ApiError::invalid_field(
            "x402Version",
            "must be 2 (x402 protocol v2)",
        ));
    }
    Ok(request)
}

/// What this facilitator settles: the exact scheme on the key's network.
#[utoipa::path(get, path = "/api/v1/x402/supported", operation_id = "x402_supported",
    tag = "x402 facilitator",
    responses((status = 200, description = "The kinds of payment settled", body = SupportedResponse)))]
pub async fn supported(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let supported = x402_supported(&call.auth, call.state.relayer.as_deref());
    let signers = match supported.signer {
        Some(signer) => json!({ "eip155:*": [signer.to_string()] }),
        None => json!({}),
    };
    Reply::ok(&SupportedResponse {
        kinds: vec![SupportedKind {
            x402_version: VERSION,
            scheme: SCHEME,
            network: supported.network,
        }],
        extensions: Vec::new(),
        signers,
    })
    // Nothing was read under the key's check: the key is authenticated before it is sent.
    .map(|reply| Checked::unconfirmed(ReadReply::Json(reply)))
}

/// Whether a payment to one of your open sessions' deposit addresses, at its gross, would
/// settle now. Invalid payments are answered 200 with `isValid: false` and a reason.
#[utoipa::path(post, path = "/api/v1/x402/verify", operation_id = "x402_verify",
    tag = "x402 facilitator", request_body = FacilitatorRequest,
    responses((status = 200, description = "The verdict", body = VerifyResponse)))]
pub async fn verify(call: WriteCall) -> Result<Reply, ApiError> {
    let r = request(&call)?;
    let verdict = x402_verify(&call.auth, &r, &deps(&call)).await?;
    Reply::ok(&verdict)
}

/// Settles a payment to one of your open sessions' deposit addresses, at its gross: the
/// relayer sends it, the answer waits for it to be mined, and the session completes as any
/// deposit does. Failures are answered 200 with `success: false` and a reason.
#[utoipa::path(post, path = "/api/v1/x402/settle", operation_id = "x402_settle",
    tag = "x402 facilitator", request_body = FacilitatorRequest,
    responses((status = 200, description = "The settlement", body = SettleResponse)))]
pub async fn settle(call: WriteCall) -> Result<Reply, ApiError> {
    let r = request(&call)?;
    // The wait for inclusion takes up to 30 s: a write holds no connection between its
    // port calls, so waits never exhaust the pool.
    let settled = x402_settle(&call.auth, &r, &deps(&call)).await?;
    Reply::ok(&settled)
}
