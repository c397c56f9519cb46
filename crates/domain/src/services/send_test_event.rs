//! POST /webhook_endpoints/:id/test: a real, signed, retried delivery of a synthetic
//! object to one endpoint, with a fresh envelope id per send.

use crate::model::{
    AuthContext, EndpointStatus, EventId, EventType, Missing, WebhookEndpointId, WebhookEventRecord,
};
use crate::ports::{Clock, NewDelivery, Outbox, StoreError, WebhookEndpointRepository};
use crate::rules::{envelope, test_events};

#[derive(Debug, thiserror::Error)]
pub enum TestEventError {
    #[error(transparent)]
    NotFound(Missing),
    #[error("`{0}` is not in this endpoint's enabled_events")]
    TypeNotEnabled(EventType),
    #[error("the endpoint is disabled; enable it to receive test events")]
    EndpointDisabled,
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub async fn send_test_event(
    ctx: &AuthContext,
    endpoint_id: WebhookEndpointId,
    event_type: Option<EventType>,
    endpoints: &dyn WebhookEndpointRepository,
    outbox: &dyn Outbox,
    clock: &dyn Clock,
) -> Result<WebhookEventRecord, TestEventError> {
    let endpoint = endpoints
        .get(ctx.merchant_id, ctx.mode, endpoint_id)
        .await?
        .ok_or_else(|| TestEventError::NotFound(Missing::of(endpoint_id)))?;
    let event_type = event_type.unwrap_or(EventType::PaymentSucceeded);
    if !event_type.is_enabled_in(&endpoint.enabled_events) {
        return Err(TestEventError::TypeNotEnabled(event_type));
    }
    if endpoint.status == EndpointStatus::Disabled {
        return Err(TestEventError::EndpointDisabled);
    }
    let now = clock.now();
    let livemode = endpoint.mode.is_live();
    let object = test_events::synthetic_object(event_type, livemode, now).to_string();
    let id = EventId::generate_at(now);
    let payload =
        envelope::render(id, event_type, livemode, now, &object).map_err(StoreError::Internal)?;
    let delivery = NewDelivery {
        id,
        merchant_id: ctx.merchant_id,
        mode: endpoint.mode,
        event_type,
        endpoint: endpoint.id,
        payload,
        resend_of: None,
        created_at: now,
    };
    Ok(outbox.enqueue(&delivery).await?)
}
