//! The optional second factor: enrolled once the current password and a code from the new
//! secret prove who asks and that the authenticator app has it; removed with a current
//! code, whose time step is then used up. Wrong passwords and codes here count toward the
//! account's lockout like sign-in's, so a stolen session cannot guess its way through.

use secrecy::SecretString;

use std::net::IpAddr;

use crate::model::{AuditAction, Changer, DashboardUser, DashboardUserId};
use crate::ports::{Clock, DashboardUserStore, LoginAttempt, PasswordChecker, StoreError};
use crate::rules::audit;
use crate::rules::dashboard_auth::{locks_after, SessionPolicy};
use crate::rules::totp;

#[derive(Debug, thiserror::Error)]
pub enum TotpError {
    #[error("that code does not match; check the time on your device and try again")]
    WrongCode,
    #[error("that code was already used; wait for the next one")]
    CodeUsed,
    /// Enrolling needs the current password: a stolen session alone must not be able to
    /// enrol the attacker's secret.
    #[error("enter your current password to turn on two-factor sign-in")]
    WrongPassword,
    #[error("too many wrong attempts: this account is locked for a while; try again later")]
    Locked,
    /// A second factor is already on: it must be turned off (with a current code) first,
    /// so a stolen session cannot swap in its own secret.
    #[error("two-factor sign-in is already on; turn it off with a current code first")]
    AlreadyEnrolled,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What changing the second factor reaches.
pub struct TotpDeps<'a> {
    pub policy: &'a SessionPolicy,
    pub users: &'a dyn DashboardUserStore,
    pub passwords: &'a dyn PasswordChecker,
    pub clock: &'a dyn Clock,
}

pub async fn enroll_totp(
    user: &DashboardUser,
    secret: Vec<u8>,
    code: &str,
    password: &SecretString,
    client_address: Option<IpAddr>,
    deps: &TotpDeps<'_>,
) -> Result<(), TotpError> {
    let record = deps
        .users
        .login_record(&user.email)
        .await?
        .ok_or(StoreError::NotFound)?;
    if record.totp_secret.is_some() {
        return Err(TotpError::AlreadyEnrolled);
    }
    let now = deps.clock.now().unix_seconds();
    let step = match totp::matching_step(&secret, code, now) {
        Some(step) if secret.len() >= 16 => step,
        _ => return Err(TotpError::WrongCode),
    };
    let hash = record.password_hash.clone();
    let candidate = password.clone();
    let passed = guarded(user.id, deps, async {
        deps.passwords.matches(hash, candidate).await
    })
    .await?;
    if !passed {
        return Err(TotpError::WrongPassword);
    }
    let entry = changed(user, AuditAction::UserTotpEnabled, client_address, deps);
    deps.users.set_totp(user.id, Some(secret), &entry).await?;
    // The code that proved the app has the secret cannot sign in afterwards.
    deps.users.use_totp_step(user.id, step).await?;
    Ok(())
}

/// Turns the second factor off; a current code is required (a hijacked session alone
/// cannot remove it), and its step is used up, so a code seen over a shoulder while
/// turning it off cannot sign in afterwards.
pub async fn remove_totp(
    user: &DashboardUser,
    code: &str,
    client_address: Option<IpAddr>,
    deps: &TotpDeps<'_>,
) -> Result<(), TotpError> {
    let record = deps
        .users
        .login_record(&user.email)
        .await?
        .ok_or(StoreError::NotFound)?;
    let Some(secret) = record.totp_secret else {
        return Ok(());
    };
    let now = deps.clock.now().unix_seconds();
    let step = totp::matching_step(&secret, code, now);
    let passed = guarded(user.id, deps, async { step.is_some() }).await?;
    let Some(step) = step.filter(|_| passed) else {
        return Err(TotpError::WrongCode);
    };
    // Claimed atomically: a step used already (by a sign-in, or a racing removal) fails.
    if !deps.users.use_totp_step(user.id, step).await? {
        return Err(TotpError::CodeUsed);
    }
    let entry = changed(user, AuditAction::UserTotpRemoved, client_address, deps);
    deps.users.set_totp(user.id, None, &entry).await?;
    Ok(())
}

/// The audit entry of a change the user makes to their own account.
fn changed(
    user: &DashboardUser,
    action: AuditAction,
    client_address: Option<IpAddr>,
    deps: &TotpDeps<'_>,
) -> crate::model::AuditEvent {
    let by = Changer::new(crate::model::Actor::DashboardUser(user.id), client_address);
    audit::user_changed(&by, user.merchant_id, user.id, action, deps.clock.now())
}

/// Runs `check` only after reserving an attempt of the account (as sign-in does); a check
/// that passes gives its attempt back, one that fails stays counted toward the lock.
async fn guarded(
    id: DashboardUserId,
    deps: &TotpDeps<'_>,
    check: impl std::future::Future<Output = bool>,
) -> Result<bool, TotpError> {
    let now = deps.clock.now();
    let lock_until = now.plus_seconds(deps.policy.lock_secs);
    let failures = match deps
        .users
        .reserve_login_attempt(id, now, deps.policy, lock_until)
        .await?
    {
        LoginAttempt::Locked => return Err(TotpError::Locked),
        LoginAttempt::Reserved { failures } => failures,
    };
    let passed = check.await;
    if passed {
        let its_lock = locks_after(deps.policy, failures).then_some(lock_until);
        deps.users.release_login_attempt(id, its_lock).await?;
    }
    Ok(passed)
}

#[cfg(test)]
mod tests;
