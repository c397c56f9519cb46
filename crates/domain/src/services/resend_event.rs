//! POST /webhook_events/:id/resend (spec rules 1–5): a new record with a full retry
//! budget, `resend_of` = the root, the root's payload byte for byte; 409 while the root
//! or a redelivery is pending; 400 when the endpoint is disabled; history untouched.

use crate::model::{
    AuthContext, EndpointStatus, EventId, MerchantId, Missing, Mode, WebhookEventRecord,
};
use crate::ports::{
    Clock, NewDelivery, Outbox, ResendOutcome, ResourceReader, StoreError,
    WebhookEndpointRepository,
};

#[derive(Debug, thiserror::Error)]
pub enum ResendError {
    #[error(transparent)]
    NotFound(Missing),
    #[error("the event's endpoint is disabled or deleted; enable it before resending")]
    EndpointDisabled,
    #[error("this event or a redelivery of it is still pending; wait for it to finish")]
    StillPending,
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub async fn resend_event(
    ctx: &AuthContext,
    id: EventId,
    reader: &dyn ResourceReader,
    endpoints: &dyn WebhookEndpointRepository,
    outbox: &dyn Outbox,
    clock: &dyn Clock,
) -> Result<WebhookEventRecord, ResendError> {
    resend_in(
        ctx.merchant_id,
        ctx.mode,
        id,
        reader,
        endpoints,
        outbox,
        clock,
    )
    .await
}

/// `resend_event` within a merchant and mode (the worker continues recoveries without a
/// caller's key).
pub(crate) async fn resend_in(
    merchant: MerchantId,
    mode: Mode,
    id: EventId,
    reader: &dyn ResourceReader,
    endpoints: &dyn WebhookEndpointRepository,
    outbox: &dyn Outbox,
    clock: &dyn Clock,
) -> Result<WebhookEventRecord, ResendError> {
    let record = reader
        .webhook_event(merchant, mode, id)
        .await?
        .ok_or_else(|| ResendError::NotFound(Missing::of(id)))?;
    let root = record.resend_of.unwrap_or(record.id);
    let endpoint = endpoints.get(merchant, mode, record.endpoint).await?;
    match endpoint {
        Some(e) if e.status == EndpointStatus::Enabled => {}
        _ => return Err(ResendError::EndpointDisabled),
    }
    let now = clock.now();
    let delivery = NewDelivery {
        id: EventId::generate_at(now),
        merchant_id: merchant,
        mode,
        event_type: record.event_type,
        endpoint: record.endpoint,
        // Every record of a root carries the root's bytes, so this is the original payload.
        payload: record.payload,
        resend_of: Some(root),
        created_at: now,
    };
    match outbox.enqueue_resend(&delivery).await? {
        ResendOutcome::Enqueued(record) => Ok(record),
        ResendOutcome::StillPending => Err(ResendError::StillPending),
    }
}
