//! Failed API authentications per client address: a flood of well-formed wrong keys
//! costs a database lookup each, so past a budget an address gets 429 before any lookup.
//! Keys this process has seen authenticate (`AuthGuesses`) are not held back: a
//! merchant behind the same address as a misbehaving client keeps working.

use actix_web::HttpRequest;
use stablepay_domain::Timestamp;
use stablepay_limits::{TrustedProxies, WindowLimiter};

use crate::error::ApiError;

/// Failed authentications per client address per minute before lookups stop.
pub const AUTH_FAILURES_PER_MIN: u32 = 30;

pub struct AuthFailureLimiter {
    windows: WindowLimiter<std::net::IpAddr>,
    proxies: TrustedProxies,
}

impl AuthFailureLimiter {
    pub fn new(per_min: u32, proxies: TrustedProxies) -> Self {
        Self {
            windows: WindowLimiter::new(per_min),
            proxies,
        }
    }

    /// 429 when the request's client spent its budget of failed authentications.
    pub fn check(&self, req: &HttpRequest, now: Timestamp) -> Result<(), ApiError> {
        if self.windows.tracked() == 0 {
            return Ok(());
        }
        self.windows
            .spent(self.proxies.client_key(req), now)
            .map_err(|wait| {
                metrics::counter!("stablepay_rate_limited_total", "limiter" => "auth_failures")
                    .increment(1);
                ApiError::rate_limited(
                    format!(
                        "Too many requests with invalid API keys from this address; retry in {wait} s"
                    ),
                    wait,
                )
            })
    }

    /// Counts a failed authentication of the request's client.
    pub fn failed(&self, req: &HttpRequest, now: Timestamp) {
        self.windows.record(self.proxies.client_key(req), now);
    }
}
