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

/// A finished response kept for replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub body: String,
}

/// What an idempotency key holds for a request: from `claim`, which takes the key, or
/// from `lookup`, which only reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyClaim {
    /// Free. From `claim`: the key is now ours; run the request, then `complete` or
    /// `release`. From `lookup`: nothing usable is stored and nothing was taken; run the
    /// request and `record` its answer.
    Acquired,
    /// Same key, same body, finished before: replay it.
    Replay(StoredResponse),
    /// Same key, same body, still running (and not stale): 409 conflict.
    InFlight,
    /// Same key, different body: 409 idempotency_error.
    BodyMismatch,
}

/// What storing a response inside the request's transaction found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordOutcome {
    /// Stored; it commits with the request.
    Recorded,
    /// Another request with this key committed its answer after this one's `lookup` (the
    /// two overlapped): roll back, and answer as the stored row says (its replay, or a
    /// body mismatch when it was sent with another body).
    Superseded,
    /// Another request with this key is storing its answer right now (its transaction
    /// holds the key): roll back, and answer 409 at once (D14).
    InFlight,
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait IdempotencyStore: Send + Sync {
    /// Claims the key for a request whose raw body hashes to `request_sha256`. A key left
    /// processing for over `stale_after_secs` is taken over; keys expire after 24 h.
    /// Errors: `Unavailable`/`Internal`.
    async fn claim(
        &self,
        scope: &IdempotencyScope,
        request_sha256: [u8; 32],
        stale_after_secs: i64,
    ) -> Result<IdempotencyClaim, StoreError>;

    /// Stores the finished response for replay. Errors: `Unavailable`/`Internal`.
    async fn complete(
        &self,
        scope: &IdempotencyScope,
        response: &StoredResponse,
    ) -> Result<(), StoreError>;

    /// Frees the key after a failed request so the client may retry. Errors: as above.
    async fn release(&self, scope: &IdempotencyScope) -> Result<(), StoreError>;

    /// What the key holds, read without writing or locking it: `Acquired` when nothing
    /// usable is stored (no row, an expired one, or one left processing for over
    /// `stale_after_secs` with the same body); other outcomes as for `claim`. Lets a
    /// request answer a replay before it runs anything. Errors: `Unavailable`/`Internal`.
    async fn lookup(
        &self,
        scope: &IdempotencyScope,
        request_sha256: [u8; 32],
        stale_after_secs: i64,
    ) -> Result<IdempotencyClaim, StoreError>;

    /// For a request that runs in one transaction, after a `lookup` found the key free:
    /// takes the key's lock without waiting (held to the end of the transaction) and
    /// stores its finished response. `InFlight` when a duplicate holds the lock,
    /// `Superseded` when another request's answer is stored already; then nothing is
    /// written. Errors: `Unavailable`/`Internal`.
    async fn record(
        &self,
        scope: &IdempotencyScope,
        request_sha256: [u8; 32],
        response: &StoredResponse,
        stale_after_secs: i64,
    ) -> Result<RecordOutcome, StoreError>;
}
