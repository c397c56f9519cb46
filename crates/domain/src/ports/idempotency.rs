use async_trait::async_trait;

use super::StoreError;
use crate::model::{MerchantId, Mode};

/// The scope of an idempotency key (D14): merchant, mode, method + route, key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyScope {
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub route: String,
    pub key: String,
}

/// An `Idempotency-Key` a request carries on its route, before its key is authenticated
/// (the scope's merchant and mode are the key's own), with its body's hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyAsk {
    pub route: String,
    pub key: String,
    pub request_sha256: [u8; 32],
    /// After this long a `processing` row with the same body counts as abandoned.
    pub stale_after_secs: i64,
}

impl IdempotencyAsk {
    /// The scope of this key under `merchant_id` and `mode`.
    pub fn scope(&self, merchant_id: MerchantId, mode: Mode) -> IdempotencyScope {
        IdempotencyScope {
            merchant_id,
            mode,
            route: self.route.clone(),
            key: self.key.clone(),
        }
    }
}

/// A finished response kept for replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub body: String,
}

/// What an idempotency key holds for a request, as `lookup` read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyLook {
    /// Nothing usable is stored and nothing was taken: run the request and `record` its
    /// answer.
    Free,
    /// Same key, same body, finished before: replay it.
    Replay(StoredResponse),
    /// Same key, same body, still running (and not stale): 409 conflict.
    InFlight,
    /// Same key, different body: 409 idempotency_error.
    BodyMismatch,
}

/// What storing a response found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordOutcome {
    /// Stored; it commits with the request.
    Recorded,
    /// Another request with this key committed its answer after this one's `lookup` (the
    /// two overlapped): roll back (in a transaction), and answer as the stored row says
    /// (its replay, or a body mismatch when it was sent with another body).
    Superseded,
    /// Another request with this key is storing its answer right now (its transaction
    /// holds the key): roll back, and answer 409 at once (D14).
    InFlight,
}

/// The one idempotency protocol (D14): `lookup` before the request runs (a replay, a
/// duplicate in flight or another body is answered without running it), `record` after.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait IdempotencyStore: Send + Sync {
    /// What the key holds, read without writing or locking it: `Free` when nothing usable
    /// is stored (no row, an expired one, or one left processing for over
    /// `stale_after_secs` with the same body). Errors: `Unavailable`/`Internal`.
    async fn lookup(
        &self,
        scope: &IdempotencyScope,
        request_sha256: [u8; 32],
        stale_after_secs: i64,
    ) -> Result<IdempotencyLook, StoreError>;

    /// After a `lookup` found the key free and the request ran: takes the key's lock
    /// without waiting (to the end of the request's transaction, or of this statement when
    /// it has none) and stores the finished response. `InFlight` when a duplicate holds
    /// the lock, `Superseded` when another request's answer is stored already; then
    /// nothing is written, and a transaction it ran in must roll back.
    /// Errors: `Unavailable`/`Internal`.
    async fn record(
        &self,
        scope: &IdempotencyScope,
        request_sha256: [u8; 32],
        response: &StoredResponse,
        stale_after_secs: i64,
    ) -> Result<RecordOutcome, StoreError>;
}
