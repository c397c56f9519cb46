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
    pub endpoint: WebhookEndpointId,
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
    pub endpoint: WebhookEndpointId,
    pub status: DeliveryStatus,
    pub attempts: u32,
    pub attempted_at: Timestamp,
    pub next_attempt_at: Option<Timestamp>,
    pub response_status: Option<u16>,
    pub last_error: Option<String>,
    /// Whether the request reached the receiver (false when nothing could be sent, such as
    /// an unreadable secret): only attempts that were sent count towards endpoint health.
    pub sent: bool,
    pub attempt: WebhookAttempt,
}

/// What one claim may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimRequest {
    pub source: ClaimSource,
    /// Deliveries to lease at most.
    pub limit: u32,
    pub lease_secs: i64,
    /// Deliveries one endpoint may have in flight in this worker (fairness: a slow
    /// endpoint holds at most this many of the worker's slots).
    pub per_endpoint: u32,
    /// Endpoints with deliveries in flight here, and how many more each may take now.
    pub busy: Vec<(WebhookEndpointId, u32)>,
}

/// Where a claim looks for work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimSource {
    /// Deliveries announced as new (by id): claimed by key, no search.
    Announced(Vec<EventId>),
    /// Any due delivery, the oldest first within each endpoint's room.
    Due,
}

/// What woke the worker: the ids of newly written deliveries, and whether work may be
/// waiting that no announcement named (a poll tick, an overflowing announcement, or a
/// reconnect), which calls for a search.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Wakeup {
    pub announced: Vec<EventId>,
    pub search: bool,
    /// More deliveries were queued at once than an announcement names: the queue grew
    /// suddenly, and the worker tidies it now (`DeliveryQueue::tidy`) rather than at its
    /// next interval, so claims are planned for its new size.
    pub burst: bool,
}

/// How endpoint health is judged when outcomes are recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthRule {
    /// An endpoint whose sent attempts have all failed for this long is disabled.
    pub disable_after_secs: i64,
    /// What its record says about why.
    pub reason: String,
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait DeliveryQueue: Send + Sync {
    /// Leases due, pending deliveries of enabled endpoints for `lease_secs`, within the
    /// request's limit and each endpoint's room (several workers never lease the same
    /// delivery while its lease runs). Errors: storage failures.
    async fn claim(&self, request: &ClaimRequest) -> Result<Vec<ClaimedDelivery>, StoreError>;

    /// Records attempt results, releases their leases and takes finished deliveries off
    /// the queue, in one statement; updates each endpoint's health by `health`, disabling
    /// an endpoint whose sent attempts have all failed for its period. Errors: storage
    /// failures (nothing is recorded; the leases expire and the attempts are repeated).
    async fn record_outcomes(
        &self,
        outcomes: &[DeliveryOutcome],
        health: &HealthRule,
    ) -> Result<(), StoreError>;

    /// Resolves when new work is announced, or after `max_wait_ms` (then with `search`).
    async fn wait_for_work(&self, max_wait_ms: u64) -> Wakeup;

    /// Reclaims the queue's dead rows now, so claims never walk them even while
    /// autovacuum lags. Errors: storage failures (harmless; tried again later).
    async fn tidy(&self) -> Result<(), StoreError>;

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

    /// Enqueues a resend of `delivery.resend_of` atomically, unless the root or any of
    /// its redeliveries is still pending. Errors: `NotFound` when the root is gone.
    async fn enqueue_resend(&self, delivery: &NewDelivery) -> Result<ResendOutcome, StoreError>;
}

/// What [`Outbox::enqueue_resend`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResendOutcome {
    Enqueued(WebhookEventRecord),
    /// The root or one of its redeliveries is still pending: nothing was enqueued.
    StillPending,
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
