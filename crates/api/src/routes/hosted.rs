//! The public hosted checkout (no API key; the session id is the capability; per-IP rate
//! limit): the page, the signed payment intent, and the fast-path confirmation.

use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use stablepay_domain::rules::eip712::{self, Domain, PaymentIntent};
use stablepay_domain::services::{settle_checkout, SettleDeps, SettleError, SettleOutcome};
use stablepay_domain::{
    Address, CheckoutSession, CheckoutSessionId, PageRequest, PaymentFilter, PaymentStatus,
    SessionStatus, Timestamp, TxHash,
};

use crate::error::ApiError;
use crate::input::json_body;
use crate::state::AppState;

const PAGE: &str = include_str!("hosted_page.html");

/// What the buyer's page may know about a session.
#[derive(Serialize)]
pub struct PublicSession {
    id: CheckoutSessionId,
    object: &'static str,
    livemode: bool,
    status: SessionStatus,
    title: String,
    description: Option<String>,
    amount: stablepay_domain::Amount,
    currency: stablepay_domain::Currency,
    chain_id: stablepay_domain::ChainId,
    network: &'static str,
    recipient_address: Address,
    expires_at: Timestamp,
    success_url: Option<String>,
    cancel_url: Option<String>,
    tx_hash: Option<TxHash>,
    completed_at: Option<Timestamp>,
}

impl From<&CheckoutSession> for PublicSession {
    fn from(s: &CheckoutSession) -> Self {
        Self {
            id: s.id,
            object: "checkout.session",
            livemode: s.mode.is_live(),
            status: s.status,
            title: s.title.clone(),
            description: s.description.clone(),
            amount: s.amount,
            currency: s.currency,
            chain_id: s.chain,
            network: if s.chain.mode().is_live() {
                "Base"
            } else {
                "Base Sepolia"
            },
            recipient_address: s.recipient_address,
            expires_at: s.expires_at,
            success_url: s.success_url.clone(),
            cancel_url: s.cancel_url.clone(),
            tx_hash: s.tx_hash,
            completed_at: s.completed_at,
        }
    }
}

fn client_ip(req: &HttpRequest) -> std::net::IpAddr {
    req.peer_addr()
        .map(|a| a.ip())
        .unwrap_or(std::net::IpAddr::from([0, 0, 0, 0]))
}

fn json(status: actix_web::http::StatusCode, body: &impl Serialize) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("application/json")
        .body(serde_json::to_string(body).unwrap_or_default())
}

/// Rate limit, session lookup with lazy expiry; every failure is the envelope.
async fn load(state: &AppState, req: &HttpRequest) -> Result<CheckoutSession, ApiError> {
    if let Err(wait) = state.public_rate_limiter.check(client_ip(req)) {
        return Err(ApiError::rate_limited(
            format!("Too many requests; retry in {wait} s"),
            wait,
        ));
    }
    let raw = req.match_info().get("id").unwrap_or_default().to_owned();
    let not_found = || ApiError::not_found("checkout session", &raw);
    let id = CheckoutSessionId::parse(&raw).map_err(|_| not_found())?;
    let session = state.sessions.get_public(id).await?.ok_or_else(not_found)?;
    let now = state.clock.now();
    if session.needs_expiry(now) {
        return Ok(state.sessions.expire(id, now).await?);
    }
    Ok(session)
}

pub async fn page(state: Data<AppState>, req: HttpRequest) -> HttpResponse {
    match load(&state, &req).await {
        Ok(session) => {
            // Data reaches the page as JSON (with `<` escaped) and is set with textContent.
            let data = serde_json::to_string(&PublicSession::from(&session))
                .unwrap_or_default()
                .replace('<', "\\u003c");
            HttpResponse::Ok()
                .content_type("text/html; charset=utf-8")
                .insert_header(("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'"))
                .insert_header(("X-Frame-Options", "DENY"))
                .body(PAGE.replace("__SESSION_JSON__", &data))
        }
        Err(err) => err.to_response(),
    }
}

#[derive(Serialize)]
struct IntentFields {
    #[serde(rename = "ref")]
    reference: String,
    token: Address,
    recipient: Address,
    net_amount: String,
    fee_amount: String,
    deadline: u64,
}

#[derive(Serialize)]
struct IntentResponse {
    chain_id: stablepay_domain::ChainId,
    mode: &'static str,
    contract: Address,
    token: Address,
    intent: IntentFields,
    signature: String,
    /// Ready-to-send calldata, so a wallet page needs no ABI code.
    approve_calldata: String,
    pay_calldata: String,
    total_amount: String,
}

