//! The delivery loop: claim a leased batch, attempt each delivery concurrently, record
//! every outcome in one statement, sleep until NOTIFY or the poll interval.
//! A crash loses nothing: unrecorded rows keep their lease until it expires, then any
//! worker claims them again (duplicates are bounded by the in-flight batch).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::{stream, StreamExt};
use stablepay_domain::ports::{Clock, DeliveryQueue, WebhookTransport};
use stablepay_domain::rules::delivery::DeliveryPolicy;
use stablepay_domain::services::deliver_event;
use stablepay_domain::DeliveryStatus;
use tokio::sync::Notify;

pub struct DeliveryLoop {
    pub queue: Arc<dyn DeliveryQueue>,
    pub transport: Arc<dyn WebhookTransport>,
    pub clock: Arc<dyn Clock>,
    pub policy: DeliveryPolicy,
    /// Independent claim loops per process.
    pub lanes: usize,
    /// Rows claimed per lane.
    pub batch_size: u32,
    /// Requests in flight per lane.
    pub concurrency: usize,
    pub lease: Duration,
    pub poll_interval: Duration,
}

/// How often the queue's backlog is sampled for the metrics.
const BACKLOG_SAMPLE: Duration = Duration::from_secs(5);

impl DeliveryLoop {
    /// Runs until `stop` is set; each lane finishes (and records) its batch in flight first.
    ///
    /// Several lanes claim small batches independently, so a new event never waits for a
    /// large batch to finish; one waker turns NOTIFY (or the poll interval) into a wake-up
    /// for every idle lane.
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        let notify = Notify::new();
        let poll_ms = u64::try_from(self.poll_interval.as_millis()).unwrap_or(1000);
        let waker = async {
            let mut sampled = std::time::Instant::now() - BACKLOG_SAMPLE;
            while !stop.load(Ordering::Relaxed) {
                if sampled.elapsed() >= BACKLOG_SAMPLE {
                    sampled = std::time::Instant::now();
                    self.sample_backlog().await;
                }
                self.queue
                    .wait_for_work(poll_ms.min(BACKLOG_SAMPLE.as_millis() as u64))
                    .await;
                notify.notify_waiters();
            }
            notify.notify_waiters();
        };
        let lanes = futures_util::future::join_all(
            (0..self.lanes.max(1)).map(|_| self.lane(&stop, &notify)),
        );
        futures_util::future::join(waker, lanes).await;
    }

    /// Queue depth and the age of the oldest due delivery, for operators.
    async fn sample_backlog(&self) {
        match self.queue.backlog().await {
            Ok(b) => {
                metrics::gauge!("stablepay_webhook_queue_due").set(b.due as f64);
                metrics::gauge!("stablepay_webhook_queue_oldest_due_age_seconds")
                    .set(b.oldest_due_age_secs);
            }
            Err(e) => tracing::debug!(error = %e, "sampling the delivery backlog failed"),
        }
    }

    async fn lane(&self, stop: &AtomicBool, notify: &Notify) {
        let lease_secs = i64::try_from(self.lease.as_secs()).unwrap_or(30);
        while !stop.load(Ordering::Relaxed) {
            // Register for the wake-up before claiming, so a NOTIFY that lands between an
            // empty claim and the wait is not lost.
            let notified = notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let batch = match self.queue.claim_due(self.batch_size, lease_secs).await {
                Ok(batch) => batch,
                Err(e) => {
                    tracing::warn!(error = %e, "claiming deliveries failed; retrying");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
            };
            if batch.is_empty() {
                let _ = tokio::time::timeout(self.poll_interval, notified).await;
                continue;
            }
            let outcomes: Vec<_> = stream::iter(batch.iter())
                .map(|d| {
                    deliver_event(
                        d,
                        self.transport.as_ref(),
                        self.clock.as_ref(),
                        &self.policy,
                    )
                })
                .buffer_unordered(self.concurrency.max(1))
                .collect()
                .await;
            for outcome in &outcomes {
                let kind = match (outcome.status, outcome.response_status) {
                    (DeliveryStatus::Succeeded, _) => "succeeded",
                    (DeliveryStatus::Failed, _) => "failed",
                    (_, Some(_)) => "retrying_http_error",
                    (_, None) => "retrying_network_error",
                };
                metrics::counter!("stablepay_webhook_deliveries_total", "outcome" => kind)
                    .increment(1);
            }
            for attempt in 0..5u64 {
                match self.queue.record_outcomes(&outcomes).await {
                    Ok(()) => break,
                    Err(e) => {
                        // Unrecorded outcomes are re-attempted after the lease: at-least-once.
                        tracing::warn!(error = %e, attempt, "recording outcomes failed");
                        tokio::time::sleep(Duration::from_millis(200 * (attempt + 1))).await;
                    }
                }
            }
        }
    }
}
