//! Endpoint recoveries past their first batch (`continue_recovery`): one batch at a time
//! while jobs wait, a short poll when none does. Any number of workers may run it: a job
//! is leased to one of them at a time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use stablepay_domain::ports::{
    Clock, Outbox, RecoveryQueue, ResourceReader, WebhookEndpointRepository,
};
use stablepay_domain::services::{continue_recovery, RecoverDeps};

pub struct RecoveryLoop {
    pub reader: Arc<dyn ResourceReader>,
    pub endpoints: Arc<dyn WebhookEndpointRepository>,
    pub outbox: Arc<dyn Outbox>,
    pub recoveries: Arc<dyn RecoveryQueue>,
    pub clock: Arc<dyn Clock>,
    pub poll_interval: Duration,
}

impl RecoveryLoop {
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        let deps = RecoverDeps {
            reader: self.reader.as_ref(),
            endpoints: self.endpoints.as_ref(),
            outbox: self.outbox.as_ref(),
            recoveries: self.recoveries.as_ref(),
            clock: self.clock.as_ref(),
        };
        while !stop.load(Ordering::Relaxed) {
            match continue_recovery(&deps).await {
                // Another batch (of this job or the next) right away.
                Ok(Some(batch)) => {
                    metrics::counter!("stablepay_webhook_recovered_total")
                        .increment(u64::from(batch.enqueued));
                    continue;
                }
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "recovery batch failed; its lease runs out and it is retried")
                }
            }
            crate::pause::pause(self.poll_interval, &stop).await;
        }
    }
}
