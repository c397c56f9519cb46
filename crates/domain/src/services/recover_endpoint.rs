//! POST /webhook_endpoints/:id/recover (an extra beyond the spec, after Svix's recover):
//! after an outage, resend every failed delivery of one endpoint created since a time,
//! each under the resend rules (one new record per failed root, none while one is
//! pending).
//!
//! Work per request is bounded: the request walks one batch of at most
//! [`RECOVER_BATCH`] failed deliveries (newest first); if older ones since `since` remain,
//! the rest is queued to the worker, which continues it in batches of the same size
//! (`continue_recovery`). The answer says which.

use crate::model::{
    AuthContext, DeliveryStatus, EndpointStatus, EventId, MerchantId, Missing, Mode, PageRequest,
    Timestamp, WebhookEndpointId, WebhookEventFilter,
};
use crate::ports::{
    Clock, Outbox, RecoveryJob, RecoveryQueue, ResourceReader, StoreError,
    WebhookEndpointRepository,
};

use super::{resend_in, ResendError};

/// Failed deliveries one request (or one worker batch) walks at most.
pub const RECOVER_BATCH: u8 = 100;

/// What a recovery did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Recovery {
    /// New deliveries enqueued.
    pub enqueued: u32,
    /// Failed deliveries left alone because a redelivery of theirs is still pending.
    pub still_pending: u32,
    /// Older failed deliveries remain: the worker continues in the background.
    pub continues: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum RecoverError {
    #[error(transparent)]
    NotFound(Missing),
    #[error("the endpoint is disabled; enable it before recovering its deliveries")]
    EndpointDisabled,
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub struct RecoverDeps<'a> {
    pub reader: &'a dyn ResourceReader,
    pub endpoints: &'a dyn WebhookEndpointRepository,
    pub outbox: &'a dyn Outbox,
    pub recoveries: &'a dyn RecoveryQueue,
    pub clock: &'a dyn Clock,
}

pub async fn recover_endpoint(
    ctx: &AuthContext,
    endpoint: WebhookEndpointId,
    since: Timestamp,
    deps: &RecoverDeps<'_>,
) -> Result<Recovery, RecoverError> {
    match deps
        .endpoints
        .get(ctx.merchant_id, ctx.mode, endpoint)
        .await?
    {
        None => return Err(RecoverError::NotFound(Missing::of(endpoint))),
        Some(e) if e.status != EndpointStatus::Enabled => {
            return Err(RecoverError::EndpointDisabled)
        }
        Some(_) => {}
    }
    let scope = (ctx.merchant_id, ctx.mode, endpoint);
    let (mut recovery, rest) = recover_batch(scope, since, None, deps).await?;
    if let Some(resume_after) = rest {
        let job = RecoveryJob {
            id: uuid::Uuid::now_v7(),
            merchant_id: ctx.merchant_id,
            mode: ctx.mode,
            endpoint,
            since,
            resume_after,
        };
        deps.recoveries
            .queue_recovery(&job, deps.clock.now())
            .await?;
        recovery.continues = true;
    }
    Ok(recovery)
}

/// One batch: the failed deliveries of the endpoint created since `since`, newest first,
/// after `after` (exclusive), at most [`RECOVER_BATCH`]. Returns what it did and, when
/// older ones since `since` remain, the last one it walked (where the next batch starts).
pub(crate) async fn recover_batch(
    (merchant, mode, endpoint): (MerchantId, Mode, WebhookEndpointId),
    since: Timestamp,
    after: Option<EventId>,
    deps: &RecoverDeps<'_>,
) -> Result<(Recovery, Option<EventId>), RecoverError> {
    let filter = WebhookEventFilter {
        status: Some(DeliveryStatus::Failed),
        endpoint: Some(endpoint),
        ..WebhookEventFilter::default()
    };
    let mut page = PageRequest::first(RECOVER_BATCH);
    if let Some(after) = after {
        page = page.after(after.uuid());
    }
    let failed = deps
        .reader
        .webhook_events(merchant, mode, &filter, &page)
        .await?;
    let mut recovery = Recovery::default();
    let mut roots = std::collections::HashSet::new();
    // Newest first: the first record older than `since` ends the walk.
    for record in failed.data.iter().take_while(|r| r.created_at >= since) {
        if !roots.insert(record.resend_of.unwrap_or(record.id)) {
            continue;
        }
        let resent = resend_in(
            merchant,
            mode,
            record.id,
            deps.reader,
            deps.endpoints,
            deps.outbox,
            deps.clock,
        )
        .await;
        match resent {
            Ok(_) => recovery.enqueued += 1,
            Err(ResendError::StillPending) => recovery.still_pending += 1,
            // Disabled or deleted meanwhile: nothing more can be resent.
            Err(ResendError::EndpointDisabled) => return Err(RecoverError::EndpointDisabled),
            Err(ResendError::NotFound(_)) => {}
            Err(ResendError::Store(e)) => return Err(RecoverError::Store(e)),
        }
    }
    let rest = match failed.data.last() {
        Some(last) if failed.has_more && last.created_at >= since => Some(last.id),
        _ => None,
    };
    Ok((recovery, rest))
}