pub async fn intent(state: Data<AppState>, req: HttpRequest) -> HttpResponse {
    let result = async {
        let session = load(&state, &req).await?;
        if session.status != SessionStatus::Open {
            return Err(ApiError::not_found(
                "open checkout session",
                &session.id.to_string(),
            ));
        }
        let unavailable = |what: &str| {
            ApiError::unavailable(
                format!("Payments on this network are not available: {what}"),
                30,
            )
        };
        let contracts = state
            .chains
            .get(session.chain)
            .ok_or_else(|| unavailable("no checkout router is configured"))?;
        let key = state
            .operator_key
            .ok_or_else(|| unavailable("no operator key is configured"))?;
        let intent = PaymentIntent {
            reference: eip712::session_ref(&session.id),
            token: session.token_address,
            recipient: session.recipient_address,
            net_amount: u128::from(session.net_micros),
            fee_amount: u128::from(session.fee_micros),
            deadline: u64::try_from(session.expires_at.unix_seconds()).unwrap_or(0),
        };
        let domain = Domain {
            name: eip712::ROUTER_NAME,
            chain_id: session.chain.id(),
            verifying_contract: contracts.checkout_router,
        };
        let signature =
            eip712::sign(&domain, intent.struct_hash(), &key).ok_or_else(ApiError::internal)?;
        let total = intent.net_amount + intent.fee_amount;
        Ok(IntentResponse {
            chain_id: session.chain,
            mode: "payment",
            contract: contracts.checkout_router,
            token: session.token_address,
            intent: IntentFields {
                reference: format!("0x{}", hex::encode(intent.reference)),
                token: intent.token,
                recipient: intent.recipient,
                net_amount: intent.net_amount.to_string(),
                fee_amount: intent.fee_amount.to_string(),
                deadline: intent.deadline,
            },
            approve_calldata: format!(
                "0x{}",
                hex::encode(stablepay_evm::calldata::approve(
                    &contracts.checkout_router,
                    total
                ))
            ),
            pay_calldata: format!(
                "0x{}",
                hex::encode(stablepay_evm::calldata::pay(&intent, &signature))
            ),
            signature: signature.to_hex(),
            total_amount: total.to_string(),
        })
    }
    .await;
    match result {
        Ok(body) => json(actix_web::http::StatusCode::OK, &body),
        Err(err) => err.to_response(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfirmBody {
    tx_hash: Option<String>,
}

#[derive(Serialize)]
struct ConfirmResponse {
    #[serde(flatten)]
    session: PublicSession,
    /// `confirmed`, `pending` (below confirmation depth), `not_found` (not mined yet).
    settlement: &'static str,
}

pub async fn confirm(state: Data<AppState>, req: HttpRequest, body: Bytes) -> HttpResponse {
    let result = async {
        let session = load(&state, &req).await?;
        let parsed: ConfirmBody = json_body(&body)?;
        let raw = parsed
            .tx_hash
            .ok_or_else(|| ApiError::invalid_field("tx_hash", "is required"))?;
        let tx =
            TxHash::parse(&raw).map_err(|e| ApiError::invalid_field("tx_hash", e.to_string()))?;
        let deps = SettleDeps {
            chain: state.chain.as_ref(),
            store: state.settlement.as_ref(),
            clock: state.clock.as_ref(),
            chains: &state.chains,
        };
        let outcomes = settle_checkout(session.chain, tx, &deps)
            .await
            .map_err(|e| match e {
                SettleError::Store(e) => ApiError::from(e),
                e => ApiError::unavailable(format!("The network could not be checked: {e}"), 2),
            })?;
        if let Some(SettleOutcome::Rejected(why)) = outcomes.first() {
            return Err(ApiError::invalid_field(
                "tx_hash",
                format!("does not pay this session: {why}"),
            ));
        }
        let fresh = state
            .sessions
            .get_public(session.id)
            .await?
            .unwrap_or(session);
        // Judge by this session's own records: the transaction may pay another session.
        let filter = PaymentFilter {
            checkout_session: Some(fresh.id),
            ..PaymentFilter::default()
        };
        let recorded = state
            .reader
            .payments(
                fresh.merchant_id,
                fresh.mode,
                &filter,
                &PageRequest::first(1),
            )
            .await?;
        let settlement = if fresh.status == SessionStatus::Completed {
            "confirmed"
        } else if recorded
            .data
            .iter()
            .any(|p| p.status == PaymentStatus::Pending)
        {
            "pending"
        } else if matches!(outcomes.first(), Some(SettleOutcome::NotFound) | None) {
            "not_found"
        } else {
            return Err(ApiError::invalid_field(
                "tx_hash",
                "does not pay this session",
            ));
        };
        Ok(ConfirmResponse {
            session: PublicSession::from(&fresh),
            settlement,
        })
    }
    .await;
    match result {
        Ok(body) => json(actix_web::http::StatusCode::OK, &body),
        Err(err) => err.to_response(),
    }
}

pub async fn status(state: Data<AppState>, req: HttpRequest) -> HttpResponse {
    match load(&state, &req).await {
        Ok(s) => json(actix_web::http::StatusCode::OK, &PublicSession::from(&s)),
        Err(err) => err.to_response(),
    }
}
