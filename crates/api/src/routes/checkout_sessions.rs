use actix_web::web::{Data, Payload};
use actix_web::{HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::value::RawValue;
use stablepay_domain::rules::validation::{
    bounded_text, expires_in_seconds, DESCRIPTION_MAX, EXPIRES_DEFAULT,
};
use stablepay_domain::services::{
    create_checkout_session, get_checkout_session, list_checkout_sessions, CreateSessionDeps,
    NewSessionRequest,
};
use stablepay_domain::{
    Address, Amount, ChainId, ChainPlanId, CheckoutSessionId, Currency, CustomerReference,
    MetadataJson, Mode, RedirectUrl, SessionFilter, SessionMode, SessionStatus, SessionTerms,
    Title, ValidationErrors,
};

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

impl CreateSessionBody {
    /// The request for a key of `key_mode`, or every field error at once.
    fn parse(self, key_mode: Mode) -> Result<NewSessionRequest, ValidationErrors> {
        let b = self;
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
            Some(t) => e.check("title", Title::parse(&t)),
        };
        let amount = b.amount.and_then(|v| match v {
            serde_json::Value::String(s) => e.check("amount", Amount::parse(&s)),
            serde_json::Value::Null => None,
            _ => e.check::<Amount, _>(
                "amount",
                Err("must be a decimal string such as \"10.50\", not a JSON number"),
            ),
        });
        let description = b
            .description
            .and_then(|d| e.check("description", bounded_text(&d, 0, DESCRIPTION_MAX)));
        let recipient = b
            .recipient
            .and_then(|r| e.check("recipient", Address::parse(&r)));
        let customer_reference = b
            .customer_reference
            .and_then(|r| e.check("customer_reference", CustomerReference::parse(&r)));
        let metadata = match b.metadata {
            None => Some(MetadataJson::empty()),
            Some(raw) => e.check("metadata", MetadataJson::from_json_text(raw.get())),
        };
        let success_url = b
            .success_url
            .and_then(|u| e.check("success_url", RedirectUrl::parse(&u)));
        let cancel_url = b
            .cancel_url
            .and_then(|u| e.check("cancel_url", RedirectUrl::parse(&u)));
        let expires = match b.expires_in_seconds {
            None | Some(serde_json::Value::Null) => Some(EXPIRES_DEFAULT),
            Some(v) => e.check("expires_in_seconds", expires_in_seconds(&v)),
        };
        let chain = b
            .chain
            .filter(|v| !v.is_null())
            .and_then(|v| e.check("chain", ChainId::parse_selector(&v)));
        let plan = b
            .chain_plan_id
            .filter(|v| !v.is_null())
            .and_then(|v| e.check("chain_plan_id", ChainPlanId::from_json(&v)));
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
        let terms = session_mode.and_then(|mode| {
            SessionTerms::collect(mode, key_mode, amount, plan, interval_seconds, &mut e)
        });
        match (terms, title, metadata, expires, currency) {
            (
                Some(terms),
                Some(title),
                Some(metadata),
                Some(expires_in_seconds),
                Some(currency),
            ) if e.is_empty() => Ok(NewSessionRequest {
                terms,
                title,
                description,
                recipient,
                customer_reference,
                metadata,
                success_url,
                cancel_url,
                expires_in_seconds,
                chain,
                currency,
            }),
            // Every `None` above pushed its reason onto `e`.
            _ => Err(e),
        }
    }
}

pub async fn create(state: Data<AppState>, req: HttpRequest, payload: Payload) -> HttpResponse {
    // Subscription sessions read their plan from the chain (≤ 2 s timeout) inside the
    // transaction; its locks are the idempotency key's alone.
    api_call_atomic(state, req, payload, |call| async move {
        let body: CreateSessionBody = json_body(&call.body)?;
        let request = body.parse(call.auth.mode)?;
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
        let session = create_checkout_session(&call.auth, request, &deps).await?;
        Reply::created(&CheckoutSessionResource::new(session, &s.public_url))
    })
    .await
}

pub async fn retrieve(state: Data<AppState>, req: HttpRequest, payload: Payload) -> HttpResponse {
    api_call(state, req, payload, |call| async move {
        let id: CheckoutSessionId = call.path_id()?;
        let s = &call.state;
        let session =
            get_checkout_session(&call.auth, id, s.sessions.as_ref(), s.clock.as_ref()).await?;
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
