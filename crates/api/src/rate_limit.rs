//! The per-key rate limit (D15), shared by every api process.
//!
//! The budget lives in PostgreSQL (a GCRA arrival time per key). A process leases a
//! batch of tokens in the same statement that authenticates the request (no extra
//! round trip) and spends them locally. A batch is a tenth of a second of the key's
//! rate (one token for the default 120 a minute, so low-rate keys are counted exactly)
//! and expires after a second, so N processes together never exceed the limit.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use stablepay_domain::ports::RateLease;

/// Unspent leased tokens live this long.
const LEASE_LIFETIME: Duration = Duration::from_secs(1);
/// Entries kept before expired ones are swept.
const SWEEP_ABOVE: usize = 10_000;

pub struct KeyRateLimiter {
    default_per_min: u32,
    local: Mutex<HashMap<[u8; 32], Leased>>,
}

struct Leased {
    tokens: u32,
    until: Instant,
    per_min: u32,
}

impl KeyRateLimiter {
    pub fn new(default_per_min: u32) -> Self {
        Self {
            default_per_min: default_per_min.max(1),
            local: Mutex::new(HashMap::new()),
        }
    }

    /// Spends one locally leased token of this key; otherwise returns the lease to ask
    /// for along with authentication.
    pub fn take(&self, key: &[u8; 32]) -> Result<(), RateLease> {
        let now = Instant::now();
        let mut local = self.local.lock().unwrap_or_else(|p| p.into_inner());
        let per_min = match local.get_mut(key) {
            Some(l) if l.tokens > 0 && l.until > now => {
                l.tokens -= 1;
                return Ok(());
            }
            Some(l) => l.per_min,
            None => self.default_per_min,
        };
        Err(RateLease {
            tokens: (per_min / 600).max(1),
            default_per_min: self.default_per_min,
        })
    }

    /// Keeps the rest of a granted lease (one token is the current request's).
    pub fn granted(&self, key: &[u8; 32], tokens: u32, per_min: Option<u32>) {
        let now = Instant::now();
        let mut local = self.local.lock().unwrap_or_else(|p| p.into_inner());
        if local.len() > SWEEP_ABOVE {
            local.retain(|_, l| l.until > now);
        }
        local.insert(
            *key,
            Leased {
                tokens: tokens.saturating_sub(1),
                until: now + LEASE_LIFETIME,
                per_min: per_min.unwrap_or(self.default_per_min).max(1),
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_low_rate_key_asks_for_one_token_per_request() {
        let rl = KeyRateLimiter::new(120);
        let key = [1u8; 32];
        let lease = rl.take(&key).unwrap_err();
        assert_eq!(lease.tokens, 1);
        rl.granted(&key, 1, None);
        // The single token was this request's: the next one asks again.
        assert_eq!(rl.take(&key).unwrap_err().tokens, 1);
    }

    #[test]
    fn a_high_rate_key_spends_a_batch_locally() {
        let rl = KeyRateLimiter::new(120);
        let key = [2u8; 32];
        rl.take(&key).unwrap_err();
        // Told its own rate with the first grant, the key leases a tenth of a second.
        rl.granted(&key, 1, Some(60_000));
        assert_eq!(rl.take(&key).unwrap_err().tokens, 100);
        rl.granted(&key, 100, Some(60_000));
        for _ in 0..99 {
            assert!(rl.take(&key).is_ok());
        }
        assert!(rl.take(&key).is_err());
        // Another key has its own budget.
        assert!(rl.take(&[3u8; 32]).is_err());
    }
}
