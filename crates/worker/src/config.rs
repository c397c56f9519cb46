//! Worker configuration from the environment; bad values fail fast naming the variable.

use std::time::Duration;

use base64::Engine;
use stablepay_domain::rules::delivery::DeliveryPolicy;

#[derive(Debug, thiserror::Error)]
#[error("configuration error: {var}: {problem}")]
pub struct ConfigError {
    pub var: &'static str,
    pub problem: String,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

pub use stablepay_evm::config::parse_duration;

fn duration(name: &'static str, default: Duration) -> Result<Duration, ConfigError> {
    match var(name) {
        None => Ok(default),
        Some(v) => parse_duration(&v).ok_or(ConfigError {
            var: name,
            problem: format!("`{v}` is not a duration (e.g. 30s, 500ms, 2m)"),
        }),
    }
}

fn number<T: std::str::FromStr>(name: &'static str, default: T) -> Result<T, ConfigError> {
    match var(name) {
        None => Ok(default),
        Some(v) => v.trim().parse().map_err(|_| ConfigError {
            var: name,
            problem: format!("`{v}` is not a number"),
        }),
    }
}

fn flag(name: &'static str) -> Result<bool, ConfigError> {
    match var(name).as_deref().map(str::to_ascii_lowercase).as_deref() {
        None | Some("false" | "0" | "no") => Ok(false),
        Some("true" | "1" | "yes") => Ok(true),
        Some(other) => Err(ConfigError {
            var: name,
            problem: format!("`{other}` is not true or false"),
        }),
    }
}

fn decode_key(name: &'static str, raw: &str) -> Result<Vec<u8>, ConfigError> {
    base64::engine::general_purpose::STANDARD
        .decode(raw.trim())
        .ok()
        .filter(|k| k.len() == 32)
        .ok_or(ConfigError {
            var: name,
            problem: "must be 32 bytes, base64".into(),
        })
}

#[derive(Debug, Clone)]
pub struct WorkerConfig {
    pub database_url: String,
    pub secrets_key: Vec<u8>,
    /// `STABLEPAY_SECRETS_KEY_PREVIOUS`: the key being rotated out; the worker re-seals
    /// its rows under the current key in the background.
    pub secrets_key_previous: Option<Vec<u8>>,
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
    /// `STABLEPAY_METRICS_BIND`: where `/metrics`, `/livez` and `/readyz` are served
    /// (off when unset).
    pub metrics_bind: Option<String>,
    /// `STABLEPAY_RETENTION` (30d): how long expired idempotency keys, used or expired
    /// wallet challenges and delivered webhook records are kept.
    pub retention: Duration,
    /// `STABLEPAY_RETENTION_INTERVAL` (1m): how often retention runs.
    pub retention_interval: Duration,
}

impl WorkerConfig {
    pub fn from_env() -> Result<Self, ConfigError> {
        let database_url = var("DATABASE_URL").ok_or(ConfigError {
            var: "DATABASE_URL",
            problem: "is not set".into(),
        })?;
        let raw_key = var("STABLEPAY_SECRETS_KEY").ok_or(ConfigError {
            var: "STABLEPAY_SECRETS_KEY",
            problem: "is not set (the same 32-byte base64 key as the api)".into(),
        })?;
        let secrets_key = decode_key("STABLEPAY_SECRETS_KEY", &raw_key)?;
        let secrets_key_previous = var("STABLEPAY_SECRETS_KEY_PREVIOUS")
            .map(|raw| decode_key("STABLEPAY_SECRETS_KEY_PREVIOUS", &raw))
            .transpose()?;
        let backoff = duration("STABLEPAY_WEBHOOK_BACKOFF_BASE", Duration::from_secs(30))?;
        let timeout = duration("STABLEPAY_WEBHOOK_TIMEOUT", Duration::from_secs(10))?;
        let max_attempts: u32 = number("STABLEPAY_WEBHOOK_MAX_ATTEMPTS", 5)?;
        if max_attempts == 0 {
            return Err(ConfigError {
                var: "STABLEPAY_WEBHOOK_MAX_ATTEMPTS",
                problem: "must be at least 1".into(),
            });
        }
        if backoff.as_secs() == 0 || timeout.as_secs() == 0 {
            return Err(ConfigError {
                var: "STABLEPAY_WEBHOOK_BACKOFF_BASE/TIMEOUT",
                problem: "must be at least 1s".into(),
            });
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
            return Err(ConfigError {
                var: "STABLEPAY_WEBHOOK_DISABLE_AFTER",
                problem: "must be at least 1s".into(),
            });
        }
        let per_endpoint: u32 = number("STABLEPAY_DELIVERY_PER_ENDPOINT", 64)?;
        if per_endpoint == 0 {
            return Err(ConfigError {
                var: "STABLEPAY_DELIVERY_PER_ENDPOINT",
                problem: "must be at least 1".into(),
            });
        }
        Ok(Self {
            database_url,
            secrets_key,
            secrets_key_previous,
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
            metrics_bind: var("STABLEPAY_METRICS_BIND"),
            retention: duration("STABLEPAY_RETENTION", Duration::from_secs(30 * 86_400))?,
            retention_interval: duration("STABLEPAY_RETENTION_INTERVAL", Duration::from_secs(60))?,
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
