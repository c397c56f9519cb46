use async_trait::async_trait;

use super::StoreError;
use crate::model::Timestamp;

/// Records that have outlived their use, deleted in small batches by the worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purge {
    /// Idempotency keys past their 24 h expiry.
    ExpiredIdempotencyKeys,
    /// Wallet challenges (used or expired) created before the cutoff.
    SpentWalletChallenges,
    /// Webhook delivery records that succeeded, created before the cutoff.
    DeliveredWebhookEvents,
}

impl Purge {
    pub const ALL: [Purge; 3] = [
        Purge::ExpiredIdempotencyKeys,
        Purge::SpentWalletChallenges,
        Purge::DeliveredWebhookEvents,
    ];

    /// The table the records live in (a metrics label).
    pub fn table(self) -> &'static str {
        match self {
            Purge::ExpiredIdempotencyKeys => "idempotency_keys",
            Purge::SpentWalletChallenges => "wallet_challenges",
            Purge::DeliveredWebhookEvents => "webhook_events",
        }
    }
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait RetentionStore: Send + Sync {
    /// Deletes at most `batch` records of `what` older than `cutoff` (rows another
    /// worker is deleting are skipped, not waited for); returns how many went.
    /// Errors: `Unavailable`/`Internal`.
    async fn purge(&self, what: Purge, cutoff: Timestamp, batch: u32) -> Result<u64, StoreError>;
}
