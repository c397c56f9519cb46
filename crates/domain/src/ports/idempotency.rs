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

/// What happened when a request tried to take an idempotency key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyClaim {
    /// The key is ours: run the request, then `complete` or `release`.
    Acquired,
    /// Same key, same body, finished before: replay it.
    Replay(StoredResponse),
    /// Same key, same body, still running (and not stale): 409 conflict.
    InFlight,
    /// Same key, different body: 409 idempotency_error.
    BodyMismatch,
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
}
