//! How `write` and `atomic_write` run their handler, with the one idempotency protocol
//! (D14): the key is authenticated and its `Idempotency-Key` looked at in one statement,
//! so a replay, a duplicate in flight or another body is answered before any handler
//! code runs; the answer is recorded after, under the key's lock, which decides a race
//! with a duplicate that got past the look too (in an atomic write, in one round trip
//! with its `COMMIT`).

use std::rc::Rc;

use actix_web::web::Bytes;
use actix_web::HttpResponse;
use futures_util::future::join;
use stablepay_domain::ports::{IdempotencyScope, IdempotencyStore, RecordOutcome, Storage};
use stablepay_domain::AuthContext;
use stablepay_request_store::AtomicUnit;

use super::idempotency::{self, answer_without_running, in_flight, STALE_SECS};
use super::policy::{respond, KeyedRequest};
use super::{AtomicHandler, CallStore, Handler, InTransaction, WriteCall};
use crate::error::ApiError;

/// A request whose key stands, with its body and, when it carries an `Idempotency-Key`
/// that holds nothing yet, that key's scope and the body's hash.
struct Admitted {
    auth: AuthContext,
    body: Bytes,
    idempotency: Option<(IdempotencyScope, [u8; 32])>,
}

/// Authenticates the key and, in the same statement, looks at the `Idempotency-Key`:
/// `Err(answer)` when the request is answered without running (a replay, a duplicate in
/// flight, another body).
async fn admit(
    start: &KeyedRequest,
    ports: &dyn Storage,
) -> Result<Result<Admitted, HttpResponse>, ApiError> {
    let asked = match &start.body {
        Ok(body) => idempotency::ask(&start.req, body),
        Err(_) => Ok(None),
    };
    let ask = match asked {
        Ok(Some(ask)) => ask,
        // Without a key to look at (or with a malformed one, a 400 for a key that stands).
        other => {
            let auth = start.authenticate(ports.keys()).await?;
            let body = start.body.clone()?;
            other?;
            return Ok(Ok(Admitted {
                auth,
                body,
                idempotency: None,
            }));
        }
    };
    let (auth, looked) = start.authenticate_and_look(ports.keys(), &ask).await?;
    let body = start.body.clone()?;
    if let Some(answer) = answer_without_running(looked) {
        return answer.map(Err);
    }
    let scope = ask.scope(auth.merchant_id, auth.mode);
    Ok(Ok(Admitted {
        auth,
        body,
        idempotency: Some((scope, ask.request_sha256)),
    }))
}

/// `write`: each port call commits on its own; with an `Idempotency-Key`, the answer is
/// recorded once the handler is done.
pub(super) async fn write(start: KeyedRequest, handler: Handler) -> Result<HttpResponse, ApiError> {
    let ports: Rc<dyn Storage> = Rc::from(start.store.0.open_writes().await?);
    let admitted = match admit(&start, ports.as_ref()).await? {
        Ok(admitted) => admitted,
        Err(answer) => return Ok(answer),
    };
    let call = start.call(
        admitted.auth,
        admitted.body,
        CallStore::Writes(ports.clone()),
    );
    let reply = handler(call).await;
    let Some((scope, hash)) = admitted.idempotency else {
        return respond(reply);
    };
    let reply = reply?;
    let Some(response) = idempotency::stored(&reply) else {
        return respond(Ok(reply));
    };
    let store = ports.idempotency();
    match store.record(&scope, hash, &response, STALE_SECS).await {
        Ok(RecordOutcome::Recorded) => respond(Ok(reply)),
        // The work is done and stays done; only its replay is lost.
        Err(e) => {
            tracing::error!(error = %e, "could not store idempotent response");
            respond(Ok(reply))
        }
        // A duplicate is storing its answer this instant: the client retries for it.
        Ok(RecordOutcome::InFlight) => Err(in_flight()),
        // A duplicate ran beside this one and stored its answer first: the key keeps one
        // answer, and this request gives it.
        Ok(RecordOutcome::Superseded) => answer_as_stored(store, &scope, hash).await,
    }
}

/// `atomic_write`: the handler's first step reads what it needs outside any transaction,
/// and its `InTransaction` runs in one transaction with the recorded answer: all of it commits, or
/// none. Without an `Idempotency-Key` there is no record to commit with: each port call
/// stands alone.
pub(super) async fn atomic_write(
    start: KeyedRequest,
    handler: AtomicHandler,
) -> Result<HttpResponse, ApiError> {
    let unit: Rc<dyn AtomicUnit> = Rc::from(start.store.0.open_atomic().await?);
    let admitted = match admit(&start, unit.ports()).await? {
        Ok(admitted) => admitted,
        Err(answer) => return Ok(answer),
    };
    let call = start.call(
        admitted.auth,
        admitted.body,
        CallStore::Atomic(unit.clone()),
    );
    let write = handler(call.clone()).await?;
    let Some((scope, hash)) = admitted.idempotency else {
        return respond(write.run(call).await);
    };
    let answer = run_in_transaction(unit.as_ref(), &scope, hash, write, call).await;
    // What the transaction did not end with its answer (a failure before it) rolls back.
    unit.finish(false).await?;
    answer
}

/// The transaction of an atomic write: `BEGIN` and the write's first statements travel
/// together, and the recorded answer with the `COMMIT`; for one insert, the insert and
/// the answer are one statement.
async fn run_in_transaction(
    unit: &dyn AtomicUnit,
    scope: &IdempotencyScope,
    hash: [u8; 32],
    write: InTransaction,
    call: WriteCall,
) -> Result<HttpResponse, ApiError> {
    let reply = if write.one_statement {
        unit.begin_as_one_statement()?;
        write.run(call).await?
    } else {
        let (begun, outcome) = join(unit.begin()?, write.run(call)).await;
        begun?;
        outcome?
    };
    let Some(response) = idempotency::stored(&reply) else {
        return respond(Ok(reply));
    };
    match unit
        .commit_with_answer(scope, hash, &response, STALE_SECS)
        .await?
    {
        RecordOutcome::Recorded => respond(Ok(reply)),
        // A duplicate is storing its answer right now: ours rolled back (D14).
        RecordOutcome::InFlight => Err(in_flight()),
        // A duplicate committed its answer first: our writes rolled back, and this request
        // answers as the stored row says (a replay, or another body's 409).
        RecordOutcome::Superseded => {
            answer_as_stored(unit.ports().idempotency(), scope, hash).await
        }
    }
}

/// The answer a key's stored row gives (a replay, or another body's 409).
async fn answer_as_stored(
    store: &dyn IdempotencyStore,
    scope: &IdempotencyScope,
    hash: [u8; 32],
) -> Result<HttpResponse, ApiError> {
    match store.lookup(scope, hash, STALE_SECS).await {
        Ok(now) => answer_without_running(now).unwrap_or_else(|| Err(in_flight())),
        Err(e) => Err(e.into()),
    }
}
