//! Webhook endpoint management (D12): create (secret shown once), update, rotate, delete.

use crate::model::{
    random_base62, AuthContext, EndpointStatus, EventType, WebhookEndpoint, WebhookEndpointId,
    WebhookUrl,
};
use crate::ports::{Clock, EndpointChanges, StoreError, WebhookEndpointRepository};
use crate::services::LookupError;

/// How long a rotated-out secret keeps signing (D12).
pub const ROTATION_GRACE_SECS: i64 = 24 * 3600;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEndpoint {
    pub url: WebhookUrl,
    pub enabled_events: Vec<EventType>,
    pub description: Option<String>,
}

/// `whsec_` + 32 random base62 characters (~190 bits).
pub fn generate_signing_secret() -> String {
    format!("whsec_{}", random_base62(32))
}

/// Sorts and dedupes an event filter so equal filters compare equal.
pub fn normalize_events(mut events: Vec<EventType>) -> Vec<EventType> {
    events.sort();
    events.dedup();
    events
}

/// Returns the endpoint and its secret; the secret is never readable again.
pub async fn create_webhook_endpoint(
    ctx: &AuthContext,
    new: NewEndpoint,
    endpoints: &dyn WebhookEndpointRepository,
    clock: &dyn Clock,
) -> Result<(WebhookEndpoint, String), StoreError> {
    let endpoint = WebhookEndpoint {
        id: WebhookEndpointId::generate(),
        merchant_id: ctx.merchant_id,
        mode: ctx.mode,
        url: new.url,
        enabled_events: normalize_events(new.enabled_events),
        status: EndpointStatus::Enabled,
        description: new.description,
        created_at: clock.now(),
        disabled_reason: None,
    };
    let secret = generate_signing_secret();
    endpoints.insert(&endpoint, &secret).await?;
    Ok((endpoint, secret))
}

pub async fn update_webhook_endpoint(
    ctx: &AuthContext,
    id: WebhookEndpointId,
    mut changes: EndpointChanges,
    endpoints: &dyn WebhookEndpointRepository,
) -> Result<WebhookEndpoint, LookupError> {
    changes.enabled_events = changes.enabled_events.map(normalize_events);
    endpoints
        .update(ctx.merchant_id, ctx.mode, id, &changes)
        .await
        .map_err(|e| LookupError::from_store(e, id))
}

/// Issues a new secret; the old one keeps signing for [`ROTATION_GRACE_SECS`].
pub async fn rotate_webhook_secret(
    ctx: &AuthContext,
    id: WebhookEndpointId,
    endpoints: &dyn WebhookEndpointRepository,
) -> Result<(WebhookEndpoint, String), LookupError> {
    let secret = generate_signing_secret();
    let endpoint = endpoints
        .rotate_secret(ctx.merchant_id, ctx.mode, id, &secret, ROTATION_GRACE_SECS)
        .await
        .map_err(|e| LookupError::from_store(e, id))?;
    Ok((endpoint, secret))
}

/// Deletes the endpoint; its pending deliveries fail and its history stays.
pub async fn delete_webhook_endpoint(
    ctx: &AuthContext,
    id: WebhookEndpointId,
    endpoints: &dyn WebhookEndpointRepository,
) -> Result<(), LookupError> {
    endpoints
        .delete(ctx.merchant_id, ctx.mode, id)
        .await
        .map_err(|e| LookupError::from_store(e, id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_prefixed_and_distinct() {
        let a = generate_signing_secret();
        assert!(a.starts_with("whsec_") && a.len() == 38);
        assert_ne!(a, generate_signing_secret());
    }

    #[test]
    fn filters_are_normalized() {
        let e = normalize_events(vec![
            EventType::PaymentFailed,
            EventType::PaymentSucceeded,
            EventType::PaymentFailed,
        ]);
        assert_eq!(
            e,
            vec![EventType::PaymentSucceeded, EventType::PaymentFailed]
        );
    }
}
