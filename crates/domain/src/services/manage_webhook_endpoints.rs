//! Webhook endpoint management (D12): create (secret shown once), update, rotate, delete.

use serde_json::{json, Map, Value};

use crate::model::{
    random_base62, AuditAction, AuditEvent, AuthContext, Changer, EndpointStatus, EventType,
    WebhookEndpoint, WebhookEndpointId, WebhookUrl,
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

/// The audited fields of an endpoint (never its secret).
fn fields(e: &WebhookEndpoint) -> Value {
    json!({
        "url": e.url.as_str(),
        "enabled_events": e.enabled_events.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
        "status": e.status.as_str(),
        "description": e.description,
    })
}

/// The fields `changes` sets, as they were (`of`) or as they will be (`None`).
fn changed_fields(changes: &EndpointChanges, of: Option<&WebhookEndpoint>) -> Value {
    let mut out = Map::new();
    let now = of.map(fields);
    let mut put = |name: &str, new: Value| {
        let value = match &now {
            Some(was) => was[name].clone(),
            None => new,
        };
        out.insert(name.to_owned(), value);
    };
    if let Some(url) = &changes.url {
        put("url", json!(url.as_str()));
    }
    if let Some(events) = &changes.enabled_events {
        put(
            "enabled_events",
            json!(events.iter().map(|t| t.as_str()).collect::<Vec<_>>()),
        );
    }
    if let Some(status) = changes.status {
        put("status", json!(status.as_str()));
    }
    if let Some(description) = &changes.description {
        put("description", json!(description));
    }
    Value::Object(out)
}

fn audit_of(
    ctx: &AuthContext,
    by: &Changer,
    action: AuditAction,
    id: WebhookEndpointId,
    clock: &dyn Clock,
) -> AuditEvent {
    AuditEvent::of(by, ctx.merchant_id, Some(ctx.mode), action, id, clock.now())
}

/// Returns the endpoint and its secret; the secret is never readable again.
pub async fn create_webhook_endpoint(
    ctx: &AuthContext,
    new: NewEndpoint,
    by: &Changer,
    endpoints: &dyn WebhookEndpointRepository,
    clock: &dyn Clock,
) -> Result<(WebhookEndpoint, String), StoreError> {
    let now = clock.now();
    let endpoint = WebhookEndpoint {
        id: WebhookEndpointId::generate_at(now),
        merchant_id: ctx.merchant_id,
        mode: ctx.mode,
        url: new.url,
        enabled_events: normalize_events(new.enabled_events),
        status: EndpointStatus::Enabled,
        description: new.description,
        created_at: now,
        disabled_reason: None,
    };
    let secret = generate_signing_secret();
    let audit = audit_of(
        ctx,
        by,
        AuditAction::WebhookEndpointCreated,
        endpoint.id,
        clock,
    )
    .after(fields(&endpoint));
    endpoints.insert(&endpoint, &secret, &audit).await?;
    Ok((endpoint, secret))
}

pub async fn update_webhook_endpoint(
    ctx: &AuthContext,
    id: WebhookEndpointId,
    mut changes: EndpointChanges,
    by: &Changer,
    endpoints: &dyn WebhookEndpointRepository,
    clock: &dyn Clock,
) -> Result<WebhookEndpoint, LookupError> {
    changes.enabled_events = changes.enabled_events.map(normalize_events);
    // What it held, for the audit entry (a concurrent update may land between the read
    // and the write: the entry then shows the state this caller saw).
    let current = endpoints
        .get(ctx.merchant_id, ctx.mode, id)
        .await
        .map_err(|e| LookupError::from_store(e, id))?
        .ok_or_else(|| LookupError::from_store(StoreError::NotFound, id))?;
    let audit = audit_of(ctx, by, AuditAction::WebhookEndpointUpdated, id, clock)
        .before(changed_fields(&changes, Some(&current)))
        .after(changed_fields(&changes, None));
    endpoints
        .update(ctx.merchant_id, ctx.mode, id, &changes, &audit)
        .await
        .map_err(|e| LookupError::from_store(e, id))
}

/// Issues a new secret; the old one keeps signing for [`ROTATION_GRACE_SECS`].
pub async fn rotate_webhook_secret(
    ctx: &AuthContext,
    id: WebhookEndpointId,
    by: &Changer,
    endpoints: &dyn WebhookEndpointRepository,
    clock: &dyn Clock,
) -> Result<(WebhookEndpoint, String), LookupError> {
    let secret = generate_signing_secret();
    let audit = audit_of(
        ctx,
        by,
        AuditAction::WebhookEndpointSecretRotated,
        id,
        clock,
    )
    .after(json!({ "previous_secret_valid_for_seconds": ROTATION_GRACE_SECS }));
    let endpoint = endpoints
        .rotate_secret(
            ctx.merchant_id,
            ctx.mode,
            id,
            &secret,
            ROTATION_GRACE_SECS,
            &audit,
        )
        .await
        .map_err(|e| LookupError::from_store(e, id))?;
    Ok((endpoint, secret))
}

/// Deletes the endpoint; its pending deliveries fail and its history stays.
pub async fn delete_webhook_endpoint(
    ctx: &AuthContext,
    id: WebhookEndpointId,
    by: &Changer,
    endpoints: &dyn WebhookEndpointRepository,
    clock: &dyn Clock,
) -> Result<(), LookupError> {
    let current = endpoints
        .get(ctx.merchant_id, ctx.mode, id)
        .await
        .map_err(|e| LookupError::from_store(e, id))?
        .ok_or_else(|| LookupError::from_store(StoreError::NotFound, id))?;
    let audit =
        audit_of(ctx, by, AuditAction::WebhookEndpointDeleted, id, clock).before(fields(&current));
    endpoints
        .delete(ctx.merchant_id, ctx.mode, id, &audit)
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
