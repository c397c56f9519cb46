//! The api's own settings, read through the shared layer (`stablepay-config`), which
//! also holds what both binaries read (database, pool, secrets keys, metrics, chains).

use stablepay_config::{number as parsed, optional as var, ConfigError, ProcessConfig};
use stablepay_domain::rules::dashboard_auth::SessionPolicy;

fn err(var: &'static str, problem: impl Into<String>) -> ConfigError {
    ConfigError::new(var, problem)
}

#[derive(Debug)]
pub struct ServeConfig {
    /// Database, pool (`STABLEPAY_DB_POOL_SIZE`, default 6: 3 per HTTP worker on 2 cores), secrets keys, metrics bind.
    pub process: ProcessConfig,
    pub bind: String,
    /// `STABLEPAY_PUBLIC_URL` as given; unset, it is the address actually bound (so a
    /// port-0 bind still yields working links): see `public_url_for`.
    pub public_url: Option<String>,
    pub rate_limit_per_min: u32,
    /// `STABLEPAY_TRUSTED_PROXIES`: load balancers allowed to forward the client address.
    pub trusted_proxies: stablepay_limits::TrustedProxies,
    pub workers: usize,
    /// Dashboard sessions (D21): `STABLEPAY_DASHBOARD_IDLE_TIMEOUT` (30m) and
    /// `STABLEPAY_DASHBOARD_SESSION_LIFETIME` (12h).
    pub dashboard: SessionPolicy,
}

fn duration_secs(name: &'static str, default_secs: i64) -> Result<i64, ConfigError> {
    match var(name) {
        None => Ok(default_secs),
        Some(v) => stablepay_domain::parse_duration(&v)
            .map(|d| d.as_secs() as i64)
            .filter(|s| *s > 0)
            .ok_or_else(|| err(name, format!("`{v}` is not a duration such as 30m or 12h"))),
    }
}

fn dashboard_policy() -> Result<SessionPolicy, ConfigError> {
    let d = SessionPolicy::default();
    Ok(SessionPolicy {
        idle_secs: duration_secs("STABLEPAY_DASHBOARD_IDLE_TIMEOUT", d.idle_secs)?,
        absolute_secs: duration_secs("STABLEPAY_DASHBOARD_SESSION_LIFETIME", d.absolute_secs)?,
        ..d
    })
}

impl ServeConfig {
    /// Where hosted pages, the portal and setup links point, given the bound address.
    pub fn public_url_for(&self, bound: std::net::SocketAddr) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{bound}"))
    }

    pub fn from_env() -> Result<Self, ConfigError> {
        let bind = bind();
        let public_url = match var("STABLEPAY_PUBLIC_URL") {
            Some(_) => Some(public_url()?),
            None => None,
        };
        let rate_limit_per_min: u32 = parsed("STABLEPAY_RATE_LIMIT_PER_MIN", 120)?;
        if rate_limit_per_min == 0 {
            return Err(err("STABLEPAY_RATE_LIMIT_PER_MIN", "must be at least 1"));
        }
        Ok(Self {
            process: ProcessConfig::from_env("STABLEPAY_DB_POOL_SIZE", 6)?,
            bind,
            public_url,
            rate_limit_per_min,
            trusted_proxies: stablepay_limits::TrustedProxies::parse(
                &var("STABLEPAY_TRUSTED_PROXIES").unwrap_or_default(),
            )
            .map_err(|e| err("STABLEPAY_TRUSTED_PROXIES", e))?,
            workers: parsed(
                "STABLEPAY_HTTP_WORKERS",
                std::thread::available_parallelism().map_or(2, |n| n.get()),
            )?,
            dashboard: dashboard_policy()?,
        })
    }
}

fn bind() -> String {
    var("STABLEPAY_BIND").unwrap_or_else(|| "127.0.0.1:8080".to_owned())
}

/// `STABLEPAY_PUBLIC_URL` (default `http://<STABLEPAY_BIND>`), without a trailing slash:
/// where hosted pages, the portal and dashboard setup links point.
pub fn public_url() -> Result<String, ConfigError> {
    let public_url = match var("STABLEPAY_PUBLIC_URL") {
        Some(url) => url,
        // Links printed by an operator command would name port 0.
        None if bind().ends_with(":0") => {
            return Err(err(
                "STABLEPAY_PUBLIC_URL",
                "is required when STABLEPAY_BIND's port is 0",
            ))
        }
        None => format!("http://{}", bind()),
    };
    url::Url::parse(&public_url)
        .map_err(|_| err("STABLEPAY_PUBLIC_URL", "must be an absolute URL"))?;
    Ok(public_url.trim_end_matches('/').to_owned())
}
