//! Per-client limits: GCRA for the public hosted pages (D15), fixed windows on the
//! `Clock` port for dashboard sign-in (D21).

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use actix_web::HttpRequest;
use governor::clock::{Clock, DefaultClock};
use governor::{Quota, RateLimiter};

use crate::client_address::TrustedProxies;
use crate::window_limit::WindowLimiter;

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

    /// The request's client, by the same trusted proxies (`TrustedProxies::client_address`).
    pub fn client_address(&self, req: &HttpRequest) -> IpAddr {
        self.proxies.client_address(req)
    }

    /// Clients currently remembered.
    pub fn tracked_clients(&self) -> usize {
        self.limiter.len()
    }
}

/// Sign-in posts per client address (D21), in fixed one-minute windows of the `Clock`
/// port's time, like the per-account limit beside it: a test that stops the api's clock
/// decides what this answers, however slowly the machine serves the posts.
pub struct ClientWindowLimiter {
    windows: WindowLimiter<IpAddr>,
    proxies: TrustedProxies,
    clock: Arc<dyn stablepay_domain::ports::Clock>,
}

impl ClientWindowLimiter {
    pub fn new(
        per_min: u32,
        proxies: TrustedProxies,
        clock: Arc<dyn stablepay_domain::ports::Clock>,
    ) -> Self {
        Self {
            windows: WindowLimiter::new(per_min),
            proxies,
            clock,
        }
    }

    /// `Ok` when the request's client may proceed (the attempt is counted), else the
    /// whole seconds (≥ 1) until its window ends.
    pub fn check(&self, req: &HttpRequest) -> Result<(), u64> {
        self.windows
            .take(self.proxies.client_key(req), self.clock.now())
            .inspect_err(|_| {
                metrics::counter!("stablepay_rate_limited_total", "limiter" => "client_ip")
                    .increment(1);
            })
    }
}

#[cfg(test)]
mod tests {
    use stablepay_domain::ports::AdjustableClock;

    use super::*;

    #[test]
    fn sign_in_windows_follow_the_clock_port_not_the_machine() {
        let clock = Arc::new(AdjustableClock::default());
        clock.freeze();
        let limiter = ClientWindowLimiter::new(2, TrustedProxies::default(), clock.clone());
        let req = actix_web::test::TestRequest::default()
            .peer_addr("10.0.0.1:4000".parse().unwrap())
            .to_http_request();
        let other = actix_web::test::TestRequest::default()
            .peer_addr("10.0.0.2:4000".parse().unwrap())
            .to_http_request();
        assert!(limiter.check(&req).is_ok() && limiter.check(&req).is_ok());
        let wait = limiter.check(&req).unwrap_err();
        assert!((1..=60).contains(&wait), "{wait}");
        assert!(limiter.check(&other).is_ok(), "clients apart");
        // However long the machine took so far, the window ends only when the clock says.
        assert_eq!(limiter.check(&req), Err(wait));
        clock.advance(std::time::Duration::from_secs(wait));
        assert!(limiter.check(&req).is_ok(), "a new window");
    }

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
