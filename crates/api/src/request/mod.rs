//! The request path of every authenticated API route, top to bottom (D28).
//!
//! 1. **Registration** (`app.rs`): each route names its policy, `read`, `list`, `write`
//!    or `atomic_write`: what its handler may do with storage.
//! 2. **`serve`**, the one entry point: the Bearer API key is hashed (`auth.rs`); a
//!    client past its budget of failed authentications is refused before any lookup
//!    (`auth_failures.rs`); the body is read with its size cap (`body.rs`), before any
//!    connection is taken; one token of the key's rate budget is taken (`rate_limit.rs`),
//!    or more are leased from the key's shared budget together with its authentication.
//!    Then it runs the route's policy.
//! 3. **The policy** (`policy.rs`) opens what the handler may use from the store
//!    (`stablepay-request-store`'s `RequestStore`, implemented by the postgres adapter),
//!    decides where the API key is checked, and runs the handler. "The key" below is the
//!    API key; the `Idempotency-Key` header is always named in full, and counts on POST
//!    only.
//!    - `read` / `list`: the handler gets `ReadCall`, read-only storage of one merchant and
//!      mode (`Reads`): it cannot write, whatever its key. By a key this process has seen
//!      (`auth_guess.rs`) the reads are opened with a `KeyClaim` (where the key belonged
//!      when last authenticated) and carry the key's check in their own statement; each
//!      answers a `Checked` value, and the handler's reply keeps it. A reply whose reads
//!      did not say the key stood is followed by the key's authentication and, if its
//!      standing changed, the handler runs again.
//!    - `write` and `atomic_write` (`write_policy.rs`): the key is authenticated and its
//!      `Idempotency-Key` looked at in one statement (with a lease of rate budget when
//!      the request needs one), so a replay runs no handler code, and the answer is
//!      recorded after the handler, by one statement under that key's advisory lock
//!      (`idempotency.rs`; a duplicate in flight gets 409; in an atomic write, sent with
//!      the `COMMIT`). A `write`'s port calls each commit on their own. An
//!      `atomic_write` handler's first step reads what it needs (blockchain reads
//!      included) outside any transaction and returns its `InTransaction`, which runs in one
//!      transaction with the recorded answer (for one insert, `InTransaction::one_insert`,
//!      the insert and the answer are one statement); without an `Idempotency-Key`, each
//!      port call commits on its own.
//! 4. **Rendering**: a `Reply` as JSON, or an `ApiError` as the spec's envelope
//!    (`error.rs`).

mod auth;
pub mod auth_failures;
pub mod auth_guess;
mod body;
mod idempotency;
mod policy;
pub mod rate_limit;
#[cfg(test)]
mod tests;
mod write_policy;

use std::future::Future;
use std::rc::Rc;

use actix_web::http::StatusCode;
use actix_web::web::{self, Bytes, Data, Payload};
use actix_web::{HttpRequest, HttpResponse, Route};
use futures_util::future::LocalBoxFuture;
use futures_util::stream::BoxStream;
use serde::Serialize;
use stablepay_domain::ports::{Storage, StoreError};
use stablepay_domain::AuthContext;
use stablepay_request_store::{AtomicUnit, Checked, ReadShape, ReadUnit, Reads};

use crate::error::{ApiError, ErrorCode};
use crate::input::Query;
use crate::state::{AppState, HttpWorkerStore};

pub use body::{admit_public, path_id, MAX_BODY_BYTES};

/// What a write handler gets: every port, each call committing on its own or, in an
/// atomic write with an `Idempotency-Key`, inside the request's transaction.
#[derive(Clone)]
pub struct WriteCall {
    pub state: Data<AppState>,
    pub auth: AuthContext,
    pub body: Bytes,
    pub req: HttpRequest,
    store: CallStore,
}

#[derive(Clone)]
enum CallStore {
    Writes(Rc<dyn Storage>),
    Atomic(Rc<dyn AtomicUnit>),
}

impl WriteCall {
    /// Every storage port, bound to this request's connection.
    pub fn ports(&self) -> &dyn Storage {
        match &self.store {
            CallStore::Writes(ports) => ports.as_ref(),
            CallStore::Atomic(unit) => unit.ports(),
        }
    }

