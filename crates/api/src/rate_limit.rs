//! The per-key rate limit (D15), shared by every api process.
//!
//! The budget lives in PostgreSQL (a GCRA arrival time per key). A process leases a
//! batch of tokens in the same statement that authenticates the request (no extra
//! round trip) and spends them locally. A batch is a tenth of a second of the key's
//! rate (one token for the default 120 a minute, so low-rate keys are counted exactly)
//! and expires after a second, so N processes together never exceed the limit.
//!
//! A batch is renewed by one request while the others spend what is left of it: when
//! every request found it spent at once, they all leased together, each locking the
//! key's row in turn on a connection of its own, and the api stalled for tens of ms once
//! a batch (bench api: p99 of creates held at 40 % of pgbench, 20-34 ms). What is left
//! when the renewal lands is kept with it, so a busy key's usage over a minute exceeds
//! its limit by at most that remainder (under a batch), on top of the one-second lifetime.

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
    /// A request is leasing the next batch.
    renewing: bool,
}

impl Leased {
    /// Time for one request to lease the next batch: a quarter of the batch or of its
    /// lifetime is left.
    fn due_for_renewal(&self, now: Instant) -> bool {
        !self.renewing
            && (self.tokens <= batch(self.per_min) / 4
                || self.until.saturating_duration_since(now) < LEASE_LIFETIME / 4)
    }
}

/// A tenth of a second of `per_min`, at least one token.
fn batch(per_min: u32) -> u32 {
    (per_min / 600).max(1)
}

impl KeyRateLimiter {
    pub fn new(default_per_min: u32) -> Self {
        Self {
            default_per_min: default_per_min.max(1),
            local: Mutex::new(HashMap::new()),
        }
    }

    /// Spends one locally leased token of this key; otherwise (none left, or time for
    /// this request to renew the batch) returns the lease to ask for along with
    /// authentication.
    pub fn take(&self, key: &[u8; 32]) -> Result<(), RateLease> {
        self.take_at(key, Instant::now())
    }

    fn take_at(&self, key: &[u8; 32], now: Instant) -> Result<(), RateLease> {
        let mut local = self.local.lock().unwrap_or_else(|p| p.into_inner());
        let per_min = match local.get_mut(key) {
            Some(l) if l.tokens > 0 && l.until > now => {
                if l.due_for_renewal(now) {
                    l.renewing = true;
                    l.per_min
                } else {
                    l.tokens -= 1;
                    return Ok(());
                }
            }
            Some(l) => l.per_min,
            None => self.default_per_min,
        };
        Err(RateLease {
            tokens: batch(per_min),
            default_per_min: self.default_per_min,
        })
    }

    /// Keeps the rest of a granted lease (one token is the current request's), with what
    /// was left of the batch it renews.
    pub fn granted(&self, key: &[u8; 32], tokens: u32, per_min: Option<u32>) {
        let now = Instant::now();
        let mut local = self.local.lock().unwrap_or_else(|p| p.into_inner());
        if local.len() > SWEEP_ABOVE {
            local.retain(|_, l| l.until > now);
        }
        let left = local
            .get(key)
            .filter(|l| l.until > now)
            .map_or(0, |l| l.tokens);
        local.insert(
            *key,
            Leased {
                tokens: left.saturating_add(tokens.saturating_sub(1)),
                until: now + LEASE_LIFETIME,
                per_min: per_min.unwrap_or(self.default_per_min).max(1),
                renewing: false,
            },
        );
    }

    /// The key's shared budget refused a lease: spends a token left of the batch that
    /// request was renewing, if any (the refusal is then for the next batch, not for it).
    pub fn refused(&self, key: &[u8; 32]) -> bool {
        let now = Instant::now();
        let mut local = self.local.lock().unwrap_or_else(|p| p.into_inner());
        let Some(l) = local.get_mut(key) else {
            return false;
        };
        l.renewing = false;
        if l.tokens > 0 && l.until > now {
            l.tokens -= 1;
            return true;
        }
        false
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
        // 99 are kept; the last quarter is spent while one request renews.
        for _ in 0..74 {
            assert!(rl.take(&key).is_ok());
        }
        assert!(rl.take(&key).is_err());
        // Another key has its own budget.
        assert!(rl.take(&[3u8; 32]).is_err());
    }

    #[test]
    fn one_request_renews_a_batch_while_the_others_spend_the_rest() {
        let rl = KeyRateLimiter::new(60_000);
        let key = [4u8; 32];
        assert_eq!(rl.take(&key).unwrap_err().tokens, 100);
        rl.granted(&key, 100, None);
        for _ in 0..74 {
            assert!(rl.take(&key).is_ok());
        }
        // A quarter left: this request renews, the ones after it keep spending.
        assert_eq!(rl.take(&key).unwrap_err().tokens, 100);
        for _ in 0..25 {
            assert!(
                rl.take(&key).is_ok(),
                "no second renewal while one is in flight"
            );
        }
        assert!(rl.take(&key).is_err(), "a spent batch leases again");
        // The renewal lands with what was left: here nothing; its own token is the request's.
        rl.granted(&key, 100, None);
        for _ in 0..74 {
            assert!(rl.take(&key).is_ok());
        }
        assert!(rl.take(&key).is_err());
        // Landing with 25 left: they are kept beside the new batch's 99 (124; the next
        // renewal comes at 25 left).
        rl.granted(&key, 100, None);
        for _ in 0..99 {
            assert!(rl.take(&key).is_ok());
        }
        assert!(rl.take(&key).is_err());
    }

    #[test]
    fn a_batch_is_renewed_in_the_last_quarter_of_its_lifetime() {
        let rl = KeyRateLimiter::new(60_000);
        let key = [5u8; 32];
        rl.granted(&key, 100, None);
        let now = Instant::now();
        assert!(rl.take_at(&key, now).is_ok());
        assert!(rl.take_at(&key, now + LEASE_LIFETIME / 2).is_ok());
        let late = now + LEASE_LIFETIME * 4 / 5;
        assert!(
            rl.take_at(&key, late).is_err(),
            "late in its life the batch is renewed"
        );
        assert!(rl.take_at(&key, late).is_ok(), "by one request");
        assert!(
            rl.take_at(&key, now + LEASE_LIFETIME * 2).is_err(),
            "an expired batch is gone"
        );
    }

    #[test]
    fn a_refused_renewal_spends_what_is_left_and_a_spent_batch_is_refused() {
        let rl = KeyRateLimiter::new(60_000);
        let key = [6u8; 32];
        rl.granted(&key, 26, None);
        // 25 tokens left: a quarter of the batch, so this request renews.
        assert!(rl.take(&key).is_err());
        assert!(rl.refused(&key), "the batch it renewed still had tokens");
        for _ in 0..24 {
            assert!(rl.take(&key).is_ok() || rl.refused(&key));
        }
        assert!(!rl.refused(&key), "nothing left");
        assert!(!rl.refused(&[7u8; 32]), "an unknown key has nothing");
    }
}
