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
//! a batch (bench api: p99 of creates held at 40 % of pgbench, 20-34 ms). The renewing
//! request spends a local token first, so a refused renewal costs it nothing; up to a
//! quarter of a batch left when the renewal lands is kept with it (living up to a second
//! longer), the rest is dropped, so a process holds at most a batch and a quarter.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use stablepay_domain::ports::RateLease;

/// Unspent leased tokens live this long.
const LEASE_LIFETIME: Duration = Duration::from_secs(1);
/// A renewal not answered within this long (failed, dropped, slow) lets another start.
const RENEWAL_PATIENCE: Duration = Duration::from_millis(200);
/// Entries kept before expired ones are swept.
const SWEEP_ABOVE: usize = 10_000;

pub struct KeyRateLimiter {
    default_per_min: u32,
    local: Mutex<HashMap<[u8; 32], Leased>>,
}

/// What a request does about its key's budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// It spent a locally leased token.
    Spent,
    /// It spent a local token and renews the batch with this lease; a refusal is no 429.
    Renew(RateLease),
    /// No local token was left: it must lease one; a refusal is its 429.
    Lease(RateLease),
}

impl Budget {
    /// The lease to ask for along with authentication.
    pub fn lease(self) -> Option<RateLease> {
        match self {
            Budget::Spent => None,
            Budget::Renew(lease) | Budget::Lease(lease) => Some(lease),
        }
    }
}

struct Leased {
    tokens: u32,
    until: Instant,
    per_min: u32,
    /// When a request started leasing the next batch, until it is answered.
    renewing_since: Option<Instant>,
}

