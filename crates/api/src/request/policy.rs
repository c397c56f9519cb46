//! How each policy runs its handler: where the key is checked, what storage the handler
//! gets, and what commits.

use std::rc::Rc;
use std::sync::Arc;

use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use futures_util::future::join;
use stablepay_domain::ports::{ApiKeyStore, IdempotencyScope, RecordOutcome};
use stablepay_domain::AuthContext;
use stablepay_request_store::{AtomicUnit, Checked, KeyClaim, ReadShape, ReadUnit};

use super::idempotency::{self, answer_without_running, body_hash, in_flight, STALE_SECS};
use super::rate_limit::Budget;
use super::{
    auth, json_response, AtomicHandler, Call, CallStore, Handler, ReadCall, ReadHandler, Reply,
    Write,
};
use crate::error::ApiError;
use crate::state::{AppState, HttpWorkerStore};

/// A request whose key and body were read, with its share of the rate budget taken.
pub(super) struct Start {
    pub state: Data<AppState>,
    pub store: Arc<HttpWorkerStore>,
    pub req: HttpRequest,
    /// The SHA-256 of the API key.
    pub key: [u8; 32],
    pub budget: Budget,
    pub body: Result<Bytes, ApiError>,
}

impl Start {
    /// Where the key belonged when this process last authenticated it, unless the
    /// request leases budget (it is then authenticated first, on its own).
    fn guess(&self) -> Option<AuthContext> {
        if self.budget.lease().is_some() {
            return None;
        }
        self.state.auth_guesses.guess(&self.key)
    }

    async fn open_reads(
        &self,
        scope: &AuthContext,
        claim: Option<KeyClaim>,
        shape: ReadShape,
    ) -> Result<Rc<dyn ReadUnit>, ApiError> {
        Ok(Rc::from(
            self.store.0.open_reads(scope, claim, shape).await?,
        ))
    }

    async fn authenticate(&self, keys: &dyn ApiKeyStore) -> Result<AuthContext, ApiError> {
        auth::authenticate(&self.state, &self.req, keys, self.key, self.budget).await
    }

    fn call(&self, auth: AuthContext, body: Bytes, store: CallStore) -> Call {
        Call {
            state: self.state.clone(),
            auth,
            body,
            req: self.req.clone(),
            store,
        }
    }

    fn read_call(&self, auth: AuthContext, unit: Rc<dyn ReadUnit>) -> ReadCall {
        ReadCall {
            state: self.state.clone(),
            auth,
            req: self.req.clone(),
            unit,
        }
    }
}

fn respond(reply: Result<Reply, ApiError>) -> Result<HttpResponse, ApiError> {
    let reply = reply?;
    Ok(json_response(reply.status, reply.body))
}

/// `read` and `list`. By a key this process has seen, the handler's reads carry the
/// key's check: when its reply says the key stood, that is the whole cost. Otherwise (a
/// 404, an empty page, a handler that read nothing, a revoked key) the key is
/// authenticated: a revoked key gets its 401 and never its read, a key standing as
/// guessed keeps the answer, and a key whose standing changed is served again.
pub(super) async fn read(
    start: Start,
    shape: ReadShape,
    handler: ReadHandler,
) -> Result<HttpResponse, ApiError> {
    if let (Some(guess), Ok(_)) = (start.guess(), &start.body) {
        let claim = KeyClaim {
            key_sha256: start.key,
            claimed: guess.clone(),
        };
        let unit = start.open_reads(&guess, Some(claim), shape).await?;
        let reply = handler(start.read_call(guess.clone(), unit.clone())).await;
        if reply.as_ref().is_ok_and(Checked::key_stood) {
            unit.record_key_use();
            tracing::Span::current().record("merchant", tracing::field::display(guess.merchant_id));
            return respond(reply.map(Checked::into_value));
        }
        let auth = start.authenticate(unit.keys()).await?;
        if auth == guess {
            // Keys are only ever revoked, never restored or moved: one that stands as
            // guessed now stood during the read, whose answer therefore holds.
            return respond(reply.map(Checked::into_value));
        }
        // The claimed unit's connection goes back before another is taken.
        drop((reply, unit));
        let unit = start.open_reads(&auth, None, shape).await?;
        let reply = handler(start.read_call(auth, unit)).await;
        return respond(reply.map(Checked::into_value));
    }
    // Authenticated first, on a connection of its own (a key that leases budget locks its
    // row, and may wait: never on a connection shared with other requests' reads).
    let auth = start.authenticate(start.store.0.keys()).await?;
    start.body.clone()?;
    let unit = start.open_reads(&auth, None, shape).await?;
    let reply = handler(start.read_call(auth, unit)).await;
    respond(reply.map(Checked::into_value))
}

