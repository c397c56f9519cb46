//! Per-key GCRA rate limiting (D15) with governor; each key gets its own quota.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use stablepay_domain::Actor;

pub struct KeyRateLimiter {
    default_per_min: u32,
    limiters: Mutex<HashMap<(Actor, u32), Arc<DefaultDirectRateLimiter>>>,
    clock: DefaultClock,
}

impl KeyRateLimiter {
    pub fn new(default_per_min: u32) -> Self {
        Self {
            default_per_min,
            limiters: Mutex::new(HashMap::new()),
            clock: DefaultClock::default(),
        }
    }

    /// `Ok` when the request may proceed, else the whole seconds (≥ 1) to wait.
    pub fn check(&self, key: Actor, per_min_override: Option<u32>) -> Result<(), u64> {
        let per_min = per_min_override.unwrap_or(self.default_per_min).max(1);
        let limiter = {
            let mut map = self
                .limiters
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            map.entry((key, per_min))
                .or_insert_with(|| {
                    let quota =
                        Quota::per_minute(NonZeroU32::new(per_min).unwrap_or(NonZeroU32::MIN));
                    Arc::new(RateLimiter::direct(quota))
                })
                .clone()
        };
        limiter.check().map_err(|not_until| {
            let wait = not_until.wait_time_from(self.clock.now());
            wait.as_secs() + u64::from(wait.subsec_nanos() > 0).max(u64::from(wait.as_secs() == 0))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stablepay_domain::ApiKeyId;

    fn new_key() -> Actor {
        Actor::ApiKey(ApiKeyId::generate())
    }

    #[test]
    fn allows_the_quota_then_refuses_with_a_wait() {
        let rl = KeyRateLimiter::new(3);
        let key = new_key();
        for _ in 0..3 {
            assert!(rl.check(key, None).is_ok());
        }
        let wait = rl.check(key, None).unwrap_err();
        assert!((1..=20).contains(&wait), "{wait}");
        // Another key has its own budget.
        assert!(rl.check(new_key(), None).is_ok());
        // A per-key override applies.
        let vip = new_key();
        for _ in 0..10 {
            assert!(rl.check(vip, Some(1000)).is_ok());
        }
    }
}
