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

pub struct DeliveryLoop {
    pub queue: Arc<dyn DeliveryQueue>,
    pub transport: Arc<dyn WebhookTransport>,
    pub clock: Arc<dyn Clock>,
    pub policy: DeliveryPolicy,
    pub batch_size: u32,
    pub concurrency: usize,
    pub lease: Duration,
    pub poll_interval: Duration,
}

impl DeliveryLoop {
    /// Runs until `stop` is set; finishes (and records) the batch in flight first.
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        let lease_secs = i64::try_from(self.lease.as_secs()).unwrap_or(30);
        let poll_ms = u64::try_from(self.poll_interval.as_millis()).unwrap_or(1000);
        while !stop.load(Ordering::Relaxed) {
            let batch = match self.queue.claim_due(self.batch_size, lease_secs).await {
                Ok(batch) => batch,
                Err(e) => {
                    tracing::warn!(error = %e, "claiming deliveries failed; retrying");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
            };
            if batch.is_empty() {
                self.queue.wait_for_work(poll_ms).await;
                continue;
            }
            let claimed = batch.len();
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
            let succeeded = outcomes
                .iter()
                .filter(|o| o.status == stablepay_domain::DeliveryStatus::Succeeded)
                .count();
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
            tracing::debug!(claimed, succeeded, "delivery batch done");
        }
    }
}
