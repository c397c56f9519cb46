//! The worker's half of an endpoint recovery (`recover_endpoint` answers after one
//! batch): claims a queued job, walks its next batch under the same rules, and records
//! where the following batch starts, or that the job is done.

use crate::model::EndpointStatus;
use crate::ports::StoreError;

use super::{recover_batch, RecoverDeps, RecoverError, Recovery};

/// How long a claimed job stays with one worker before another may take it over (a
/// worker that died mid-batch). A batch takes well under a second.
pub const RECOVERY_LEASE_SECS: i64 = 60;

/// Continues one queued recovery by one batch; `None` when no job is waiting.
pub async fn continue_recovery(deps: &RecoverDeps<'_>) -> Result<Option<Recovery>, StoreError> {
    let now = deps.clock.now();
    let Some(job) = deps
        .recoveries
        .claim_recovery(now, RECOVERY_LEASE_SECS)
        .await?
    else {
        return Ok(None);
    };
    let enabled = deps
        .endpoints
        .get(job.merchant_id, job.mode, job.endpoint)
        .await?
        .is_some_and(|e| e.status == EndpointStatus::Enabled);
    let scope = (job.merchant_id, job.mode, job.endpoint);
    let (recovery, next) = if enabled {
        match recover_batch(scope, job.since, Some(job.resume_after), deps).await {
            Ok(done) => done,
            // Disabled or deleted meanwhile: the job ends, as a request's would.
            Err(RecoverError::EndpointDisabled | RecoverError::NotFound(_)) => {
                (Recovery::default(), None)
            }
            // The lease runs out and the batch is retried.
            Err(RecoverError::Store(e)) => return Err(e),
        }
    } else {
        (Recovery::default(), None)
    };
    deps.recoveries
        .advance_recovery(
            job.id,
            next,
            recovery.enqueued,
            recovery.still_pending,
            deps.clock.now(),
        )
        .await?;
    Ok(Some(Recovery {
        continues: next.is_some(),
        ..recovery
    }))
}
