//! Per-client GCRA: the public hosted pages (D15) and dashboard sign-in (D21).

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};

use actix_web::HttpRequest;
use governor::clock::{Clock, DefaultClock};
use governor::{Quota, RateLimiter};

use crate::client_address::TrustedProxies;

/// Checks between two sweeps of clients whose budget is full again (their keys hold no
/// information any more; without the sweep every address ever seen stays in memory).
const SWEEP_EVERY: u64 = 4096;

pub struct IpRateLimiter {
    limiter: governor::DefaultKeyedRateLimiter<IpAddr>,
    clock: DefaultClock,
    proxies: TrustedProxies,
    checks: AtomicU64,
}

impl IpRateLimiter {
    pub fn new(per_min: u32, proxies: TrustedProxies) -> Self {
        let quota = Quota::per_minute(NonZeroU32::new(per_min.max(1)).unwrap_or(NonZeroU32::MIN));
        Self {
            limiter: RateLimiter::keyed(quota),
            clock: DefaultClock::default(),
            proxies,
            checks: AtomicU64::new(0),
        }
    }

    /// `Ok` when the request's client may proceed, else the whole seconds (≥ 1) to wait.
    pub fn check(&self, req: &HttpRequest) -> Result<(), u64> {
        self.check_key(self.proxies.client_key(req))
    }

    fn check_key(&self, client: IpAddr) -> Result<(), u64> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.limiter.retain_recent();
        }
        self.limiter.check_key(&client).map_err(|not_until| {
            metrics::counter!("stablepay_rate_limited_total", "limiter" => "client_ip")
                .increment(1);
            not_until.wait_time_from(self.clock.now()).as_secs().max(1)
        })
    }

    /// Clients currently remembered.
    pub fn tracked_clients(&self) -> usize {
        self.limiter.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_are_limited_apart_and_forgotten_once_their_budget_is_full_again() {
        let limiter = IpRateLimiter::new(60_000, TrustedProxies::default());
        for i in 0..SWEEP_EVERY - 1 {
            let ip = IpAddr::from(u32::try_from(i).unwrap().to_be_bytes());
            assert!(limiter.check_key(ip).is_ok());
        }
        assert_eq!(limiter.tracked_clients(), 4095);
        // 60,000/min refills a token per millisecond: every budget is full again soon.
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(limiter.check_key(IpAddr::from([9, 9, 9, 9])).is_ok());
        assert!(
            limiter.tracked_clients() <= 1,
            "{}",
            limiter.tracked_clients()
        );

        let strict = IpRateLimiter::new(2, TrustedProxies::default());
        let (a, b) = (IpAddr::from([1, 1, 1, 1]), IpAddr::from([2, 2, 2, 2]));
        assert!(strict.check_key(a).is_ok() && strict.check_key(a).is_ok());
        assert!(strict.check_key(a).unwrap_err() >= 1);
        assert!(strict.check_key(b).is_ok());
    }
}
