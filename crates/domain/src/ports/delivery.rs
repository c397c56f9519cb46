use async_trait::async_trait;

use super::StoreError;
use crate::model::{
    DeliveryStatus, EventId, EventType, MerchantId, Mode, Timestamp, WebhookAttempt,
    WebhookEndpointId, WebhookEventRecord,
};

/// A delivery the worker has leased and must attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedDelivery {
    pub id: EventId,
    pub url: String,
    /// Every secret currently valid for the endpoint (two during a rotation), or why they
    /// could not be read: such a delivery fails its attempt alone, visibly, unsent.
    pub secrets: Result<Vec<String>, UnreadableSecret>,
    pub payload: String,
    pub attempts: u32,
}

/// An endpoint's stored signing secret that this worker cannot decrypt (a wrong or
/// missing `STABLEPAY_SECRETS_KEY`, or a damaged row).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the endpoint's signing secret could not be decrypted with this worker's secrets key; nothing was sent")]
pub struct UnreadableSecret;

/// The recorded result of one attempt: what it means for the delivery, and the attempt
/// itself for the log (recorded together).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryOutcome {
    pub id: EventId,
    pub status: DeliveryStatus,
    pub attempts: u32,
    pub attempted_at: Timestamp,
    pub next_attempt_at: Option<Timestamp>,
    pub response_status: Option<u16>,
    pub last_error: Option<String>,
    pub attempt: WebhookAttempt,
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait DeliveryQueue: Send + Sync {
    /// Leases up to `limit` due, pending deliveries for `lease_secs` (SKIP LOCKED: several
    /// workers never claim the same row while its lease runs). Errors: storage failures.
    async fn claim_due(
        &self,
        limit: u32,
        lease_secs: i64,
    ) -> Result<Vec<ClaimedDelivery>, StoreError>;

    /// Records attempt results and releases their leases, in one transaction.
    async fn record_outcomes(&self, outcomes: &[DeliveryOutcome]) -> Result<(), StoreError>;

    /// Resolves when new work may be available (NOTIFY) or after `max_wait_ms`.
    async fn wait_for_work(&self, max_wait_ms: u64);

    /// How much is due now, and how long the oldest due delivery has waited (for
    /// operators' metrics). Errors: storage failures.
    async fn backlog(&self) -> Result<Backlog, StoreError>;
}

/// Deliveries due now, and the age of the oldest one.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Backlog {
    pub due: u64,
    pub oldest_due_age_secs: f64,
}

/// A new delivery record written directly (test events and resends).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDelivery {
    pub id: EventId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub event_type: EventType,
    pub endpoint: WebhookEndpointId,
    pub payload: String,
    pub resend_of: Option<EventId>,
    pub created_at: Timestamp,
}

/// What an event records; the adapter routes it to every matching endpoint (D13).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventDraft {
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub event_type: EventType,
    /// The resource, serialised in its API shape.
    pub object_json: String,
    pub created_at: Timestamp,
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait Outbox: Send + Sync {
    /// Records a logical event and one delivery per matching enabled endpoint of its
    /// merchant and mode, in one transaction; returns the delivery ids.
    async fn record_event(&self, draft: &EventDraft) -> Result<Vec<EventId>, StoreError>;

    /// Enqueues one delivery (a test event). Errors: storage failures.
    async fn enqueue(&self, delivery: &NewDelivery) -> Result<WebhookEventRecord, StoreError>;

    /// Enqueues a resend of `delivery.resend_of` atomically: `Conflict` while the root or
    /// any of its redeliveries is still pending.
    async fn enqueue_resend(
        &self,
        delivery: &NewDelivery,
    ) -> Result<WebhookEventRecord, StoreError>;
}

/// The HTTP response of one attempt (body cut to a small prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportResponse {
    pub status: u16,
    pub body_prefix: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    #[error("refused: {0}")]
    Refused(String),
    #[error("timed out after {0} s")]
    Timeout(u64),
    #[error("connection failed: {0}")]
    Connect(String),
    #[error("request failed: {0}")]
    Request(String),
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait WebhookTransport: Send + Sync {
    /// POSTs `body` with `headers` to `url`, within `timeout_secs` for the whole exchange,
    /// never following redirects.
    async fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
        timeout_secs: u64,
    ) -> Result<TransportResponse, TransportError>;
}
