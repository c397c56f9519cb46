//! The worker's own settings, read through the shared layer (`stablepay-config`), which
//! also holds what both binaries read (database, pool, secrets keys, metrics, chains).

use std::time::Duration;

pub use stablepay_config::parse_duration;
use stablepay_config::{duration, flag, number, ConfigError, ProcessConfig};
use stablepay_domain::rules::delivery::DeliveryPolicy;

#[derive(Debug)]
pub struct WorkerConfig {
    /// Database, pool (`STABLEPAY_WORKER_DB_POOL_SIZE`, default 8), secrets keys (a previous key
    /// is re-sealed away in the background), metrics bind.
    pub process: ProcessConfig,
    pub policy: DeliveryPolicy,
    pub allow_private_targets: bool,
    pub lanes: usize,
    pub batch_size: u32,
    pub concurrency: usize,
    /// `STABLEPAY_DELIVERY_PER_ENDPOINT` (64): requests one endpoint may have in flight in
    /// this process, so a slow endpoint cannot take every slot.
    pub per_endpoint: u32,
    /// `STABLEPAY_DELIVERY_QUEUE_VACUUM` (10s): how often the worker vacuums the queue table.
    pub tidy_interval: Duration,
    pub lease: Duration,
    pub poll_interval: Duration,
    pub chain_poll: Duration,
    /// `STABLEPAY_RETENTION` (30d): how long expired idempotency keys, used or expired
    /// wallet challenges and delivered webhook records are kept.
    pub retention: Duration,
    /// `STABLEPAY_RETENTION_INTERVAL` (1m): how often retention runs.
    pub retention_interval: Duration,
    /// `STABLEPAY_RECONCILE_INTERVAL` (1h): how often the ledger is compared with each
    /// chain (D32).
    pub reconcile_interval: Duration,
    /// `STABLEPAY_RECONCILE_WINDOW_BLOCKS` (43,200, a day of Base blocks): the trailing
    /// blocks at depth each scheduled reconcile covers.
    pub reconcile_window_blocks: u64,
}

impl WorkerConfig {
    pub fn from_env() -> Result<Self, ConfigError> {
        let process = ProcessConfig::from_env("STABLEPAY_WORKER_DB_POOL_SIZE", 8)?;
        let backoff = duration("STABLEPAY_WEBHOOK_BACKOFF_BASE", Duration::from_secs(30))?;
        let timeout = duration("STABLEPAY_WEBHOOK_TIMEOUT", Duration::from_secs(10))?;
        let max_attempts: u32 = number("STABLEPAY_WEBHOOK_MAX_ATTEMPTS", 5)?;
        if max_attempts == 0 {
            return Err(ConfigError::new(
                "STABLEPAY_WEBHOOK_MAX_ATTEMPTS",
                "must be at least 1",
            ));
        }
        if backoff.as_secs() == 0 || timeout.as_secs() == 0 {
            return Err(ConfigError::new(
                "STABLEPAY_WEBHOOK_BACKOFF_BASE/TIMEOUT",
                "must be at least 1s",
            ));
        }
        // A lease must outlive one attempt, or a slow receiver would get the event twice.
        let lease = duration(
            "STABLEPAY_DELIVERY_LEASE",
            timeout + Duration::from_secs(20),
        )?
        .max(timeout + Duration::from_secs(1));
        let disable_after = duration(
            "STABLEPAY_WEBHOOK_DISABLE_AFTER",
            Duration::from_secs(5 * 86_400),
        )?;
        if disable_after.as_secs() == 0 {
            return Err(ConfigError::new(
                "STABLEPAY_WEBHOOK_DISABLE_AFTER",
                "must be at least 1s",
            ));
        }
        let per_endpoint: u32 = number("STABLEPAY_DELIVERY_PER_ENDPOINT", 64)?;
        if per_endpoint == 0 {
            return Err(ConfigError::new(
                "STABLEPAY_DELIVERY_PER_ENDPOINT",
                "must be at least 1",
            ));
        }
        Ok(Self {
            process,
            policy: DeliveryPolicy {
                backoff_base_secs: i64::try_from(backoff.as_secs()).unwrap_or(30),
                max_attempts,
                timeout_secs: timeout.as_secs(),
                disable_after_secs: i64::try_from(disable_after.as_secs()).unwrap_or(i64::MAX),
            },
            allow_private_targets: flag("STABLEPAY_ALLOW_PRIVATE_WEBHOOK_TARGETS")?,
            lanes: number("STABLEPAY_DELIVERY_LANES", 4)?,
            batch_size: number("STABLEPAY_DELIVERY_BATCH", 50)?,
            concurrency: number("STABLEPAY_DELIVERY_CONCURRENCY", 32)?,
            per_endpoint,
            tidy_interval: duration("STABLEPAY_DELIVERY_QUEUE_VACUUM", Duration::from_secs(10))?,
            lease,
            poll_interval: duration("STABLEPAY_DELIVERY_POLL", Duration::from_secs(1))?,
            chain_poll: duration("STABLEPAY_CHAIN_POLL", Duration::from_millis(500))?,
            retention: duration("STABLEPAY_RETENTION", Duration::from_secs(30 * 86_400))?,
            retention_interval: duration("STABLEPAY_RETENTION_INTERVAL", Duration::from_secs(60))?,
            reconcile_interval: duration(
                "STABLEPAY_RECONCILE_INTERVAL",
                Duration::from_secs(3600),
            )?
            .max(Duration::from_secs(1)),
            reconcile_window_blocks: number(
                "STABLEPAY_RECONCILE_WINDOW_BLOCKS",
                stablepay_domain::services::RECONCILE_DEFAULT_BLOCKS,
            )?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30"), Some(Duration::from_secs(30)));
        assert_eq!(parse_duration("30s"), Some(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Some(Duration::from_secs(120)));
        assert_eq!(parse_duration("1d"), Some(Duration::from_secs(86_400)));
        assert_eq!(parse_duration("x"), None);
        assert_eq!(parse_duration("5 weeks"), None);
    }
}
