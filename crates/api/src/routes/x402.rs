//! `GET /x402/{id}` (D29): a checkout session as an x402 resource for agents. Without a
//! payment it answers 402 with `PAYMENT-REQUIRED`; with a `PAYMENT-SIGNATURE` it has the
//! domain verify and settle it (`pay_by_x402`) and answers 200 with `PAYMENT-RESPONSE`
//! and the public session, or 402 again with fresh requirements and the reason. Headers
//! carry standard, padded base64 of compact JSON, as the official SDKs read them.

use std::time::Duration;

use actix_web::http::header::HeaderValue;
use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};
use base64::Engine;
use stablepay_domain::representation::PublicSession;
use stablepay_domain::rules::x402::{
    self, PaymentPayload, PaymentRequired, ResourceInfo, SettleResponse,
};
use stablepay_domain::services::{
    pay_by_x402, x402_offer, HostedError, X402Deps, X402Error, X402Offer,
};
use stablepay_domain::{CheckoutSession, CheckoutSessionId, ScreeningPath};

use crate::error::ApiError;
use crate::request::{admit_public, render};
use crate::routes::hosted;
use crate::state::{AppState, HttpWorkerStore};
use stablepay_domain::ports::Storage;

pub const PAYMENT_REQUIRED: &str = "PAYMENT-REQUIRED";
pub const PAYMENT_SIGNATURE: &str = "PAYMENT-SIGNATURE";
pub const PAYMENT_RESPONSE: &str = "PAYMENT-RESPONSE";

/// How long a paying request waits for its transfer to be mined (Base: a block every 2 s);
/// past it the answer is `settlement_pending` and the same payment, sent again, waits on.
pub(crate) const INCLUSION_WAIT: Duration = Duration::from_secs(30);

/// What the x402 use cases reach, built here once for the resource and the facilitator.
pub(crate) fn x402_deps<'a>(state: &'a AppState, store: &'a dyn Storage) -> X402Deps<'a> {
    X402Deps {
        hosted: hosted::deps(state, store),
        relayer: state.relayer.as_deref(),
        inclusion_wait: INCLUSION_WAIT,
    }
}

pub async fn resource(
    state: Data<AppState>,
    store: Data<HttpWorkerStore>,
    req: HttpRequest,
) -> HttpResponse {
    let id = match admit_public::<CheckoutSessionId>(&state, &req) {
        Ok(id) => id,
        Err(e) => return render(Err(e)),
    };
    let deps = x402_deps(&state, store.storage());
    let url = format!("{}/x402/{id}", state.public_url.trim_end_matches('/'));
    let Some(header) = req.headers().get(PAYMENT_SIGNATURE) else {
        return match x402_offer(id, &deps).await {
            Ok(Ok(offer)) => payment_required(&url, Some(&offer), None, &offer.session),
            Ok(Err((why, session))) => payment_required(&url, None, Some(why.reason()), &session),
            Err(e) => hosted_failure(e, &url),
        };
    };
    let payment = match decode_payment(header) {
        Ok(payment) => payment,
        Err(()) => return fresh(&url, id, &deps, "invalid_payload").await,
    };
    match pay_by_x402(id, &payment, ScreeningPath::X402, &deps).await {
        Ok(paid) => {
            let settled = SettleResponse {
                success: true,
                error_reason: None,
                payer: Some(paid.payer.to_string()),
                transaction: paid.tx.to_string(),
                network: x402::network(paid.session.chain),
            };
            let mut reply = HttpResponse::Ok();
            if let Some(value) = encoded(&settled) {
                reply.insert_header((PAYMENT_RESPONSE, value));
            }
            reply.json(PublicSession::from(&paid.session))
        }
        Err(X402Error::Refused(r)) => {
            tracing::info!(session = %id, reason = r.reason, detail = %r.detail, "x402 payment refused");
            match &r.offer {
                Some(offer) => payment_required(&url, Some(offer), Some(r.reason), &r.session),
                None => fresh(&url, id, &deps, r.reason).await,
            }
        }
        Err(X402Error::Hosted(e)) => hosted_failure(e, &url),
    }
}

/// The `PAYMENT-SIGNATURE` document, or `Err` when it is not base64 JSON of that shape.
fn decode_payment(header: &HeaderValue) -> Result<PaymentPayload, ()> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(header.as_bytes())
        .map_err(|_| ())?;
    serde_json::from_slice(&bytes).map_err(|_| ())
}

/// 402 with what the session asks now (if anything) and `error`.
async fn fresh(url: &str, id: CheckoutSessionId, deps: &X402Deps<'_>, error: &str) -> HttpResponse {
    match x402_offer(id, deps).await {
        Ok(Ok(offer)) => payment_required(url, Some(&offer), Some(error), &offer.session),
        Ok(Err((_, session))) => payment_required(url, None, Some(error), &session),
        Err(e) => hosted_failure(e, url),
    }
}

/// An unknown session is a 404 (nothing to pay); a node that cannot answer is a 402 that
/// says so (a payer's retry may succeed); storage failures keep the error envelope.
fn hosted_failure(e: HostedError, url: &str) -> HttpResponse {
    match e {
        HostedError::ChainUnavailable(detail) => {
            tracing::warn!(%detail, "x402: the chain could not be read");
            let body = PaymentRequired {
                x402_version: x402::VERSION,
                error: Some("chain_unavailable".into()),
                resource: ResourceInfo {
                    url: url.to_owned(),
                    description: None,
                    mime_type: Some("application/json".into()),
                },
                accepts: Vec::new(),
            };
            respond_402(&body)
        }
        other => render(Err(ApiError::from(other))),
    }
}

fn payment_required(
    url: &str,
    offer: Option<&X402Offer>,
    error: Option<&str>,
    session: &CheckoutSession,
) -> HttpResponse {
    let body = PaymentRequired {
        x402_version: x402::VERSION,
        error: error.map(str::to_owned),
        resource: ResourceInfo {
            url: url.to_owned(),
            description: Some(session.title.clone()),
            mime_type: Some("application/json".into()),
        },
        accepts: offer
            .map(|o| vec![o.requirements.clone()])
            .unwrap_or_default(),
    };
    respond_402(&body)
}

fn respond_402(body: &PaymentRequired) -> HttpResponse {
    let mut reply = HttpResponse::build(StatusCode::PAYMENT_REQUIRED);
    if let Some(value) = encoded(body) {
        reply.insert_header((PAYMENT_REQUIRED, value));
    }
    // The SDKs read the header; the same document as the body is for people.
    reply.json(body)
}

/// Standard, padded base64 of the compact JSON.
fn encoded<T: serde::Serialize>(value: &T) -> Option<String> {
    serde_json::to_vec(value)
        .ok()
        .map(|json| base64::engine::general_purpose::STANDARD.encode(json))
}
