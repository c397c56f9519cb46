//! The password-check port's adapter: argon2id off the request threads, a few at a time.
//!
//! A check costs tens of milliseconds of CPU and ~19 MiB. On an actix worker thread it
//! would stall every other request that thread serves (API calls included), so it runs on
//! the blocking pool behind a process-wide semaphore: a flood of sign-ins queues here and
//! leaves the other cores to everything else.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use secrecy::{ExposeSecret, SecretString};
use stablepay_domain::ports::PasswordChecker;
use stablepay_domain::rules::dashboard_auth::verify_password;
use tokio::sync::Semaphore;

pub struct ArgonPasswords {
    permits: Arc<Semaphore>,
    /// Checks against an account's own hash (not the dummy), for tests and metrics.
    account_checks: AtomicU64,
}

impl ArgonPasswords {
    /// At most `concurrency` checks run at once (at least one).
    pub fn new(concurrency: usize) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(concurrency.max(1))),
            account_checks: AtomicU64::new(0),
        }
    }

    /// Half the machine's cores (at least one): sign-ins never take every core.
    pub fn for_this_machine() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::new(cores / 2)
    }

    /// How many checks ran against an account's own hash since start.
    pub fn account_checks(&self) -> u64 {
        self.account_checks.load(Ordering::Relaxed)
    }
}

#[async_trait]
impl PasswordChecker for ArgonPasswords {
    async fn matches(&self, stored: Option<String>, candidate: SecretString) -> bool {
        // The semaphore is never closed, so acquiring only waits.
        let Ok(_permit) = self.permits.acquire().await else {
            return false;
        };
        let against = if stored.is_some() {
            self.account_checks.fetch_add(1, Ordering::Relaxed);
            "account"
        } else {
            "dummy"
        };
        metrics::counter!("stablepay_dashboard_password_checks_total", "hash" => against)
            .increment(1);
        actix_web::rt::task::spawn_blocking(move || {
            verify_password(stored.as_deref(), candidate.expose_secret())
        })
        .await
        .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stablepay_domain::rules::dashboard_auth::hash_password;
    use stablepay_domain::NewPassword;

    #[actix_web::test]
    async fn checks_run_off_the_thread_and_are_counted_against_accounts_only() {
        let hash = hash_password(&NewPassword::parse("correct horse battery").unwrap()).unwrap();
        let p = ArgonPasswords::new(1);
        let secret = |s: &str| SecretString::from(s.to_owned());
        assert!(
            p.matches(Some(hash.clone()), secret("correct horse battery"))
                .await
        );
        assert!(!p.matches(Some(hash), secret("correct horse batterY")).await);
        assert!(!p.matches(None, secret("correct horse battery")).await);
        assert_eq!(p.account_checks(), 2);
    }
}
