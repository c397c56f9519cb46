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
use stablepay_domain::ports::{
    run_in_transaction, run_pinned, IdempotencyClaim, IdempotencyScope, LeaseOutcome,
    RecordOutcome, Sharing, StoredResponse,
};
use stablepay_domain::rules::{api_keys, validation::IDEMPOTENCY_KEY_MAX};
use stablepay_domain::AuthContext;

use crate::error::{ApiError, ErrorCode};
use crate::input::Query;
use crate::rate_limit::Budget;
use crate::state::AppState;
use guessed::{read_with_guess, vouched_read, write_with_guess, Checked};

mod guessed;

pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Marks a response answered from the idempotency record.
const REPLAYED: &str = "idempotency-replayed";
/// A key left `processing` by a crashed request can be taken over after this long (D14).
const IDEMPOTENCY_STALE_SECS: i64 = 60;

/// The request's `{id}` path segment as a typed id; anything unparsable is the same 404
/// as an id that names nothing.
pub fn path_id<T: stablepay_domain::TypedId>(req: &HttpRequest) -> Result<T, ApiError> {
    let raw = req.match_info().get("id").unwrap_or_default();
    T::parse_str(raw).map_err(|_| ApiError::not_found(T::NOUN, raw))
}

/// What a handler gets.
#[derive(Clone)]
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

    /// The `{id}` path segment as a typed id; anything unparsable is the same 404 as an
    /// id that names nothing (`Missing::of(id)`).
    pub fn path_id<T: stablepay_domain::TypedId>(&self) -> Result<T, ApiError> {
        path_id(&self.req)
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

/// The one way a JSON answer leaves (the wrapper's routes and the public hosted and portal
/// endpoints alike): a reply as it is, an error as the spec's envelope, an internal one
/// logged. A body that fails to serialise became a 500 in `Reply::json`.
pub fn render(result: Result<Reply, ApiError>) -> HttpResponse {
    match result {
        Ok(reply) => json_response(reply.status, reply.body),
        Err(err) => render_error(err),
    }
}

fn render_error(err: ApiError) -> HttpResponse {
    if err.code == ErrorCode::Api {
        tracing::error!(message = %err.message, "request failed");
    }
    err.to_response()
}

/// The per-client limit of the public pages (D15), then the `{id}` of a public route
/// (no API key: the id is the capability; unparsable is a 404).
pub fn admit_public<T: stablepay_domain::TypedId>(
    state: &AppState,
    req: &HttpRequest,
) -> Result<T, ApiError> {
    if let Err(wait) = state.public_rate_limiter.check(req) {
        return Err(ApiError::rate_limited(
            format!("Too many requests; retry in {wait} s"),
            wait,
        ));
    }
    path_id(req)
}

fn json_response(status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("application/json")
        .body(body)
}

/// An entry point every route handler goes through: `serve` with one way of handling.
macro_rules! entry_point {
    ($(#[$doc:meta])* $name:ident, $atomicity:expr, $sharing:expr, $check:expr) => {
        $(#[$doc])*
        pub async fn $name<F, Fut>(
            state: Data<AppState>,
            req: HttpRequest,
            payload: Payload,
            handler: F,
        ) -> HttpResponse
        where
            F: Fn(Call) -> Fut,
            Fut: Future<Output = Result<Reply, ApiError>>,
        {
            serve(state, req, payload, handler, $atomicity, $sharing, $check).await
        }
    };
}

entry_point!(
    /// Runs `handler` with every cross-cutting concern applied; the request's storage
    /// calls share one connection.
    api_call,
    Atomicity::PerCall,
    Sharing::Pinned,
    Check::Beside
);

entry_point!(
    /// Like `api_call`, for a page of the merchant's rows whose reads carry the key's
    /// check (`RequestScope::vouched`): by a key this process has seen, a page with a row
    /// is one statement; an empty page costs one more (the key's authentication).
    api_list,
    Atomicity::PerCall,
    Sharing::Pinned,
    Check::Inside
);

entry_point!(
    /// Like `api_list`, for a read of one resource: its statements also share a
    /// connection with the other reads this worker thread is serving at the time, so
    /// under load they travel to the database together (`RequestScope::joined`). For
    /// handlers whose first read carries the key's check (else every request by a seen
    /// key costs a second authenticated run) and that write nothing a rerun would repeat.
    api_read,
    Atomicity::PerCall,
    Sharing::Joined,
    Check::Inside
);

entry_point!(
    /// Like `api_call`, and with an `Idempotency-Key` the handler's writes and the stored
    /// response commit in one transaction with the key reserved (locked, not yet
    /// written): a crash or a failure leaves nothing behind.
    /// For handlers that make no network calls while their transaction is open.
    api_call_atomic,
    Atomicity::Request,
    Sharing::Pinned,
    Check::Beside
);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Atomicity {
    PerCall,
    Request,
}

/// Where a GET by a key this process has seen is checked.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Beside the handler's reads, pipelined with them.
    Beside,
    /// Inside them (`RequestScope::vouched`): for handlers whose reads of the merchant's
    /// rows carry the check.
    Inside,
}

async fn serve<F, Fut>(
    state: Data<AppState>,
    req: HttpRequest,
    payload: Payload,
    handler: F,
    atomicity: Atomicity,
    sharing: Sharing,
    check: Check,
) -> HttpResponse
where
    F: Fn(Call) -> Fut,
    Fut: Future<Output = Result<Reply, ApiError>>,
{
    let result = match bearer_key(&req).and_then(|key| lookup_allowed(&state, &req, key)) {
        Err(e) => Err(e),
        Ok(key) => {
            // The body is read before a connection is taken, so a slow upload never holds
            // one; its errors are reported only once the key is known to be good.
            let body = read_body(&req, payload).await;
            // A local token of the key's budget is taken first: a key that has to lease
            // more (or is out of budget) is authenticated before anything else runs, on a
            // connection of its own (the lease locks the key's row, and may wait).
            let budget = state.rate_limiter.take(&key);
            let sharing = if budget.lease().is_some() {
                Sharing::Pinned
            } else {
                sharing
            };
            let scope = state.scope.clone();
            run_pinned(
                scope.as_ref(),
                sharing,
                run(state, req, (key, budget), body, handler, atomicity, check),
            )
            .await
            .unwrap_or_else(|e| Err(e.into()))
        }
    };
    result.unwrap_or_else(render_error)
}

async fn run<F, Fut>(
    state: Data<AppState>,
    req: HttpRequest,
    // The key's hash, and what the request does about its budget (spent a local token,
    // or leases along with authentication).
    (key, budget): ([u8; 32], Budget),
    body: Result<Bytes, ApiError>,
    handler: F,
    atomicity: Atomicity,
    check: Check,
) -> Result<HttpResponse, ApiError>
where
    F: Fn(Call) -> Fut,
    Fut: Future<Output = Result<Reply, ApiError>>,
{
    let mut fresh = None;
    let guess = budget
        .lease()
        .is_none()
        .then(|| state.auth_guesses.guess(&key))
        .flatten();
    if let (Some(guess), Ok(body)) = (guess, &body) {
        let call = || Call {
            state: state.clone(),
            auth: guess.clone(),
            body: body.clone(),
            req: req.clone(),
        };
        if req.method() == Method::GET {
            return match check {
                Check::Inside => vouched_read(call(), key, guess, handler).await,
                Check::Beside => read_with_guess(call(), key, guess, handler).await,
            };
        }
        // A malformed Idempotency-Key is reported by the path below, after the key is
        // known to be good.
        if let (Atomicity::Request, Ok(Some(scope))) = (atomicity, idempotency_scope(&req, &guess))
        {
            match write_with_guess(call(), key, guess, scope, &handler).await? {
                Checked::Agreed(answer) => return answer,
                Checked::Changed(auth) => fresh = Some(auth),
            }
        }
    }
    let auth = match fresh {
        Some(auth) => auth,
        None => match authenticate(&state, key, budget).await {
            Ok(auth) => auth,
            Err(e) => {
                if e.code == ErrorCode::Authentication {
                    state.auth_failures.failed(&req, state.clock.now());
                }
                return Err(e);
            }
        },
    };
    tracing::Span::current().record("merchant", tracing::field::display(auth.merchant_id));
    let body = body?;
    let Some(scope) = idempotency_scope(&req, &auth)? else {
        let reply = handler(Call {
            state,
            auth,
            body,
            req,
        })
        .await?;
        return Ok(json_response(reply.status, reply.body));
    };
    let call = Call {
        state: state.clone(),
        auth,
        body,
        req,
    };
    if atomicity == Atomicity::PerCall {
        return idempotent(call, scope, &handler, Atomicity::PerCall).await;
    }
    run_in_transaction(
        state.scope.as_ref(),
        idempotent(call, scope, &handler, Atomicity::Request),
        |result| matches!(result, Ok(response) if commits(response)),
    )
    .await?
}

/// Whether a request transaction's response keeps its writes. A replay answers from the
/// record: whatever the handler wrote beside it is undone.
fn commits(response: &HttpResponse) -> bool {
    response.status().as_u16() < 400 && !response.headers().contains_key(REPLAYED)
}

/// The handler after an idempotency claim: already run beside it, or still to run.
enum Next {
    Ran(Result<Reply, ApiError>),
    Run(Call),
}

/// An idempotent request: claim (or, in a request transaction, reserve) the key, run the
/// handler, store or release. A request transaction needs no release: nothing was written
/// for the key before its answer, and a rollback ends the reservation.
async fn idempotent<F, Fut>(
    call: Call,
    scope: IdempotencyScope,
    handler: &F,
    atomicity: Atomicity,
) -> Result<HttpResponse, ApiError>
where
    F: Fn(Call) -> Fut,
    Fut: Future<Output = Result<Reply, ApiError>>,
{
    let store = call.state.idempotency.clone();
    let hash: [u8; 32] = Sha256::digest(&call.body).into();
    // Inside the request's transaction the key is reserved (locked and read, not written)
    // and the handler starts with it, so its first statements travel with the reservation;
    // when the key is not ours, the rollback undoes them.
    let (claimed, next) = if atomicity == Atomicity::Request {
        let reserve = store.reserve(&scope, hash, IDEMPOTENCY_STALE_SECS);
        let (claimed, outcome) = futures_util::future::join(reserve, handler(call)).await;
        (claimed, Next::Ran(outcome))
    } else {
        (
            store.claim(&scope, hash, IDEMPOTENCY_STALE_SECS).await,
            Next::Run(call),
        )
    };
    if let Some(answer) = answer_without_running(claimed?) {
        return answer;
    }
    let outcome = match next {
        Next::Ran(outcome) => outcome,
        Next::Run(call) => handler(call).await,
    };
    match &outcome {
        Ok(reply) if reply.status.as_u16() < 400 => {
            let stored = StoredResponse {
                status: reply.status.as_u16(),
                body: reply
                    .replay_body
                    .clone()
                    .unwrap_or_else(|| reply.body.clone()),
            };
            if atomicity == Atomicity::Request {
                // An unrecorded response must not commit; one that lost to a duplicate which
                // committed first is rolled back, and the client's retry replays the winner.
                let recorded = store
                    .record(&scope, hash, &stored, IDEMPOTENCY_STALE_SECS)
                    .await?;
                if recorded == RecordOutcome::Superseded {
                    // A duplicate committed its answer after our reservation read: the
                    // key now holds it, so answer as that duplicate's replay would (this
                    // request's writes roll back either way).
                    let now = store.reserve(&scope, hash, IDEMPOTENCY_STALE_SECS).await?;
                    return answer_without_running(now).unwrap_or_else(|| Err(in_flight()));
                }
            } else if let Err(e) = store.complete(&scope, &stored).await {
                tracing::error!(error = %e, "could not store idempotent response");
            }
        }
        _ if atomicity == Atomicity::Request => {}
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

/// The answer for a key this request may not run under (a replay, a duplicate in flight,
/// another body), or `None` when the key is ours.
fn answer_without_running(claim: IdempotencyClaim) -> Option<Result<HttpResponse, ApiError>> {
    match claim {
        IdempotencyClaim::Acquired => None,
        IdempotencyClaim::Replay(stored) => {
            let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
            let mut response = json_response(status, stored.body);
            response.headers_mut().insert(
                actix_web::http::header::HeaderName::from_static(REPLAYED),
                actix_web::http::header::HeaderValue::from_static("true"),
            );
            Some(Ok(response))
        }
        IdempotencyClaim::InFlight => Some(Err(in_flight())),
        IdempotencyClaim::BodyMismatch => Some(Err(ApiError::new(
            ErrorCode::Idempotency,
            "This Idempotency-Key was already used with a different request body",
        ))),
    }
}

/// The SHA-256 of the presented API key, or 401 when the header is missing or malformed.
fn bearer_key(req: &HttpRequest) -> Result<[u8; 32], ApiError> {
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
fn lookup_allowed(
    state: &AppState,
    req: &HttpRequest,
    key: [u8; 32],
) -> Result<[u8; 32], ApiError> {
    match state.auth_failures.check(req, state.clock.now()) {
        Err(e) if state.auth_guesses.guess(&key).is_none() => Err(e),
        _ => Ok(key),
    }
}

fn in_flight() -> ApiError {
    ApiError::conflict(
        "A request with this Idempotency-Key is still being processed; retry after it finishes",
    )
}

fn invalid_key() -> ApiError {
    ApiError::new(ErrorCode::Authentication, "Invalid or revoked API key")
}

/// Authenticates the key and, in the same round trip when this process had no token of
/// the key left (`lease`), leases more of its shared rate budget.
async fn authenticate(
    state: &AppState,
    key: [u8; 32],
    budget: Budget,
) -> Result<AuthContext, ApiError> {
    let found = state.keys.authenticate(key, budget.lease()).await?;
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
    Ok(auth)
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
    // Printable ASCII and space only (`to_str` would also let a tab through).
    let key = value
        .to_str()
        .ok()
        .filter(|k| k.bytes().all(|b| (0x20..0x7f).contains(&b)))
        .ok_or_else(|| ApiError::invalid_field("Idempotency-Key", "must be printable ASCII"))?
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
