use async_trait::async_trait;

use super::StoreError;
use crate::model::{
    AuditEvent, EndpointStatus, EventType, MerchantId, Mode, Page, PageRequest, WebhookEndpoint,
    WebhookEndpointId, WebhookUrl,
};

/// A partial update of an endpoint (D12).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointChanges {
    pub url: Option<WebhookUrl>,
    pub enabled_events: Option<Vec<EventType>>,
    pub status: Option<EndpointStatus>,
    pub description: Option<Option<String>>,
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait WebhookEndpointRepository: Send + Sync {
    /// Stores a new endpoint with its signing secret (the adapter encrypts it at rest) and
    /// `audit`, in one transaction.
    async fn insert(
        &self,
        endpoint: &WebhookEndpoint,
        secret: &str,
        audit: &AuditEvent,
    ) -> Result<(), StoreError>;

    async fn get(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;

    async fn list(
        &self,
        merchant: MerchantId,
        mode: Mode,
        page: &PageRequest,
    ) -> Result<Page<WebhookEndpoint>, StoreError>;

    /// Applies the changes and stores `audit`, in one transaction. Errors: `NotFound`.
    async fn update(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: WebhookEndpointId,
        changes: &EndpointChanges,
        audit: &AuditEvent,
    ) -> Result<WebhookEndpoint, StoreError>;

    /// Replaces the signing secret (the previous one keeps signing for `grace_secs`) and
    /// stores `audit`, in one transaction.
    /// Errors: `NotFound`.
    async fn rotate_secret(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: WebhookEndpointId,
        new_secret: &str,
        grace_secs: i64,
        audit: &AuditEvent,
    ) -> Result<WebhookEndpoint, StoreError>;

    /// Deletes the endpoint (its delivery history stays) and stores `audit`, in one
    /// transaction. Errors: `NotFound`.
    async fn delete(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: WebhookEndpointId,
        audit: &AuditEvent,
    ) -> Result<(), StoreError>;
}
