use actix_web::web::{Data, Payload};
use actix_web::{HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::value::RawValue;
use stablepay_domain::rules::validation::{
    bounded_text, expires_in_seconds, redirect_url, CUSTOMER_REFERENCE_MAX, DESCRIPTION_MAX,
    EXPIRES_DEFAULT, TITLE_MAX,
};
use stablepay_domain::services::{
    create_checkout_session, get_checkout_session, list_checkout_sessions, CreateSessionDeps,
    CreateSessionError, LookupError, NewSessionRequest,
};
use stablepay_domain::{
    Address, Amount, ChainId, CheckoutSessionId, Currency, SessionFilter, SessionMode,
    SessionStatus, ValidationErrors,
};

use crate::error::ApiError;
use crate::input::json_body;
use crate::state::AppState;
use crate::wrapper::{api_call, api_call_atomic, Reply};
use stablepay_domain::representation::{CheckoutSessionResource, List};

/// The POST body as sent; loosely typed where the spec allows several JSON types.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateSessionBody {
    mode: Option<String>,
    title: Option<String>,
    amount: Option<serde_json::Value>,
    description: Option<String>,
    recipient: Option<String>,
    customer_reference: Option<String>,
    metadata: Option<Box<RawValue>>,
    success_url: Option<String>,
    cancel_url: Option<String>,
    expires_in_seconds: Option<serde_json::Value>,
    chain: Option<serde_json::Value>,
    chain_plan_id: Option<serde_json::Value>,
    interval_seconds: Option<serde_json::Value>,
    currency: Option<String>,
}

impl TryFrom<CreateSessionBody> for NewSessionRequest {
    type Error = ValidationErrors;

    fn try_from(b: CreateSessionBody) -> Result<Self, ValidationErrors> {
        let mut e = ValidationErrors::default();
        let session_mode = match b.mode.as_deref() {
            None => {
                e.push("mode", "is required (\"payment\" or \"subscription\")");
                None
            }
            Some(m) => e.check(
                "mode",
                SessionMode::parse(m).ok_or("must be \"payment\" or \"subscription\""),
            ),
        };
        let title = match b.title {
            None => {
                e.push("title", "is required");
                None
            }
            Some(t) => e.check("title", bounded_text(&t, 1, TITLE_MAX)),
        };
        let amount = b.amount.and_then(|v| match v {
            serde_json::Value::String(s) => e.check("amount", Amount::parse(&s)),
            serde_json::Value::Null => None,
            _ => e.check::<Amount, _>(
                "amount",
                Err("must be a decimal string such as \"10.50\", not a JSON number"),
            ),
        });
        if session_mode == Some(SessionMode::Payment)
            && amount.is_none()
            && !e.0.iter().any(|f| f.field == "amount")
        {
            e.push("amount", "is required in payment mode");
        }
        let description = b
            .description
            .and_then(|d| e.check("description", bounded_text(&d, 0, DESCRIPTION_MAX)));
        let recipient = b
            .recipient
            .and_then(|r| e.check("recipient", Address::parse(&r)));
        let customer_reference = b.customer_reference.and_then(|r| {
            e.check(
                "customer_reference",
                bounded_text(&r, 1, CUSTOMER_REFERENCE_MAX),
            )
        });
        let metadata = match b.metadata {
            None => Some("{}".to_owned()),
            Some(raw) if raw.get().trim_start().starts_with('{') => Some(raw.get().to_owned()),
            Some(raw) if raw.get() == "null" => Some("{}".to_owned()),
            Some(_) => e.check::<String, _>("metadata", Err("must be a JSON object")),
        };
        let success_url = b
            .success_url
            .and_then(|u| e.check("success_url", redirect_url(&u)));
        let cancel_url = b
            .cancel_url
            .and_then(|u| e.check("cancel_url", redirect_url(&u)));
        let expires = match b.expires_in_seconds {
            None | Some(serde_json::Value::Null) => Some(EXPIRES_DEFAULT),
            Some(v) => e.check("expires_in_seconds", expires_in_seconds(&v)),
        };
        let chain = b
            .chain
            .filter(|v| !v.is_null())
            .and_then(|v| e.check("chain", ChainId::parse_selector(&v)));
        let chain_plan_id = b
            .chain_plan_id
            .filter(|v| !v.is_null())
            .and_then(|v| match v {
                serde_json::Value::String(s)
                    if !s.is_empty() && s.len() <= 78 && s.bytes().all(|c| c.is_ascii_digit()) =>
                {
                    Some(s)
                }
                serde_json::Value::Number(n) if n.is_u64() => Some(n.to_string()),
                _ => e.check::<String, _>(
                    "chain_plan_id",
                    Err("must be a non-negative integer plan id (string or number)"),
                ),
            });
        let interval_seconds = b.interval_seconds.filter(|v| !v.is_null()).and_then(|v| {
            e.check(
                "interval_seconds",
                v.as_u64()
                    .filter(|s| *s > 0)
                    .ok_or("must be a positive integer"),
            )
        });
        let currency = match b.currency.as_deref() {
            None => Some(Currency::Usdc),
            Some(c) => e.check(
                "currency",
                Currency::parse(c).ok_or("must be \"USDC\" or \"USDT\""),
            ),
        };
        e.clone().into_result()?;
        match (session_mode, title, metadata, expires, currency) {
            (
                Some(session_mode),
                Some(title),
                Some(metadata),
                Some(expires_in_seconds),
                Some(currency),
            ) => Ok(NewSessionRequest {
                session_mode,
                title,
                amount,
                description,
                recipient,
                customer_reference,
                metadata,
                success_url,
                cancel_url,
                expires_in_seconds,
                chain,
                chain_plan_id,
                interval_seconds,
                currency,
            }),
            _ => Err(e),
        }
    }
}

