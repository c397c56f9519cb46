use async_trait::async_trait;

use super::StoreError;
use crate::model::{EventId, MerchantId, Mode, Timestamp, WebhookEndpointId};

/// The rest of an endpoint recovery, left to the worker: the failed deliveries created
/// since `since`, older than `resume_after` (the walk goes newest first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveryJob {
    pub id: uuid::Uuid,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub endpoint: WebhookEndpointId,
    pub since: Timestamp,
    pub resume_after: EventId,
}

/// Recoveries the worker continues in batches (`POST /webhook_endpoints/:id/recover`
/// answers after one batch). Errors: storage failures only.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait RecoveryQueue: Send + Sync {
    /// Stores a job for the worker.
    async fn queue_recovery(&self, job: &RecoveryJob, now: Timestamp) -> Result<(), StoreError>;

    /// The oldest unfinished job whose lease ran out (or never started), leased until
    /// `now + lease_secs` so that no other worker takes it meanwhile; `None` when there
    /// is none.
    async fn claim_recovery(
        &self,
        now: Timestamp,
        lease_secs: i64,
    ) -> Result<Option<RecoveryJob>, StoreError>;

    /// Records a batch of the job: `next` is where the following batch starts, `None` when
    /// the job is finished. Adds the batch's counts to the job's totals and ends its lease.
    async fn advance_recovery(
        &self,
        id: uuid::Uuid,
        next: Option<EventId>,
        enqueued: u32,
        still_pending: u32,
        now: Timestamp,
    ) -> Result<(), StoreError>;
}
