//! Retention: every interval, delete what fell out of retention, in small batches
//! (`purge_expired_records`); any number of workers may run it side by side.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use stablepay_domain::ports::{Clock, RetentionStore};
use stablepay_domain::services::{purge_expired_records, RetentionPolicy};

pub struct RetentionLoop {
    pub store: Arc<dyn RetentionStore>,
    pub clock: Arc<dyn Clock>,
    pub policy: RetentionPolicy,
    pub interval: Duration,
}

impl RetentionLoop {
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        while !stop.load(Ordering::Relaxed) {
            match purge_expired_records(self.store.as_ref(), self.clock.as_ref(), &self.policy)
                .await
            {
                Ok(report) => {
                    for (what, n) in report.deleted.into_iter().filter(|(_, n)| *n > 0) {
                        metrics::counter!("stablepay_retention_deleted_total", "table" => what.table())
                            .increment(n);
                        tracing::info!(table = what.table(), deleted = n, "retention");
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "retention run failed; retrying next interval")
                }
            }
            crate::pause::pause(self.interval, &stop).await;
        }
    }
}
