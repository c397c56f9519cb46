//! The password-check port's adapter: argon2id off the request threads, a few at a time.
//!
//! A check costs tens of milliseconds of CPU and ~19 MiB. On an actix worker thread it
//! would stall every other request that thread serves (API calls included), so it runs on
//! the blocking pool behind semaphores sized from the cores: a flood of sign-ins queues
//! here and leaves the other cores to everything else.
//!
//! There are two pools, one for checks against an account's own hash and one for checks
//! against the dummy hash (unknown emails, locked accounts). Both run the same argon2id,
//! so the work and the answer never tell whether an email has an account. What an
//! anonymous flood can send, any number of made-up emails or guesses at a locked
//! account, only ever waits in the dummy pool. Checks against an account's own hash are
//! bounded by the lockout (at most `max_failures` per account per lock window), so
//! filling their pool takes knowing many accounts, and a real sign-in does not queue
//! behind the flood. The price: while the dummy pool has a queue, an unknown email
//! answers later than a known one.

use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use secrecy::{ExposeSecret, SecretString};
use stablepay_domain::ports::PasswordChecker;
use stablepay_domain::rules::dashboard_auth::verify_password;
use tokio::sync::Semaphore;

pub struct ArgonPasswords {
    /// Checks against an account's own hash.
    accounts: Semaphore,
    /// Checks against the dummy hash.
    dummy: Semaphore,
    /// Checks against an account's own hash (not the dummy), for tests and metrics.
    account_checks: AtomicU64,
}

impl ArgonPasswords {
    /// At most `concurrency` checks at once: the dummy hash gets the smaller half, accounts
    /// the rest, and each pool at least one (so a single core runs up to two).
    pub fn new(concurrency: usize) -> Self {
        let dummy = concurrency / 2;
        Self {
            accounts: Semaphore::new((concurrency - dummy).max(1)),
            dummy: Semaphore::new(dummy.max(1)),
            account_checks: AtomicU64::new(0),
        }
    }

    /// As many checks as cores: a flood of unknown emails takes at most half of them (at
    /// least one), and sign-ins of real accounts run on the rest meanwhile.
    pub fn for_this_machine() -> Self {
        Self::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// How many checks ran against an account's own hash since start.
    pub fn account_checks(&self) -> u64 {
        self.account_checks.load(Ordering::Relaxed)
    }
}

#[async_trait]
impl PasswordChecker for ArgonPasswords {
    async fn matches(&self, stored: Option<String>, candidate: SecretString) -> bool {
        let (pool, against) = match stored {
            Some(_) => (&self.accounts, "account"),
            None => (&self.dummy, "dummy"),
        };
        // The semaphores are never closed, so acquiring only waits.
        let Ok(_permit) = pool.acquire().await else {
            return false;
        };
        if stored.is_some() {
            self.account_checks.fetch_add(1, Ordering::Relaxed);
        }
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
    use std::time::Duration;

    use futures_util::FutureExt;
    use stablepay_domain::rules::dashboard_auth::hash_password;
    use stablepay_domain::NewPassword;

    use super::*;

    const PASSWORD: &str = "correct horse battery";

    fn secret(s: &str) -> SecretString {
        SecretString::from(s.to_owned())
    }

    fn hash() -> String {
        hash_password(&NewPassword::parse(PASSWORD).unwrap()).unwrap()
    }

    #[actix_web::test]
    async fn checks_run_off_the_thread_and_are_counted_against_accounts_only() {
        let hash = hash();
        let p = ArgonPasswords::new(1);
        assert!(p.matches(Some(hash.clone()), secret(PASSWORD)).await);
        assert!(!p.matches(Some(hash), secret("correct horse batterY")).await);
        assert!(!p.matches(None, secret(PASSWORD)).await);
        assert_eq!(p.account_checks(), 2);
    }

    #[test]
    fn the_pools_share_the_cores_and_the_dummy_hash_never_gets_the_larger_half() {
        for (cores, accounts, dummy) in [(1, 1, 1), (2, 1, 1), (3, 2, 1), (8, 4, 4)] {
            let p = ArgonPasswords::new(cores);
            assert_eq!(
                (p.accounts.available_permits(), p.dummy.available_permits()),
                (accounts, dummy),
                "{cores} cores"
            );
        }
    }

    /// Issue 42 item 8: with one pool, a flood of unknown emails held every permit and a
    /// real sign-in waited behind all of it.
    #[actix_web::test]
    async fn a_flood_of_unknown_emails_leaves_known_accounts_their_own_permits() {
        let hash = hash();
        let p = ArgonPasswords::new(2);
        // Every permit an unknown email's check may take is held, as during a flood.
        let all = u32::try_from(p.dummy.available_permits()).unwrap();
        let flood = p.dummy.acquire_many(all).await.unwrap();
        assert!(
            p.matches(None, secret(PASSWORD)).now_or_never().is_none(),
            "an unknown email waits for the flood"
        );
        // The deadline only bounds a failure: a passing run does not wait for it.
        let known = actix_web::rt::time::timeout(
            Duration::from_secs(60),
            p.matches(Some(hash), secret(PASSWORD)),
        )
        .await;
        assert_eq!(
            known,
            Ok(true),
            "a known account's check ran while the flood held its pool"
        );
        drop(flood);
        assert!(!p.matches(None, secret(PASSWORD)).await);
        assert_eq!(p.account_checks(), 1);
    }
}
