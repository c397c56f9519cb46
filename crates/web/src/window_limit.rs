//! Fixed one-minute windows of attempts per key, on the `Clock` port's time: sign-ins per
//! account, failed API authentications per client address. Cheap when nobody is near a
//! limit: checking an empty limiter is one atomic load.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use stablepay_domain::Timestamp;

const WINDOW_SECS: i64 = 60;
/// Keys remembered before the ones of past windows are dropped.
const SWEEP_ABOVE: usize = 4096;

pub struct WindowLimiter<K> {
    per_min: u32,
    windows: Mutex<HashMap<K, (i64, u32)>>,
    /// How many keys are remembered, readable without the lock.
    tracked: AtomicUsize,
}

impl<K: Hash + Eq> WindowLimiter<K> {
    pub fn new(per_min: u32) -> Self {
        Self {
            per_min: per_min.max(1),
            windows: Mutex::new(HashMap::new()),
            tracked: AtomicUsize::new(0),
        }
    }

    /// Counts an attempt of `key` unless its window's budget is spent; `Err` carries the
    /// whole seconds (≥ 1) until the window ends.
    pub fn take(&self, key: K, now: Timestamp) -> Result<(), u64> {
        self.with_count(key, now, |count, per_min| {
            if *count >= per_min {
                return false;
            }
            *count += 1;
            true
        })
    }

    /// Counts an attempt of `key` (a failure that already happened), whatever its budget.
    pub fn record(&self, key: K, now: Timestamp) {
        let _ = self.with_count(key, now, |count, _| {
            *count = count.saturating_add(1);
            true
        });
    }

    /// `Err` (seconds to wait) when `key` spent its window's budget; counts nothing.
    pub fn spent(&self, key: K, now: Timestamp) -> Result<(), u64> {
        if self.tracked.load(Ordering::Relaxed) == 0 {
            return Ok(());
        }
        self.with_count(key, now, |count, per_min| *count < per_min)
    }

    /// Keys currently remembered.
    pub fn tracked(&self) -> usize {
        self.tracked.load(Ordering::Relaxed)
    }

    fn with_count(
        &self,
        key: K,
        now: Timestamp,
        allowed: impl FnOnce(&mut u32, u32) -> bool,
    ) -> Result<(), u64> {
        let window = now.unix_seconds().div_euclid(WINDOW_SECS);
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if windows.len() > SWEEP_ABOVE {
            windows.retain(|_, (w, _)| *w == window);
        }
        let entry = windows.entry(key).or_insert((window, 0));
        if entry.0 != window {
            *entry = (window, 0);
        }
        let ok = allowed(&mut entry.1, self.per_min);
        self.tracked.store(windows.len(), Ordering::Relaxed);
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
    fn past_windows_are_forgotten() {
        let limiter = WindowLimiter::new(1);
        for i in 0..=SWEEP_ABOVE {
            let _ = limiter.take(i, at(0));
        }
        assert!(limiter.tracked() > SWEEP_ABOVE);
        limiter.take(usize::MAX, at(61)).unwrap();
        assert_eq!(limiter.tracked(), 1);
    }
}
