//! Webhook delivery end to end: real PostgreSQL, real `stablepay-worker` processes, a
//! real local HTTP receiver.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod many_merchants;
mod receiver;
mod scenarios;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use stablepay_domain::ports::{EventDraft, Outbox, ResourceReader, SystemClock};
use stablepay_domain::services::{create_webhook_endpoint, NewEndpoint};
use stablepay_domain::*;
use stablepay_postgres::testing::fresh_store;
use stablepay_postgres::PgStore;

pub struct Env {
    pub store: PgStore,
    pub db_url: String,
    pub merchant: MerchantId,
}

/// A running worker process, killed when dropped.
pub struct Worker(pub Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Env {
    pub async fn new() -> Self {
        let (store, db_url) = fresh_store().await;
        let merchant = store
            .create_merchant("M", FeeTier::Standard)
            .await
            .unwrap()
            .id;
        Self {
            store,
            db_url,
            merchant,
        }
    }

    pub fn ctx(&self, mode: Mode) -> AuthContext {
        stablepay_postgres::testing::api_key_context(self.merchant, mode)
    }

    pub async fn endpoint(
        &self,
        mode: Mode,
        url: &str,
        events: Vec<EventType>,
    ) -> (WebhookEndpoint, String) {
        let new = NewEndpoint {
            url: WebhookUrl::parse(url).unwrap(),
            enabled_events: events,
            description: None,
        };
        let by = stablepay_domain::Changer::OPERATOR;
        create_webhook_endpoint(&self.ctx(mode), new, &by, &self.store, &SystemClock)
            .await
            .unwrap()
    }

    pub async fn record(&self, mode: Mode, event_type: EventType, object: &str) -> Vec<EventId> {
        let draft = EventDraft {
            merchant_id: self.merchant,
            mode,
            event_type,
            object_json: object.to_owned(),
            created_at: Timestamp::new(chrono::Utc::now()),
        };
        self.store.record_event(&draft).await.unwrap()
    }

    pub fn worker(&self, extra: &[(&str, &str)]) -> Worker {
        let key = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_stablepay-worker"));
        cmd.env("DATABASE_URL", &self.db_url)
            .env("STABLEPAY_SECRETS_KEY", key)
            .env("STABLEPAY_ALLOW_PRIVATE_WEBHOOK_TARGETS", "true")
            .env("STABLEPAY_WEBHOOK_BACKOFF_BASE", "1s")
            .env("STABLEPAY_WEBHOOK_TIMEOUT", "2s")
            .env("STABLEPAY_DELIVERY_LEASE", "4s")
            .env("STABLEPAY_DELIVERY_POLL", "200ms")
            .env("STABLEPAY_LOG", "warn")
            .stdout(Stdio::null());
        for (k, v) in extra {
            cmd.env(k, v);
        }
        Worker(cmd.spawn().expect("start stablepay-worker"))
    }

    pub async fn event(&self, mode: Mode, id: EventId) -> WebhookEventRecord {
        self.store
            .webhook_event(self.merchant, mode, id)
            .await
            .unwrap()
            .unwrap()
    }

    /// Polls until `done` holds or `timeout` passes.
    pub async fn wait_until<F, Fut>(&self, timeout: Duration, mut done: F) -> bool
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        let started = Instant::now();
        while started.elapsed() < timeout {
            if done().await {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    }

    pub async fn count_status(&self, mode: Mode, status: DeliveryStatus) -> usize {
        let mut total = 0;
        let mut page = PageRequest::first(100);
        loop {
            let filter = WebhookEventFilter {
                status: Some(status),
                ..WebhookEventFilter::default()
            };
            let p = self
                .store
                .webhook_events(self.merchant, mode, &filter, &page)
                .await
                .unwrap();
            total += p.data.len();
            match (p.has_more, p.data.last()) {
                (true, Some(last)) => {
                    page = PageRequest::new(Some("100"), Some(last.id.uuid())).unwrap()
                }
                _ => return total,
            }
        }
    }
}
