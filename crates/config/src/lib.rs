//! Configuration from the environment: the one typed layer the api and the worker read.
//! Each variable is read here and parsed once into a typed value; a bad value fails at
//! start with one line naming the variable. Key material is held in `secrecy` boxes, so
//! no `Debug` of a configuration shows it.

mod chain;
mod env;
mod pricing;
mod screening;
mod secrets;

pub use chain::{ChainEnv, KeyRole, RelayerSettings, DEFAULT_RELAYER_MIN_BALANCE_WEI};
pub use env::{duration, flag, number, optional, required, ConfigError};
pub use pricing::price_feeds;
pub use screening::ScreeningEnv;
pub use secrets::SecretsKeys;
pub use stablepay_domain::parse_duration;

use secrecy::SecretString;

/// What every process needs: its database, its pool size, the secrets keys and where
/// its operator endpoints listen.
#[derive(Debug)]
pub struct ProcessConfig {
    /// `DATABASE_URL` (secret: it may carry a password).
    pub database_url: SecretString,
    /// The process's one connection pool: `STABLEPAY_DB_POOL_SIZE` (api) or
    /// `STABLEPAY_WORKER_DB_POOL_SIZE` (worker), so one env file can size both.
    pub db_pool_size: usize,
    pub secrets: SecretsKeys,
    /// `STABLEPAY_METRICS_BIND`: where `/metrics`, `/livez` and `/readyz` are served
    /// (off when unset; port 0 picks a free port, printed on stdout).
    pub metrics_bind: Option<String>,
}

impl ProcessConfig {
    /// Reads the shared variables; the pool's variable and default differ per binary.
    pub fn from_env(pool_var: &str, default_pool: usize) -> Result<Self, ConfigError> {
        let db_pool_size = number(pool_var, default_pool)?;
        if db_pool_size == 0 {
            return Err(ConfigError::new(pool_var, "must be at least 1"));
        }
        Ok(Self {
            database_url: database_url()?,
            db_pool_size,
            secrets: SecretsKeys::from_env()?,
            metrics_bind: optional("STABLEPAY_METRICS_BIND"),
        })
    }
}

/// `DATABASE_URL`, required (also read alone by the operator commands).
pub fn database_url() -> Result<SecretString, ConfigError> {
    required(
        "DATABASE_URL",
        "is not set (e.g. postgres://postgres@127.0.0.1:5432/stablepay)",
    )
    .map(SecretString::from)
}
