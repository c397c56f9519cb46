use async_trait::async_trait;

use super::{IdempotencyAsk, IdempotencyLook, StoreError};
use crate::model::AuthContext;

/// Looks up API keys by the SHA-256 of the presented secret (D5), and hands out the
/// per-key rate budget shared by every api process (D15).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ApiKeyStore: Send + Sync {
    /// The context of an active (unrevoked) key, or `Ok(None)` when no such key exists.
    /// With `lease`, also takes up to `lease.tokens` requests from the key's shared
    /// budget in the same round trip (nothing is taken for an unknown or revoked key).
    /// Errors: `Unavailable`/`Internal` when storage fails.
    async fn authenticate(
        &self,
        key_sha256: [u8; 32],
        lease: Option<RateLease>,
    ) -> Result<Option<Authenticated>, StoreError>;

    /// `authenticate`, and in the same statement what the key's own merchant and mode
    /// hold under `ask` (as `IdempotencyStore::lookup` reads it): a write's key check and
    /// its `Idempotency-Key`'s look cost one statement.
    /// Errors: `Unavailable`/`Internal` when storage fails.
    async fn authenticate_and_look(
        &self,
        key_sha256: [u8; 32],
        lease: Option<RateLease>,
        ask: &IdempotencyAsk,
    ) -> Result<Option<(Authenticated, IdempotencyLook)>, StoreError>;
}

/// A request for tokens from a key's shared per-minute budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLease {
    /// How many requests to take at once (≥ 1).
    pub tokens: u32,
    /// The budget of keys without their own `rate_limit_per_min`.
    pub default_per_min: u32,
}

/// An authenticated key, with the outcome of the lease when one was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authenticated {
    pub context: AuthContext,
    pub lease: LeaseOutcome,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseOutcome {
    NotAsked,
    /// This many requests (≥ 1) may proceed, this one included.
    Granted(u32),
    /// The budget is spent; one more request fits after this long.
    Exhausted {
        retry_after_ms: u64,
    },
}
