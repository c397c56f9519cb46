//! The one wrapper every authenticated route goes through: Bearer auth and mode
//! scoping, rate limiting, body reading with a size cap, content-type check,
//! idempotency, and error rendering.

use std::future::Future;

use actix_web::http::{Method, StatusCode};
use actix_web::web::{Bytes, BytesMut, Data, Payload};
use actix_web::{HttpRequest, HttpResponse};
use futures_util::StreamExt;
use serde::Serialize;
use sha2::{Digest, Sha256};
use stablepay_domain::ports::{IdempotencyClaim, IdempotencyScope, StoredResponse};
use stablepay_domain::rules::{api_keys, validation::IDEMPOTENCY_KEY_MAX};
use stablepay_domain::AuthContext;

use crate::error::{ApiError, ErrorCode};
use crate::input::Query;
use crate::state::AppState;

pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// A key left `processing` by a crashed request can be taken over after this long (D14).
const IDEMPOTENCY_STALE_SECS: i64 = 60;

/// What a handler gets.
pub struct Call {
    pub state: Data<AppState>,
    pub auth: AuthContext,
    pub body: Bytes,
    pub req: HttpRequest,
}

impl Call {
    pub fn path(&self, name: &str) -> String {
        self.req
            .match_info()
            .get(name)
            .unwrap_or_default()
            .to_owned()
    }

    pub fn query(&self) -> Result<Query, ApiError> {
        Query::parse(self.req.query_string())
    }
}

/// A successful response; `replay_body` overrides what an idempotent replay returns
/// (used to keep a one-time secret out of replays).
pub struct Reply {
    pub status: StatusCode,
    pub body: String,
    pub replay_body: Option<String>,
}

impl Reply {
    pub fn json(status: StatusCode, value: &impl Serialize) -> Result<Self, ApiError> {
        let body = serde_json::to_string(value).map_err(|e| {
            tracing::error!(error = %e, "response serialization failed");
            ApiError::internal()
        })?;
        Ok(Self {
            status,
            body,
            replay_body: None,
        })
    }

    pub fn ok(value: &impl Serialize) -> Result<Self, ApiError> {
        Self::json(StatusCode::OK, value)
    }

    pub fn created(value: &impl Serialize) -> Result<Self, ApiError> {
        Self::json(StatusCode::CREATED, value)
    }
}

fn json_response(status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("application/json")
        .body(body)
}

/// Runs `handler` with every cross-cutting concern applied.
pub async fn api_call<F, Fut>(
    state: Data<AppState>,
    req: HttpRequest,
    payload: Payload,
    handler: F,
) -> HttpResponse
where
    F: FnOnce(Call) -> Fut,
    Fut: Future<Output = Result<Reply, ApiError>>,
{
    match run(state, req, payload, handler).await {
        Ok(response) => response,
        Err(err) => {
            if err.code == ErrorCode::Api {
                tracing::error!(message = %err.message, "request failed");
            }
            err.to_response()
        }
    }
}