/// `write`: the API key is authenticated first; with an `Idempotency-Key`, that key is
/// claimed before the handler runs and its answer stored after.
pub(super) async fn write(start: Start, handler: Handler) -> Result<HttpResponse, ApiError> {
    let ports: Rc<dyn stablepay_domain::ports::Storage> =
        Rc::from(start.store.0.open_writes().await?);
    let auth = start.authenticate(ports.keys()).await?;
    let body = start.body.clone()?;
    let scope = idempotency::scope(&start.req, &auth)?;
    let call = start.call(auth, body, CallStore::Writes(ports));
    match scope {
        None => respond(handler(call).await),
        Some(scope) => idempotency::claimed_write(call, scope, &handler).await,
    }
}

/// `atomic_write`: the API key is authenticated beside a look at the `Idempotency-Key`
/// (by a key this process has seen, in one round trip): a replay or another body is
/// answered before any handler code runs; a duplicate in flight is found when the answer
/// is stored. The handler's first step then reads what it needs outside any transaction,
/// and its `Write` runs in one transaction with the stored answer: all of it commits, or
/// none.
pub(super) async fn atomic_write(
    start: Start,
    handler: AtomicHandler,
) -> Result<HttpResponse, ApiError> {
    let unit: Rc<dyn AtomicUnit> = Rc::from(start.store.0.open_atomic().await?);
    let guessed = match (start.guess(), &start.body) {
        (Some(guess), Ok(body)) => idempotency::scope(&start.req, &guess)
            .ok()
            .flatten()
            .map(|scope| (guess, scope, body_hash(body))),
        _ => None,
    };
    let (auth, looked) = match &guessed {
        Some((guess, scope, hash)) => {
            let lookup = unit.ports().idempotency().lookup(scope, *hash, STALE_SECS);
            let (auth, looked) = join(start.authenticate(unit.ports().keys()), lookup).await;
            let auth = auth?;
            let looked = (auth == *guess).then_some(looked);
            (auth, looked)
        }
        None => (start.authenticate(unit.ports().keys()).await?, None),
    };
    let body = start.body.clone()?;
    // A guess that held named the key's own scope, already looked at; otherwise the
    // scope is read for the key as it stands.
    let (scope, hash, looked) = match (guessed, looked) {
        (Some((_, scope, hash)), Some(looked)) => (scope, hash, looked),
        _ => {
            let Some(scope) = idempotency::scope(&start.req, &auth)? else {
                // Without a key there is no record to commit with: each port call stands
                // alone.
                let call = start.call(auth, body, CallStore::Atomic(unit));
                let write = handler(call.clone()).await?;
                return respond(write.run(call).await);
            };
            let hash = body_hash(&body);
            let looked = unit
                .ports()
                .idempotency()
                .lookup(&scope, hash, STALE_SECS)
                .await;
            (scope, hash, looked)
        }
    };
    if let Some(answer) = answer_without_running(looked?) {
        return answer;
    }
    let call = start.call(auth, body, CallStore::Atomic(unit.clone()));
    let write = handler(call.clone()).await?;
    let (commit, answer) = in_transaction(unit.as_ref(), &scope, hash, write, call).await;
    unit.finish(commit).await?;
    answer
}

/// The transaction of an atomic write: `BEGIN` and the write's first statements travel
/// together; the answer is stored before the commit under the key's lock, which decides a
/// race with a duplicate that got past the look too. Returns whether to commit, and the
/// answer.
async fn in_transaction(
    unit: &dyn AtomicUnit,
    scope: &IdempotencyScope,
    hash: [u8; 32],
    write: Write,
    call: Call,
) -> (bool, Result<HttpResponse, ApiError>) {
    let begin = match unit.begin() {
        Ok(begin) => begin,
        Err(e) => return (false, Err(e.into())),
    };
    let (begun, outcome) = join(begin, write.run(call)).await;
    if let Err(e) = begun {
        return (false, Err(e.into()));
    }
    let reply = match outcome {
        Ok(reply) => reply,
        Err(e) => return (false, Err(e)),
    };
    let Some(response) = idempotency::stored(&reply) else {
        return (false, respond(Ok(reply)));
    };
    let store = unit.ports().idempotency();
    match store.record(scope, hash, &response, STALE_SECS).await {
        Err(e) => (false, Err(e.into())),
        Ok(RecordOutcome::Recorded) => (true, respond(Ok(reply))),
        // A duplicate is storing its answer right now: ours rolls back (D14).
        Ok(RecordOutcome::InFlight) => (false, Err(in_flight())),
        Ok(RecordOutcome::Superseded) => {
            // A duplicate committed its answer first: our writes roll back, and this
            // request answers as the stored row says (a replay, or another body's 409).
            let answer = match store.lookup(scope, hash, STALE_SECS).await {
                Ok(now) => answer_without_running(now).unwrap_or_else(|| Err(in_flight())),
                Err(e) => Err(e.into()),
            };
            (false, answer)
        }
    }
}
