//! What every policy starts from (`KeyedRequest`), and how `read` and `list` run their handler:
//! where the key is checked and what storage the handler gets. The writes are in
//! `write_policy.rs`.

use std::rc::Rc;
use std::sync::Arc;

use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use stablepay_domain::ports::{ApiKeyStore, IdempotencyAsk, IdempotencyLook};
use stablepay_domain::AuthContext;
use stablepay_request_store::{Checked, KeyClaim, ReadShape, ReadUnit};

use super::rate_limit::Budget;
use super::{auth, json_response, CallStore, ReadCall, ReadHandler, ReadReply, Reply, WriteCall};
use crate::error::ApiError;
use crate::state::{AppState, HttpWorkerStore};

/// A request whose key and body were read, with its share of the rate budget taken.
pub(super) struct KeyedRequest {
    pub state: Data<AppState>,
    pub store: Arc<HttpWorkerStore>,
    pub req: HttpRequest,
    /// The SHA-256 of the API key.
    pub key: [u8; 32],
    pub budget: Budget,
    pub body: Result<Bytes, ApiError>,
}

impl KeyedRequest {
    /// Where the key belonged when this process last authenticated it, unless the
    /// request leases budget (it is then authenticated first, on its own).
    pub(super) fn guess(&self) -> Option<AuthContext> {
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

    pub(super) async fn authenticate(
        &self,
        keys: &dyn ApiKeyStore,
    ) -> Result<AuthContext, ApiError> {
        auth::authenticate(&self.state, &self.req, keys, self.key, self.budget).await
    }

    /// `authenticate`, with what the key's `Idempotency-Key` holds in the same statement.
    pub(super) async fn authenticate_and_look(
        &self,
        keys: &dyn ApiKeyStore,
        ask: &IdempotencyAsk,
    ) -> Result<(AuthContext, IdempotencyLook), ApiError> {
        auth::authenticate_and_look(&self.state, &self.req, keys, self.key, self.budget, ask).await
    }

    pub(super) fn call(&self, auth: AuthContext, body: Bytes, store: CallStore) -> WriteCall {
        WriteCall {
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

pub(super) fn respond(reply: Result<Reply, ApiError>) -> Result<HttpResponse, ApiError> {
    let reply = reply?;
    Ok(json_response(reply.status, reply.body))
}

fn respond_read(reply: Result<Checked<ReadReply>, ApiError>) -> Result<HttpResponse, ApiError> {
    Ok(reply?.into_value().into_response())
}

/// `read` and `list`. By a key this process has seen, the handler's reads carry the
/// key's check: when its reply says the key stood, that is the whole cost. Otherwise (a
/// 404, an empty page, a handler that read nothing, a revoked key) the key is
/// authenticated: a revoked key gets its 401 and never its read, a key standing as
/// guessed keeps the answer, and a key whose standing changed is served again.
pub(super) async fn read(
    start: KeyedRequest,
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
            return respond_read(reply);
        }
        let auth = start.authenticate(unit.keys()).await?;
        if auth == guess {
            // Keys are only ever revoked, never restored or moved: one that stands as
            // guessed now stood during the read, whose answer therefore holds.
            return respond_read(reply);
        }
        // The claimed unit's connection goes back before another is taken.
        drop((reply, unit));
        let unit = start.open_reads(&auth, None, shape).await?;
        let reply = handler(start.read_call(auth, unit)).await;
        return respond_read(reply);
    }
    // Authenticated first, on a connection of its own (a key that leases budget locks its
    // row, and may wait: never on a connection shared with other requests' reads).
    let auth = start.authenticate(start.store.0.keys()).await?;
    start.body.clone()?;
    let unit = start.open_reads(&auth, None, shape).await?;
    let reply = handler(start.read_call(auth, unit)).await;
    respond_read(reply)
}