pub async fn create(state: Data<AppState>, req: HttpRequest, payload: Payload) -> HttpResponse {
    // Subscription sessions read their plan from the chain (≤ 2 s timeout) inside the
    // transaction; its locks are the idempotency key's alone.
    api_call_atomic(state, req, payload, |call| async move {
        let body: CreateSessionBody = json_body(&call.body)?;
        let request = NewSessionRequest::try_from(body)?;
        let s = &call.state;
        let deps = CreateSessionDeps {
            sessions: s.sessions.as_ref(),
            wallets: s.wallets.as_ref(),
            clock: s.clock.as_ref(),
            tokens: &s.tokens,
            chain: s.chain.as_ref(),
            chains: &s.chains,
            subscriptions: s.subscriptions.as_ref(),
            plan_min_interval_secs: s.plan_min_interval_secs,
        };
        let session = create_checkout_session(&call.auth, request, &deps)
            .await
            .map_err(|e| match e {
                CreateSessionError::Invalid(v) => ApiError::from(v),
                CreateSessionError::Store(e) => ApiError::from(e),
                CreateSessionError::ChainUnavailable(detail) => {
                    tracing::warn!(%detail, "chain unavailable reading a subscription plan");
                    ApiError::unavailable(
                        "The network could not be reached to read the plan; retry in a few seconds",
                        2,
                    )
                }
            })?;
        Reply::created(&CheckoutSessionResource::new(session, &s.public_url))
    })
    .await
}

pub async fn retrieve(state: Data<AppState>, req: HttpRequest, payload: Payload) -> HttpResponse {
    api_call(state, req, payload, |call| async move {
        let id: CheckoutSessionId = call.path_id("checkout session")?;
        let s = &call.state;
        let session = get_checkout_session(&call.auth, id, s.sessions.as_ref(), s.clock.as_ref())
            .await
            .map_err(|e| match e {
                LookupError::NotFound => call.not_found("checkout session"),
                LookupError::Store(e) => e.into(),
            })?;
        Reply::ok(&CheckoutSessionResource::new(session, &s.public_url))
    })
    .await
}

pub async fn list(state: Data<AppState>, req: HttpRequest, payload: Payload) -> HttpResponse {
    api_call(state, req, payload, |call| async move {
        let mut q = call.query()?;
        let status = q.take_parsed("status", SessionStatus::parse, "open, completed or expired")?;
        let customer_reference = q.take("customer_reference");
        let page = q.page::<CheckoutSessionId>("checkout session")?;
        q.finish()?;
        let filter = SessionFilter {
            status,
            customer_reference,
        };
        let s = &call.state;
        let sessions = list_checkout_sessions(
            &call.auth,
            &filter,
            &page,
            s.sessions.as_ref(),
            s.clock.as_ref(),
        )
        .await?;
        Reply::ok(&List::from_page(sessions, |x| {
            CheckoutSessionResource::new(x, &s.public_url)
        }))
    })
    .await
}
