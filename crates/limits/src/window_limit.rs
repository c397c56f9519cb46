//! Fixed one-minute windows of attempts per key, on the `Clock` port's time: sign-ins per
//! account, failed API authentications per client address. Cheap when nobody is near a
//! limit: checking an empty limiter is one atomic load.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use stablepay_domain::Timestamp;

const WINDOW_SECS: i64 = 60;
/// Keys remembered at most: past it, new keys go untracked for the rest of the window (as
/// if there were no limiter) rather than let the map, and every sweep, grow without bound.
const MAX_TRACKED: usize = 65_536;

pub struct WindowLimiter<K> {
    per_min: u32,
    windows: Mutex<Windows<K>>,
    /// How many keys are remembered, readable without the lock.
    tracked: AtomicUsize,
}

struct Windows<K> {
    /// The window every entry belongs to; a new window starts an empty map.
    current: i64,
    counts: HashMap<K, u32>,
}

impl<K: Hash + Eq> WindowLimiter<K> {
    pub fn new(per_min: u32) -> Self {
        Self {
            per_min: per_min.max(1),
            windows: Mutex::new(Windows {
                current: i64::MIN,
                counts: HashMap::new(),
            }),
            tracked: AtomicUsize::new(0),
        }
    }

    /// Counts an attempt of `key` unless its window's budget is spent; `Err` carries the
    /// whole seconds (≥ 1) until the window ends.
    pub fn take(&self, key: K, now: Timestamp) -> Result<(), u64> {
        self.with_windows(now, |w, per_min| {
            if let Some(count) = w.counts.get_mut(&key) {
                if *count >= per_min {
                    return false;
                }
                *count += 1;
            } else if w.counts.len() < MAX_TRACKED {
                w.counts.insert(key, 1);
            }
            true
        })
    }

    /// Counts an attempt of `key` (a failure that already happened), whatever its budget.
    pub fn record(&self, key: K, now: Timestamp) {
        let _ = self.with_windows(now, |w, _| {
            if let Some(count) = w.counts.get_mut(&key) {
                *count = count.saturating_add(1);
            } else if w.counts.len() < MAX_TRACKED {
                w.counts.insert(key, 1);
            }
            true
        });
    }

    /// `Err` (seconds to wait) when `key` spent its window's budget; counts nothing and
    /// remembers nothing.
    pub fn spent(&self, key: K, now: Timestamp) -> Result<(), u64> {
        if self.tracked.load(Ordering::Relaxed) == 0 {
            return Ok(());
        }
        self.with_windows(now, |w, per_min| {
            w.counts.get(&key).is_none_or(|count| *count < per_min)
        })
    }

    /// Keys currently remembered.
    pub fn tracked(&self) -> usize {
        self.tracked.load(Ordering::Relaxed)
    }

    fn with_windows(
        &self,
        now: Timestamp,
        allowed: impl FnOnce(&mut Windows<K>, u32) -> bool,
    ) -> Result<(), u64> {
        let window = now.unix_seconds().div_euclid(WINDOW_SECS);
        let mut w = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if w.current != window {
            // Every entry is of a past window: forget them all at once.
            w.current = window;
            w.counts.clear();
        }
        let ok = allowed(&mut w, self.per_min);
        self.tracked.store(w.counts.len(), Ordering::Relaxed);
        if ok {
            return Ok(());
        }
        let ends = (window + 1) * WINDOW_SECS;
        Err(u64::try_from(ends - now.unix_seconds()).unwrap_or(1).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: i64) -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000 + s).expect("time")
    }

    #[test]
    fn a_key_gets_its_budget_per_window_and_keys_are_apart() {
        let limiter = WindowLimiter::new(2);
        assert_eq!(limiter.spent("a", at(0)), Ok(()), "nothing tracked yet");
        assert!(limiter.take("a", at(0)).is_ok() && limiter.take("a", at(1)).is_ok());
        assert_eq!(limiter.take("a", at(20)), Err(40));
        assert_eq!(limiter.spent("a", at(20)), Err(40));
        assert!(limiter.take("b", at(20)).is_ok(), "keys apart");
        assert!(limiter.take("a", at(60)).is_ok(), "a new window");
        limiter.record("c", at(60));
        limiter.record("c", at(61));
        limiter.record("c", at(62));
        assert_eq!(
            limiter.spent("c", at(62)),
            Err(58),
            "recorded past the budget"
        );
    }

    #[test]
    fn past_windows_are_forgotten_checks_remember_nothing_and_the_map_is_bounded() {
        let limiter = WindowLimiter::new(1);
        limiter.record(0usize, at(0));
        for i in 1..10 {
            assert!(limiter.spent(i, at(0)).is_ok());
        }
        assert_eq!(
            limiter.tracked(),
            1,
            "a check of a clean key remembers nothing"
        );
        for i in 0..MAX_TRACKED + 10 {
            let _ = limiter.take(i, at(0));
        }
        assert_eq!(limiter.tracked(), MAX_TRACKED);
        limiter.take(usize::MAX, at(61)).unwrap();
        assert_eq!(limiter.tracked(), 1);
    }
}