    /// The `{id}` path segment as a typed id; anything unparsable is the same 404 as an
    /// id that names nothing (`Missing::of(id)`).
    pub fn path_id<T: stablepay_domain::TypedId>(&self) -> Result<T, ApiError> {
        path_id(&self.req)
    }

    pub fn query(&self) -> Result<Query, ApiError> {
        Query::parse(self.req.query_string())
    }

    /// Who makes this request's changes, for the audit log: the key, from the client's
    /// address.
    pub fn changer(&self) -> stablepay_domain::Changer {
        let client = self.state.public_rate_limiter.client_address(&self.req);
        stablepay_domain::Changer::new(self.auth.actor, Some(client))
    }
}

/// What a read handler gets: read-only storage of the merchant and mode it reads for.
#[derive(Clone)]
pub struct ReadCall {
    pub state: Data<AppState>,
    pub auth: AuthContext,
    pub req: HttpRequest,
    unit: Rc<dyn ReadUnit>,
}

impl ReadCall {
    /// The reads, each answering whether the key stood (`Checked`).
    pub fn reads(&self) -> &dyn Reads {
        self.unit.reads()
    }

    /// As `WriteCall::path_id`.
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

    /// 200 with what a read handler's checked reads made; the check goes with it.
    pub fn read(value: Checked<impl Serialize>) -> Result<Checked<ReadReply>, ApiError> {
        value.try_map(|v| Self::ok(&v).map(ReadReply::Json))
    }
}

/// What a read handler answers: JSON, or a CSV file written as its rows are read.
pub enum ReadReply {
    Json(Reply),
    Csv(CsvFile),
}

/// A 200 `text/csv` attachment, streamed (`stablepay_web::csv_attachment`).
pub struct CsvFile {
    pub filename: &'static str,
    pub chunks: BoxStream<'static, Result<String, StoreError>>,
}

impl ReadReply {
    fn into_response(self) -> HttpResponse {
        match self {
            ReadReply::Json(reply) => json_response(reply.status, reply.body),
            ReadReply::Csv(file) => stablepay_web::csv_attachment(file.filename, file.chunks),
        }
    }
}

/// The part of an atomic write that runs inside its transaction, as its handler's first
/// step returned it (with what that step read and parsed).
pub struct InTransaction {
    write: Box<dyn FnOnce(WriteCall) -> LocalBoxFuture<'static, Result<Reply, ApiError>>>,
    one_statement: bool,
}

impl InTransaction {
    pub fn new<F, Fut>(write: F) -> Self
    where
        F: FnOnce(WriteCall) -> Fut + 'static,
        Fut: Future<Output = Result<Reply, ApiError>> + 'static,
    {
        Self {
            write: Box::new(move |call| Box::pin(write(call))),
            one_statement: false,
        }
    }

    /// A transaction that reads, then inserts one row: the store may send the insert and
    /// the recorded answer as one statement (`AtomicUnit::begin_as_one_statement`).
    /// Should it do more, the store begins a transaction as for `new`: atomic either way.
    pub fn one_insert<F, Fut>(write: F) -> Self
    where
        F: FnOnce(WriteCall) -> Fut + 'static,
        Fut: Future<Output = Result<Reply, ApiError>> + 'static,
    {
        Self {
            one_statement: true,
            ..Self::new(write)
        }
    }

    fn run(self, call: WriteCall) -> LocalBoxFuture<'static, Result<Reply, ApiError>> {
        (self.write)(call)
    }
}

type Handler = Rc<dyn Fn(WriteCall) -> LocalBoxFuture<'static, Result<Reply, ApiError>>>;
type ReadHandler =
    Rc<dyn Fn(ReadCall) -> LocalBoxFuture<'static, Result<Checked<ReadReply>, ApiError>>>;
type AtomicHandler =
    Rc<dyn Fn(WriteCall) -> LocalBoxFuture<'static, Result<InTransaction, ApiError>>>;

/// A route's handler, as its policy runs it.
#[derive(Clone)]
enum Policy {
    /// One resource (`ReadShape::One`) or a page of them (`ReadShape::Page`).
    Read(ReadShape, ReadHandler),
    Write(Handler),
    AtomicWrite(AtomicHandler),
}

