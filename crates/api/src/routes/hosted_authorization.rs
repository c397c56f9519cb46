//! One-signature payments on the hosted page (D23): the EIP-3009 authorization a wallet
//! signs (`GET /pay/:id/authorization?payer=`) and its submission to the relayer
//! (`POST /pay/:id/authorization`). Public like `/pay/:id`, with the same per-IP limit.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use stablepay_domain::ports::Relayed;
use stablepay_domain::services::{
    authorization_request, submit_authorization, AuthorizationDeps, HostedDeps,
};
use stablepay_domain::{Address, ChainId, CheckoutSessionId, Signature};

use crate::error::ApiError;
use crate::input::json_body;
use crate::request::{admit_public, render, Reply};
use crate::state::{AppState, HttpWorkerStore};

pub(crate) fn deps<'a>(state: &'a AppState, hosted: HostedDeps<'a>) -> AuthorizationDeps<'a> {
    AuthorizationDeps {
        hosted,
        relayer: state.relayer.as_deref(),
    }
}

fn payer(raw: Option<&str>) -> Result<Address, ApiError> {
    let raw = raw.ok_or_else(|| ApiError::invalid_field("payer", "is required"))?;
    Address::parse(raw).map_err(|e| ApiError::invalid_field("payer", e.to_string()))
}

#[derive(Serialize)]
struct AuthorizationResponse {
    chain_id: ChainId,
    token: Address,
    /// The router the authorization pays (its `to`), which the relayer calls.
    contract: Address,
    /// Exactly what `eth_signTypedData_v4` takes.
    typed_data: serde_json::Value,
}

pub async fn authorization(
    state: Data<AppState>,
    store: Data<HttpWorkerStore>,
    req: HttpRequest,
) -> HttpResponse {
    let result = async {
        let id: CheckoutSessionId = admit_public(&state, &req)?;
        let query = url::form_urlencoded::parse(req.query_string().as_bytes())
            .find(|(k, _)| k == "payer")
            .map(|(_, v)| v.into_owned());
        let payer = payer(query.as_deref())?;
        let hosted = crate::routes::hosted::deps(&state, store.storage());
        let request = authorization_request(id, payer, &deps(&state, hosted)).await?;
        Reply::ok(&AuthorizationResponse {
            chain_id: request.session.chain,
            token: request.session.token_address,
            contract: request.router,
            typed_data: request.authorization.typed_data(&request.domain),
        })
    }
    .await;
    render(result)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SubmitBody {
    payer: Option<String>,
    valid_before: Option<serde_json::Value>,
    signature: Option<String>,
}

#[derive(Serialize)]
struct SubmitResponse {
    /// `submitted`: the relayer sent it; the page confirms it with `/pay/:id/confirm`.
    status: &'static str,
    tx_hash: String,
}

pub async fn submit(
    state: Data<AppState>,
    store: Data<HttpWorkerStore>,
    req: HttpRequest,
    body: Bytes,
) -> HttpResponse {
    let result = async {
        let id: CheckoutSessionId = admit_public(&state, &req)?;
        let body: SubmitBody = json_body(&body)?;
        let payer = payer(body.payer.as_deref())?;
        // A JSON number or a decimal string, as the typed data carries it.
        let valid_before = match &body.valid_before {
            Some(serde_json::Value::Number(n)) => n.as_u64(),
            Some(serde_json::Value::String(s)) => s.parse::<u64>().ok(),
            _ => None,
        }
        .ok_or_else(|| {
            ApiError::invalid_field(
                "valid_before",
                "is required: the authorization's validBefore",
            )
        })?;
        let signature = body
            .signature
            .ok_or_else(|| ApiError::invalid_field("signature", "is required"))
            .and_then(|s| {
                Signature::parse(&s)
                    .map_err(|e| ApiError::invalid_field("signature", e.to_string()))
            })?;
        let hosted = crate::routes::hosted::deps(&state, store.storage());
        let (_, relayed) =
            submit_authorization(id, payer, valid_before, &signature, &deps(&state, hosted))
                .await?;
        let status = match relayed {
            Relayed::Submitted(_) => StatusCode::ACCEPTED,
            Relayed::AlreadySubmitted(_) => StatusCode::OK,
        };
        Reply::json(
            status,
            &SubmitResponse {
                status: "submitted",
                tx_hash: relayed.tx_hash().to_string(),
            },
        )
    }
    .await;
    render(result)
}
