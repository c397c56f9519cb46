//! Dashboard sign-in rules (D21): opaque session tokens stored only as SHA-256, CSRF
//! tokens derived from the session token, argon2id passwords, lockout after repeated
//! failures, idle and absolute session lifetimes.

use argon2::password_hash::{rand_core::OsRng, PasswordHash, PasswordHasher, SaltString};
use argon2::{Argon2, PasswordVerifier};
use rand::RngCore;
use sha2::{Digest, Sha256};

use crate::model::{NewPassword, Timestamp};

/// 32 random bytes, hex: the cookie value and the setup-link token.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// What the store keeps of a token.
pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// The CSRF token of a session: derived from the session token, so it needs no storage
/// and dies with the session; a page without the cookie cannot compute it.
pub fn csrf_token(session_token: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"stablepay dashboard csrf\0");
    h.update(session_token.as_bytes());
    hex::encode(h.finalize())
}

/// Constant-time comparison of a submitted CSRF token with the expected one.
pub fn csrf_matches(session_token: &str, submitted: &str) -> bool {
    let expected = csrf_token(session_token);
    let (a, b) = (expected.as_bytes(), submitted.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// An argon2id PHC string (the crate's defaults: m = 19 MiB, t = 2, p = 1, per OWASP).
pub fn hash_password(password: &NewPassword) -> Result<String, String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.expose().as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| format!("argon2: {e}"))
}

/// A fixed hash verified against when the account does not exist, so a login takes as
/// long for an unknown email as for a wrong password.
const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c3RhYmxlcGF5ZHVtbXk$5d3N2l9Wwq0o9b8m1Gm0zQ3l3Vf5o0iVxJ0r8bWm9dE";

pub fn verify_password(stored: Option<&str>, candidate: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(stored.unwrap_or(DUMMY_HASH)) else {
        return false;
    };
    Argon2::default()
        .verify_password(candidate.as_bytes(), &parsed)
        .is_ok()
        && stored.is_some()
}

/// How long sessions and setup links live, and when an account locks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionPolicy {
    /// A session unused for this long is over.
    pub idle_secs: i64,
    /// A session is over this long after sign-in, however busy.
    pub absolute_secs: i64,
    /// Failed sign-ins in a row that lock the account.
    pub max_failures: u32,
    /// How long a locked account stays locked.
    pub lock_secs: i64,
    /// How long a setup link works.
    pub setup_link_secs: i64,
}

impl Default for SessionPolicy {
    fn default() -> Self {
        Self {
            idle_secs: 30 * 60,
            absolute_secs: 12 * 3600,
            max_failures: 5,
            lock_secs: 15 * 60,
            setup_link_secs: 72 * 3600,
        }
    }
}

/// What to do with a session read back from its cookie.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionCheck {
    /// Valid; `touch` when `last_seen_at` is old enough to be worth a write.
    Valid {
        touch: bool,
    },
    Expired,
}

/// `last_seen_at` is rewritten at most once a minute per session.
const TOUCH_AFTER_SECS: i64 = 60;

pub fn check_session(
    policy: &SessionPolicy,
    created_at: Timestamp,
    last_seen_at: Timestamp,
    now: Timestamp,
) -> SessionCheck {
    let idle = now.unix_seconds() - last_seen_at.unix_seconds();
    let age = now.unix_seconds() - created_at.unix_seconds();
    if idle >= policy.idle_secs || age >= policy.absolute_secs {
        SessionCheck::Expired
    } else {
        SessionCheck::Valid {
            touch: idle >= TOUCH_AFTER_SECS,
        }
    }
}

/// Whether the `failures`-th failed sign-in in a row locks the account: every
/// `max_failures`-th does (after a lock ends, the next lock takes as many failures again;
/// a success resets the count). The store's reservation (`reserve_login_attempt`) asks
/// this, inside its transaction; nothing else restates it.
pub fn locks_after(policy: &SessionPolicy, failures: u32) -> bool {
    failures > 0 && failures.is_multiple_of(policy.max_failures.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: i64) -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000 + s).expect("time")
    }

    #[test]
    fn passwords_round_trip_and_wrong_ones_fail() {
        let p = NewPassword::parse("correct horse battery").expect("valid");
        let h = hash_password(&p).expect("hash");
        assert!(h.starts_with("$argon2id$v=19$"), "{h}");
        assert!(verify_password(Some(&h), "correct horse battery"));
        assert!(!verify_password(Some(&h), "correct horse batterY"));
        assert!(!verify_password(None, "correct horse battery"));
        assert!(!verify_password(Some("not a phc string"), "x"));
        assert_ne!(h, hash_password(&p).expect("hash"), "fresh salt each time");
        assert!(
            PasswordHash::new(DUMMY_HASH).is_ok(),
            "unknown emails must cost a real verification"
        );
    }

    #[test]
    fn csrf_tokens_are_bound_to_the_session() {
        let a = new_token();
        let b = new_token();
        assert_eq!(a.len(), 64);
        assert!(csrf_matches(&a, &csrf_token(&a)));
        assert!(!csrf_matches(&a, &csrf_token(&b)));
        assert!(!csrf_matches(&a, ""));
        assert_ne!(token_hash(&a), token_hash(&b));
    }

    #[test]
    fn sessions_end_when_idle_or_too_old() {
        let p = SessionPolicy {
            idle_secs: 600,
            absolute_secs: 3600,
            ..SessionPolicy::default()
        };
        assert_eq!(
            check_session(&p, at(0), at(0), at(30)),
            SessionCheck::Valid { touch: false }
        );
        assert_eq!(
            check_session(&p, at(0), at(0), at(120)),
            SessionCheck::Valid { touch: true }
        );
        assert_eq!(
            check_session(&p, at(0), at(0), at(600)),
            SessionCheck::Expired
        );
        assert_eq!(
            check_session(&p, at(0), at(3500), at(3600)),
            SessionCheck::Expired,
            "absolute lifetime wins over activity"
        );
    }

    #[test]
    fn the_fifth_failure_locks() {
        let p = SessionPolicy::default();
        assert!(!locks_after(&p, 0));
        assert!(!locks_after(&p, 4));
        assert!(locks_after(&p, 5));
        assert!(!locks_after(&p, 6), "a lock that ended starts over");
        assert!(locks_after(&p, 10));
    }
}