/// A handler of any policy as the policy holds it.
fn boxed<C, R, F, Fut>(handler: F) -> Rc<dyn Fn(C) -> LocalBoxFuture<'static, Result<R, ApiError>>>
where
    F: Fn(C) -> Fut + 'static,
    Fut: Future<Output = Result<R, ApiError>> + 'static,
{
    Rc::new(move |call| Box::pin(handler(call)))
}

/// A read of one resource: read-only, its read of the merchant's row carries the key's
/// check and the reply says whether it stood.
pub fn read<F, Fut>(handler: F) -> Route
where
    F: Fn(ReadCall) -> Fut + 'static,
    Fut: Future<Output = Result<Checked<ReadReply>, ApiError>> + 'static,
{
    route(Policy::Read(ReadShape::One, boxed(handler)))
}

/// A page of the merchant's rows: read-only, its read carries the key's check (an empty
/// page costs one more statement, the key's authentication).
pub fn list<F, Fut>(handler: F) -> Route
where
    F: Fn(ReadCall) -> Fut + 'static,
    Fut: Future<Output = Result<Checked<ReadReply>, ApiError>> + 'static,
{
    route(Policy::Read(ReadShape::Page, boxed(handler)))
}

/// A write whose port calls each stand alone; idempotent with an `Idempotency-Key`.
pub fn write<F, Fut>(handler: F) -> Route
where
    F: Fn(WriteCall) -> Fut + 'static,
    Fut: Future<Output = Result<Reply, ApiError>> + 'static,
{
    route(Policy::Write(boxed(handler)))
}

/// A write whose handler first reads and parses (outside any transaction: chain reads
/// belong here) and returns its `InTransaction`, which commits in one transaction with the
/// request's idempotency record when it carries an `Idempotency-Key`.
pub fn atomic_write<F, Fut>(handler: F) -> Route
where
    F: Fn(WriteCall) -> Fut + 'static,
    Fut: Future<Output = Result<InTransaction, ApiError>> + 'static,
{
    route(Policy::AtomicWrite(boxed(handler)))
}

fn route(policy: Policy) -> Route {
    web::route().to(
        move |state: Data<AppState>,
              store: Data<HttpWorkerStore>,
              req: HttpRequest,
              payload: Payload| { serve(state, store, req, payload, policy.clone()) },
    )
}

/// The one entry point: every cross-cutting concern, then the route's policy.
async fn serve(
    state: Data<AppState>,
    store: Data<HttpWorkerStore>,
    req: HttpRequest,
    payload: Payload,
    policy: Policy,
) -> HttpResponse {
    let result =
        match auth::bearer_key(&req).and_then(|key| auth::lookup_allowed(&state, &req, key)) {
            Err(e) => Err(e),
            Ok(key) => {
                // Errors of the body are reported only once the key is known to be good.
                let body = body::read_body(&req, payload).await;
                let budget = state.rate_limiter.take(&key);
                let start = policy::KeyedRequest {
                    state,
                    store: store.into_inner(),
                    req,
                    key,
                    budget,
                    body,
                };
                match policy {
                    Policy::Read(shape, h) => policy::read(start, shape, h).await,
                    Policy::Write(h) => write_policy::write(start, h).await,
                    Policy::AtomicWrite(h) => write_policy::atomic_write(start, h).await,
                }
            }
        };
    result.unwrap_or_else(render_error)
}

/// The one way a JSON answer leaves (the policies' routes and the public hosted and
/// portal endpoints alike): a reply as it is, an error as the spec's envelope, an
/// internal one logged. A body that fails to serialise became a 500 in `Reply::json`.
pub fn render(result: Result<Reply, ApiError>) -> HttpResponse {
    match result {
        Ok(reply) => json_response(reply.status, reply.body),
        Err(err) => render_error(err),
    }
}

/// A public JSON endpoint's answer: the body with 200, or the error envelope.
pub fn render_json(result: Result<impl Serialize, ApiError>) -> HttpResponse {
    render(result.and_then(|body| Reply::ok(&body)))
}

fn render_error(err: ApiError) -> HttpResponse {
    if err.code == ErrorCode::Api {
        tracing::error!(message = %err.message, "request failed");
    }
    err.to_response()
}

fn json_response(status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("application/json")
        .body(body)
}
