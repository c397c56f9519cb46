//! Sign-in attempts per account, beside the per-IP limit (D21): a flood aimed at one
//! account from many addresses costs at most this many password checks a minute (each
//! one is an argon2id run, even against a locked account). Windows follow the `Clock` port.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

use stablepay_domain::{Email, Timestamp};

use crate::window_limit::WindowLimiter;

pub struct AccountRateLimiter {
    /// Keys are keyed hashes of the normalised email: no address is kept in memory, and
    /// nobody outside can aim collisions at another account.
    hasher: RandomState,
    windows: WindowLimiter<u64>,
}

impl AccountRateLimiter {
    pub fn new(per_min: u32) -> Self {
        Self {
            hasher: RandomState::new(),
            windows: WindowLimiter::new(per_min),
        }
    }

    /// `Ok` when another attempt for this email may run now, else the whole seconds
    /// (≥ 1) until its window ends. Unknown emails are limited alike.
    pub fn check(&self, email: &str, now: Timestamp) -> Result<(), u64> {
        let key = match Email::parse(email) {
            Ok(e) => self.hasher.hash_one(e.as_str()),
            Err(_) => self.hasher.hash_one(email.trim().to_lowercase()),
        };
        self.windows.take(key, now).inspect_err(|_| {
            metrics::counter!("stablepay_rate_limited_total", "limiter" => "sign_in_account")
                .increment(1);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: i64) -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000 + s).expect("time")
    }

    #[test]
    fn an_account_gets_its_budget_per_minute_whatever_the_spelling_of_its_email() {
        let limiter = AccountRateLimiter::new(3);
        assert!(limiter.check("ops@a.example", at(0)).is_ok());
        assert!(limiter.check(" OPS@a.example", at(1)).is_ok());
        assert!(limiter.check("Ops@A.example", at(2)).is_ok());
        assert_eq!(limiter.check("ops@a.example", at(20)), Err(40));
        assert!(
            limiter.check("dev@a.example", at(20)).is_ok(),
            "accounts apart"
        );
        assert!(
            limiter.check("ops@a.example", at(60)).is_ok(),
            "a new window"
        );
    }
}
