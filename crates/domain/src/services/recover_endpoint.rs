//! POST /webhook_endpoints/:id/recover (an extra beyond the spec, after Svix's recover):
//! after an outage, resend every failed delivery of one endpoint created since a time,
//! each under the resend rules (one new record per failed root, none while one is
//! pending).

use crate::model::{
    AuthContext, DeliveryStatus, EndpointStatus, Missing, PageRequest, Timestamp,
    WebhookEndpointId, WebhookEventFilter,
};
use crate::ports::{Clock, Outbox, ResourceReader, StoreError, WebhookEndpointRepository};

use super::{resend_event, ResendError};

/// What a recovery did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Recovery {
    /// New deliveries enqueued.
    pub enqueued: u32,
    /// Failed deliveries left alone because a redelivery of theirs is still pending.
    pub still_pending: u32,
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
    let filter = WebhookEventFilter {
        status: Some(DeliveryStatus::Failed),
        endpoint: Some(endpoint),
        ..WebhookEventFilter::default()
    };
    let mut recovery = Recovery::default();
    let mut roots = std::collections::HashSet::new();
    let mut page = PageRequest::first(100);
    loop {
        let failed = deps
            .reader
            .webhook_events(ctx.merchant_id, ctx.mode, &filter, &page)
            .await?;
        // Newest first: the first record older than `since` ends the walk.
        for record in failed.data.iter().take_while(|r| r.created_at >= since) {
            if !roots.insert(record.resend_of.unwrap_or(record.id)) {
                continue;
            }
            let resent = resend_event(
                ctx,
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
        let reached_since = failed.data.last().is_some_and(|r| r.created_at < since);
        match failed.data.last() {
            Some(last) if failed.has_more && !reached_since => {
                page = PageRequest::first(100).after(last.id.uuid());
            }
            _ => return Ok(recovery),
        }
    }
}