impl Leased {
    /// Time for one request to lease the next batch: a quarter of the batch or of its
    /// lifetime is left, and no renewal is under way.
    fn due_for_renewal(&self, now: Instant) -> bool {
        let idle = self
            .renewing_since
            .is_none_or(|t| now.saturating_duration_since(t) >= RENEWAL_PATIENCE);
        idle && (self.tokens <= batch(self.per_min) / 4
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

    /// Spends one locally leased token of this key (renewing the batch when it is due),
    /// or says which lease to ask for along with authentication.
    pub fn take(&self, key: &[u8; 32]) -> Budget {
        self.take_at(key, Instant::now())
    }

    fn take_at(&self, key: &[u8; 32], now: Instant) -> Budget {
        let mut local = self.entries();
        let per_min = match local.get_mut(key) {
            Some(l) if l.tokens > 0 && l.until > now => {
                let due = l.due_for_renewal(now);
                l.tokens -= 1;
                if !due {
                    return Budget::Spent;
                }
                l.renewing_since = Some(now);
                return Budget::Renew(self.lease_of(l.per_min));
            }
            Some(l) => l.per_min,
            None => self.default_per_min,
        };
        Budget::Lease(self.lease_of(per_min))
    }

    /// The leased batches by key (a panic elsewhere while holding them leaves them usable).
    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Leased>> {
        self.local.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lease_of(&self, per_min: u32) -> RateLease {
        RateLease {
            tokens: batch(per_min),
            default_per_min: self.default_per_min,
        }
    }

    /// Keeps a granted lease: all of a renewal's, the rest of a `Lease`'s (one token is
    /// its request's), with up to a quarter batch left of the batch it replaces.
    pub fn granted(&self, key: &[u8; 32], budget: Budget, tokens: u32, per_min: Option<u32>) {
        let now = Instant::now();
        let per_min = per_min.unwrap_or(self.default_per_min).max(1);
        let kept = match budget {
            Budget::Renew(_) => tokens,
            Budget::Spent | Budget::Lease(_) => tokens.saturating_sub(1),
        };
        let mut local = self.entries();
        if local.len() > SWEEP_ABOVE {
            local.retain(|_, l| l.until > now);
        }
        let left = local
            .get(key)
            .filter(|l| l.until > now)
            .map_or(0, |l| l.tokens.min(batch(per_min) / 4));
        local.insert(
            *key,
            Leased {
                tokens: left.saturating_add(kept),
                until: now + LEASE_LIFETIME,
                per_min,
                renewing_since: None,
            },
        );
    }

    /// The key's shared budget refused a renewal (its request already spent a local
    /// token): the next try waits `RENEWAL_PATIENCE` rather than come with every request.
    pub fn renewal_refused(&self, key: &[u8; 32]) {
        let mut local = self.entries();
        if let Some(l) = local.get_mut(key) {
            l.renewing_since = Some(Instant::now());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(budget: Budget) -> RateLease {
        budget.lease().expect("a lease")
    }

    /// `n` requests each spend a local token.
    fn spend(rl: &KeyRateLimiter, key: &[u8; 32], n: u32) {
        for _ in 0..n {
            assert_eq!(rl.take(key), Budget::Spent);
        }
    }

    /// A limiter holding a first grant of `tokens` for a key limited to 60,000 a minute
    /// (batches of 100), and that key.
    fn leased(tokens: u32) -> (KeyRateLimiter, [u8; 32]) {
        let (rl, key) = (KeyRateLimiter::new(60_000), [4u8; 32]);
        rl.granted(&key, Budget::Lease(rl.lease_of(60_000)), tokens, None);
        (rl, key)
    }

    #[test]
    fn a_low_rate_key_asks_for_one_token_per_request() {
        let rl = KeyRateLimiter::new(120);
        let key = [1u8; 32];
        let first = rl.take(&key);
        assert_eq!(
            first,
            Budget::Lease(RateLease {
                tokens: 1,
                default_per_min: 120
            })
        );
        rl.granted(&key, first, 1, None);
        // The single token was this request's: the next one asks again, never renews.
        assert!(matches!(rl.take(&key), Budget::Lease(l) if l.tokens == 1));
    }

    #[test]
    fn a_high_rate_key_spends_a_batch_locally() {
        let rl = KeyRateLimiter::new(120);
        let key = [2u8; 32];
        let first = rl.take(&key);
        // Told its own rate with the first grant, the key leases a tenth of a second.
        rl.granted(&key, first, 1, Some(60_000));
        let second = rl.take(&key);
        assert_eq!(lease(second).tokens, 100);
        rl.granted(&key, second, 100, Some(60_000));
        // 99 are kept; the request that finds a quarter left spends one and renews.
        spend(&rl, &key, 74);
        assert!(matches!(rl.take(&key), Budget::Renew(l) if l.tokens == 100));
        // Another key has its own budget.
        assert!(matches!(rl.take(&[3u8; 32]), Budget::Lease(_)));
    }

    #[test]
    fn one_request_renews_a_batch_while_the_others_spend_the_rest() {
        let (rl, key) = leased(100);
        spend(&rl, &key, 74);
        let renewal = rl.take(&key);
        assert!(matches!(renewal, Budget::Renew(_)));
        // 24 left: spent by others, no second renewal while one is in flight.
        spend(&rl, &key, 24);
        assert!(
            matches!(rl.take(&key), Budget::Lease(_)),
            "a spent batch leases again"
        );
        // The renewal lands: all 100 are kept (its request spent a local token).
        rl.granted(&key, renewal, 100, None);
        spend(&rl, &key, 75);
        let renewal = rl.take(&key);
        assert!(matches!(renewal, Budget::Renew(_)));
        // Landing with 24 left: they are kept beside the new 100 (at most a quarter batch).
        rl.granted(&key, renewal, 100, None);
        spend(&rl, &key, 24 + 100 - 25);
        assert!(matches!(rl.take(&key), Budget::Renew(_)));
    }

    #[test]
    fn a_renewal_keeps_at_most_a_quarter_batch_of_what_is_left() {
        let (rl, key) = leased(100);
        let now = Instant::now();
        assert_eq!(rl.take_at(&key, now), Budget::Spent);
        assert_eq!(rl.take_at(&key, now + LEASE_LIFETIME / 2), Budget::Spent);
        // Late in its life the batch is renewed, by one request, with 97 left.
        let late = now + LEASE_LIFETIME * 4 / 5;
        let renewal = rl.take_at(&key, late);
        assert!(matches!(renewal, Budget::Renew(_)));
        assert_eq!(rl.take_at(&key, late), Budget::Spent);
        // 96 left, of which 25 are kept: 125 in all, renewed again at 25.
        rl.granted(&key, renewal, 100, None);
        spend(&rl, &key, 100);
        assert!(matches!(rl.take(&key), Budget::Renew(_)));
        // An expired batch is gone.
        assert!(matches!(
            rl.take_at(&key, now + LEASE_LIFETIME * 3),
            Budget::Lease(_)
        ));
    }

    #[test]
    fn an_unanswered_or_refused_renewal_lets_another_start_after_a_while() {
        let (rl, key) = leased(27);
        let now = Instant::now();
        // 26 left, then 25: this request renews, and nobody answers it.
        assert_eq!(rl.take_at(&key, now), Budget::Spent);
        assert!(matches!(rl.take_at(&key, now), Budget::Renew(_)));
        assert_eq!(rl.take_at(&key, now + RENEWAL_PATIENCE / 2), Budget::Spent);
        let later = now + RENEWAL_PATIENCE;
        assert!(matches!(rl.take_at(&key, later), Budget::Renew(_)));
        // A refusal holds the next try back as long, without taking tokens away.
        rl.renewal_refused(&key);
        assert_eq!(rl.take(&key), Budget::Spent);
        assert!(matches!(
            rl.take_at(&key, Instant::now() + RENEWAL_PATIENCE),
            Budget::Renew(_)
        ));
    }
}