async fn run<F, Fut>(
    state: Data<AppState>,
    req: HttpRequest,
    payload: Payload,
    handler: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnOnce(Call) -> Fut,
    Fut: Future<Output = Result<Reply, ApiError>>,
{
    let auth = authenticate(&state, &req).await?;
    tracing::Span::current().record("merchant", tracing::field::display(auth.merchant_id));
    if let Err(wait) = state
        .rate_limiter
        .check(auth.actor, auth.rate_limit_per_min)
    {
        return Err(ApiError::rate_limited(
            format!("Too many requests with this API key; retry in {wait} s"),
            wait,
        ));
    }
    let body = read_body(&req, payload).await?;
    let idempotency = idempotency_scope(&req, &auth)?;

    let Some(scope) = idempotency else {
        let reply = handler(Call {
            state,
            auth,
            body,
            req,
        })
        .await?;
        return Ok(json_response(reply.status, reply.body));
    };

    let hash: [u8; 32] = Sha256::digest(&body).into();
    match state
        .idempotency
        .claim(&scope, hash, IDEMPOTENCY_STALE_SECS)
        .await?
    {
        IdempotencyClaim::Acquired => {}
        IdempotencyClaim::Replay(stored) => {
            let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
            let mut response = json_response(status, stored.body);
            response.headers_mut().insert(
                actix_web::http::header::HeaderName::from_static("idempotency-replayed"),
                actix_web::http::header::HeaderValue::from_static("true"),
            );
            return Ok(response);
        }
        IdempotencyClaim::InFlight => return Err(ApiError::conflict(
            "A request with this Idempotency-Key is still being processed; retry after it finishes",
        )),
        IdempotencyClaim::BodyMismatch => {
            return Err(ApiError::new(
                ErrorCode::Idempotency,
                "This Idempotency-Key was already used with a different request body",
            ))
        }
    }

    let store = state.idempotency.clone();
    let outcome = handler(Call {
        state,
        auth,
        body,
        req,
    })
    .await;
    match &outcome {
        Ok(reply) if reply.status.as_u16() < 400 => {
            let stored = StoredResponse {
                status: reply.status.as_u16(),
                body: reply
                    .replay_body
                    .clone()
                    .unwrap_or_else(|| reply.body.clone()),
            };
            if let Err(e) = store.complete(&scope, &stored).await {
                tracing::error!(error = %e, "could not store idempotent response");
            }
        }
        _ => {
            // Failed requests release the key so the client can retry.
            if let Err(e) = store.release(&scope).await {
                tracing::error!(error = %e, "could not release idempotency key");
            }
        }
    }
    let reply = outcome?;
    Ok(json_response(reply.status, reply.body))
}

async fn authenticate(state: &AppState, req: &HttpRequest) -> Result<AuthContext, ApiError> {
    let unauthorized = |msg: &str| ApiError::new(ErrorCode::Authentication, msg);
    let header = req.headers().get("authorization").ok_or_else(|| {
        unauthorized("No API key provided. Send it as `Authorization: Bearer svc_sk_...`.")
    })?;
    let value = header
        .to_str()
        .map_err(|_| unauthorized("The Authorization header is not valid text"))?;
    let (scheme, secret) = value.trim().split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") || secret.trim().is_empty() {
        return Err(unauthorized(
            "The Authorization header must be `Bearer <API key>`",
        ));
    }
    let secret = secret.trim();
    let invalid = || unauthorized("Invalid or revoked API key");
    if api_keys::claimed_mode(secret).is_none() {
        return Err(invalid());
    }
    state
        .keys
        .authenticate(api_keys::hash(secret))
        .await?
        .ok_or_else(invalid)
}

async fn read_body(req: &HttpRequest, mut payload: Payload) -> Result<Bytes, ApiError> {
    let too_large =
        || ApiError::invalid_field("body", format!("must be at most {MAX_BODY_BYTES} bytes"));
    let declared = req
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
        return Err(too_large());
    }
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| ApiError::invalid_field("body", "could not be read"))?;
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    if !body.iter().all(u8::is_ascii_whitespace) && req.method() != Method::GET {
        let content_type = req
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let mime = content_type.split(';').next().unwrap_or("").trim();
        if !mime.eq_ignore_ascii_case("application/json") {
            return Err(ApiError::invalid_field(
                "Content-Type",
                "must be application/json",
            ));
        }
    }
    Ok(body.freeze())
}

fn idempotency_scope(
    req: &HttpRequest,
    auth: &AuthContext,
) -> Result<Option<IdempotencyScope>, ApiError> {
    let Some(value) = req.headers().get("idempotency-key") else {
        return Ok(None);
    };
    if req.method() != Method::POST {
        return Ok(None);
    }
    let key = value
        .to_str()
        .map_err(|_| ApiError::invalid_field("Idempotency-Key", "must be printable ASCII"))?
        .to_owned();
    if key.is_empty() || key.chars().count() > IDEMPOTENCY_KEY_MAX {
        return Err(ApiError::invalid_field(
            "Idempotency-Key",
            format!("must be 1 to {IDEMPOTENCY_KEY_MAX} characters"),
        ));
    }
    Ok(Some(IdempotencyScope {
        merchant_id: auth.merchant_id,
        mode: auth.mode,
        route: format!("{} {}", req.method(), req.path()),
        key,
    }))
}
