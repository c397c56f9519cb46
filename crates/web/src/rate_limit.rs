//! Per-client-IP GCRA: the public hosted pages (D15) and dashboard sign-in (D21).

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{Quota, RateLimiter};

pub struct IpRateLimiter {
    limiter: governor::DefaultKeyedRateLimiter<IpAddr>,
    clock: DefaultClock,
}

impl IpRateLimiter {
    pub fn new(per_min: u32) -> Self {
        let quota = Quota::per_minute(NonZeroU32::new(per_min.max(1)).unwrap_or(NonZeroU32::MIN));
        Self {
            limiter: RateLimiter::keyed(quota),
            clock: DefaultClock::default(),
        }
    }

    /// `Ok` when the request may proceed, else the whole seconds (≥ 1) to wait.
    pub fn check(&self, ip: IpAddr) -> Result<(), u64> {
        self.limiter.check_key(&ip).map_err(|not_until| {
            metrics::counter!("stablepay_rate_limited_total", "limiter" => "client_ip")
                .increment(1);
            not_until.wait_time_from(self.clock.now()).as_secs().max(1)
        })
    }
}
