//! Dashboard sign-in (D21): argon2id password check, optional TOTP, lockout after
//! repeated failures, and a fresh server-side session on success. The answer never says
//! whether an email has an account.
//!
//! The attempt is reserved (counted as a failure in advance, in one conditional statement)
//! before the password or code is checked, so however many guesses arrive at once, at most
//! `max_failures` of them are ever evaluated per lock window.

use secrecy::SecretString;

use crate::model::{DashboardUser, Email};
use crate::ports::{Clock, DashboardUserStore, LoginAttempt, PasswordChecker, StoreError};
use crate::rules::dashboard_auth::{locks_after, new_token, token_hash, SessionPolicy};
use crate::rules::totp;

#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    #[error("wrong email or password")]
    InvalidCredentials,
    /// The account has a second factor and the code was missing or wrong.
    #[error("enter the current code from your authenticator app")]
    TotpRequired,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A new session: `token` goes into the cookie and nowhere else.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub user: DashboardUser,
    pub token: String,
}

/// What sign-in reaches.
pub struct SignInDeps<'a> {
    pub policy: &'a SessionPolicy,
    pub users: &'a dyn DashboardUserStore,
    pub passwords: &'a dyn PasswordChecker,
    pub clock: &'a dyn Clock,
}

pub async fn sign_in(
    email: &str,
    password: &SecretString,
    totp_code: Option<&str>,
    deps: &SignInDeps<'_>,
) -> Result<SignedIn, SignInError> {
    let (policy, users) = (deps.policy, deps.users);
    let now = deps.clock.now();
    let record = match Email::parse(email) {
        Ok(email) => users.login_record(&email).await?,
        Err(_) => None,
    };
    // Unknown and locked accounts cost a check against the dummy hash, so neither
    // timing nor answer tells anyone that the email has an account.
    let refuse = || async {
        deps.passwords.matches(None, password.clone()).await;
        Err(SignInError::InvalidCredentials)
    };
    let Some(record) = record else {
        return refuse().await;
    };
    let id = record.user.id;
    let lock_until = now.plus_seconds(policy.lock_secs);
    let failures = match users
        .reserve_login_attempt(id, now, policy, lock_until)
        .await?
    {
        LoginAttempt::Locked => return refuse().await,
        LoginAttempt::Reserved { failures } => failures,
    };
    let password_ok = deps
        .passwords
        .matches(record.password_hash.clone(), password.clone())
        .await;
    let usable = record.user.status == crate::model::UserStatus::Active;
    // A code is single-use: its step must be later than the last one accepted.
    let step = match (&record.totp_secret, totp_code) {
        (Some(secret), Some(code)) => totp::matching_step(secret, code, now.unix_seconds())
            .filter(|s| record.totp_last_step.is_none_or(|last| *s > last)),
        _ => None,
    };
    let second_factor_ok = record.totp_secret.is_none() || step.is_some();
    // The right password without a code is a prompt for the code, not a failure: the
    // reserved attempt is given back.
    if password_ok && usable && record.totp_secret.is_some() && totp_code.is_none() {
        let its_lock = locks_after(policy, failures).then_some(lock_until);
        users.release_login_attempt(id, its_lock).await?;
        return Err(SignInError::TotpRequired);
    }
    // A failure was counted when the attempt was reserved.
    if !(password_ok && usable && second_factor_ok) {
        return Err(if password_ok && usable {
            SignInError::TotpRequired
        } else {
            SignInError::InvalidCredentials
        });
    }
    if let Some(step) = step {
        // Claimed atomically, so two sign-ins racing with one code cannot both pass.
        if !users.use_totp_step(id, step).await? {
            return Err(SignInError::TotpRequired);
        }
    }
    let token = new_token();
    users.open_session(id, token_hash(&token), now).await?;
    Ok(SignedIn {
        user: record.user,
        token,
    })
}

#[cfg(test)]
mod tests;
