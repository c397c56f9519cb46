use super::Resource;
use crate::model::{EndpointStatus, EventType, Timestamp, WebhookEndpoint, WebhookEndpointId};
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct WebhookEndpointResource {
    pub id: WebhookEndpointId,
    pub object: &'static str,
    pub livemode: bool,
    pub url: String,
    pub enabled_events: Vec<EventType>,
    pub status: EndpointStatus,
    pub description: Option<String>,
    pub created_at: Timestamp,
    /// Why the service disabled the endpoint by itself (an extension; null otherwise).
    pub disabled_reason: Option<String>,
    /// Only in the creation (and rotation) response.
    #[schema(nullable = false)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

impl WebhookEndpointResource {
    pub fn new(e: WebhookEndpoint, secret: Option<String>) -> Self {
        Self {
            id: e.id,
            object: Self::OBJECT,
            livemode: e.mode.is_live(),
            url: e.url.as_str().to_owned(),
            enabled_events: e.enabled_events,
            status: e.status,
            description: e.description,
            created_at: e.created_at,
            disabled_reason: e.disabled_reason,
            secret,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct DeletedEndpoint {
    pub id: WebhookEndpointId,
    pub object: &'static str,
    pub deleted: bool,
}

impl Resource for WebhookEndpointResource {
    const OBJECT: &'static str = "webhook_endpoint";
}

impl DeletedEndpoint {
    pub fn new(id: WebhookEndpointId) -> Self {
        Self {
            id,
            object: Self::OBJECT,
            deleted: true,
        }
    }
}

impl Resource for DeletedEndpoint {
    const OBJECT: &'static str = "webhook_endpoint";
}
