//! The API key: read from the `Authorization` header, refused early for a client that
//! failed too often, and authenticated (with a lease of the key's shared rate budget
//! when this process has no token of it left).

use actix_web::HttpRequest;
use stablepay_domain::ports::{
    ApiKeyStore, Authenticated, IdempotencyAsk, IdempotencyLook, LeaseOutcome, StoreError,
};
use stablepay_domain::rules::api_keys;
use stablepay_domain::AuthContext;

use super::rate_limit::Budget;
use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;

/// The SHA-256 of the presented API key, or 401 when the header is missing or malformed.
pub(super) fn bearer_key(req: &HttpRequest) -> Result<[u8; 32], ApiError> {
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
    if api_keys::claimed_mode(secret).is_none() {
        return Err(invalid_key());
    }
    Ok(api_keys::hash(secret))
}

/// The key, unless its client spent its budget of failed authentications (429 without a
/// lookup); a key this process has seen authenticate is never held back.
pub(super) fn lookup_allowed(
    state: &AppState,
    req: &HttpRequest,
    key: [u8; 32],
) -> Result<[u8; 32], ApiError> {
    match state.auth_failures.check(req, state.clock.now()) {
        Err(e) if state.auth_guesses.guess(&key).is_none() => Err(e),
        _ => Ok(key),
    }
}

fn invalid_key() -> ApiError {
    ApiError::new(ErrorCode::Authentication, "Invalid or revoked API key")
}

/// Authenticates the key through `keys` and, in the same round trip when this process
/// had no token of the key left (`budget.lease()`), leases more of its shared budget. A
/// 401 counts against the client's budget of failed authentications.
pub(super) async fn authenticate(
    state: &AppState,
    req: &HttpRequest,
    keys: &dyn ApiKeyStore,
    key: [u8; 32],
    budget: Budget,
) -> Result<AuthContext, ApiError> {
    let found = keys.authenticate(key, budget.lease()).await;
    admit_key(state, req, key, budget, found)
}

/// `authenticate`, and in the same statement what the key's `Idempotency-Key` holds.
pub(super) async fn authenticate_and_look(
    state: &AppState,
    req: &HttpRequest,
    keys: &dyn ApiKeyStore,
    key: [u8; 32],
    budget: Budget,
    ask: &IdempotencyAsk,
) -> Result<(AuthContext, IdempotencyLook), ApiError> {
    let (found, looked) = match keys.authenticate_and_look(key, budget.lease(), ask).await {
        Ok(Some((found, looked))) => (Ok(Some(found)), looked),
        // No key stood (401) or storage failed: there is nothing to look at.
        other => (other.map(|_| None), IdempotencyLook::Free),
    };
    Ok((admit_key(state, req, key, budget, found)?, looked))
}

/// The key as `keys` found it: its context, or 401 (counted against the client's budget
/// of failed authentications) or 429 when its shared budget is spent.
fn admit_key(
    state: &AppState,
    req: &HttpRequest,
    key: [u8; 32],
    budget: Budget,
    found: Result<Option<Authenticated>, StoreError>,
) -> Result<AuthContext, ApiError> {
    let result = key_context(state, key, budget, found);
    if let Err(e) = &result {
        if e.code == ErrorCode::Authentication {
            state.auth_failures.failed(req, state.clock.now());
        }
    }
    result
}

fn key_context(
    state: &AppState,
    key: [u8; 32],
    budget: Budget,
    found: Result<Option<Authenticated>, StoreError>,
) -> Result<AuthContext, ApiError> {
    let found = found?;
    state
        .auth_guesses
        .learn(key, found.as_ref().map(|f| &f.context));
    let found = found.ok_or_else(invalid_key)?;
    let auth = found.context;
    match found.lease {
        LeaseOutcome::NotAsked => {}
        LeaseOutcome::Granted(n) => {
            state
                .rate_limiter
                .granted(&key, budget, n, auth.rate_limit_per_min)
        }
        LeaseOutcome::Exhausted { .. } if matches!(budget, Budget::Renew(_)) => {
            state.rate_limiter.renewal_refused(&key)
        }
        LeaseOutcome::Exhausted { retry_after_ms } => {
            metrics::counter!("stablepay_rate_limited_total", "limiter" => "api_key").increment(1);
            let wait = retry_after_ms.div_ceil(1000).max(1);
            return Err(ApiError::rate_limited(
                format!("Too many requests with this API key; retry in {wait} s"),
                wait,
            ));
        }
    }
    tracing::Span::current().record("merchant", tracing::field::display(auth.merchant_id));
    Ok(auth)
}
