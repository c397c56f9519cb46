//! Dashboard sign-in (D21): argon2id password check, optional TOTP, lockout after
//! repeated failures, and a fresh server-side session on success. The answer never says
//! whether an email has an account.

use crate::model::{DashboardUser, Email};
use crate::ports::{Clock, DashboardUserStore, StoreError};
use crate::rules::dashboard_auth::{
    after_failure, new_token, token_hash, verify_password, SessionPolicy,
};
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

pub async fn sign_in(
    email: &str,
    password: &str,
    totp_code: Option<&str>,
    policy: &SessionPolicy,
    users: &dyn DashboardUserStore,
    clock: &dyn Clock,
) -> Result<SignedIn, SignInError> {
    let now = clock.now();
    let record = match Email::parse(email) {
        Ok(email) => users.login_record(&email).await?,
        Err(_) => None,
    };
    let Some(record) = record else {
        // Same cost as a wrong password, so timing does not reveal unknown emails.
        verify_password(None, password);
        return Err(SignInError::InvalidCredentials);
    };
    let password_ok = verify_password(record.password_hash.as_deref(), password);
    // Locked: the same answer as a wrong password (after the same work), so a lock does
    // not tell anyone that the email has an account.
    if record.locked_until.is_some_and(|until| until > now) {
        return Err(SignInError::InvalidCredentials);
    }
    let usable = record.user.status == crate::model::UserStatus::Active;
    // A code is single-use: its step must be later than the last one accepted.
    let step = match (&record.totp_secret, totp_code) {
        (Some(secret), Some(code)) => totp::matching_step(secret, code, now.unix_seconds())
            .filter(|s| record.totp_last_step.is_none_or(|last| *s > last)),
        _ => None,
    };
    let second_factor_ok = record.totp_secret.is_none() || step.is_some();
    // The right password without a code is a prompt for the code, not a failure.
    if password_ok && usable && record.totp_secret.is_some() && totp_code.is_none() {
        return Err(SignInError::TotpRequired);
    }
    if !(password_ok && usable && second_factor_ok) {
        let failures = users.record_login_failure(record.user.id).await?;
        let (_, lock) = after_failure(policy, failures.saturating_sub(1), now);
        if let Some(until) = lock {
            users.lock_user(record.user.id, until).await?;
        }
        return Err(if password_ok && usable {
            SignInError::TotpRequired
        } else {
            SignInError::InvalidCredentials
        });
    }
    if let Some(step) = step {
        // Claimed atomically, so two sign-ins racing with one code cannot both pass.
        if !users.use_totp_step(record.user.id, step).await? {
            return Err(SignInError::TotpRequired);
        }
    }
    let token = new_token();
    users
        .open_session(record.user.id, token_hash(&token), now)
        .await?;
    Ok(SignedIn {
        user: record.user,
        token,
    })
}

#[cfg(test)]
mod tests;
