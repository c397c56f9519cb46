//! The optional second factor: enrolled once a code from the new secret proves the
//! authenticator app has it; removed with a current code.

use crate::ports::{Clock, DashboardUserStore, StoreError};
use crate::rules::totp;

#[derive(Debug, thiserror::Error)]
pub enum TotpError {
    #[error("that code does not match; check the time on your device and try again")]
    WrongCode,
    /// A second factor is already on: it must be turned off (with a current code) first,
    /// so a stolen session cannot swap in its own secret.
    #[error("two-factor sign-in is already on; turn it off with a current code first")]
    AlreadyEnrolled,
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub async fn enroll_totp(
    user: &crate::model::DashboardUser,
    secret: Vec<u8>,
    code: &str,
    users: &dyn DashboardUserStore,
    clock: &dyn Clock,
) -> Result<(), TotpError> {
    let enrolled = users
        .login_record(&user.email)
        .await?
        .is_some_and(|r| r.totp_secret.is_some());
    if enrolled {
        return Err(TotpError::AlreadyEnrolled);
    }
    if secret.len() < 16 || !totp::verify(&secret, code, clock.now().unix_seconds()) {
        return Err(TotpError::WrongCode);
    }
    users.set_totp(user.id, Some(secret)).await?;
    Ok(())
}

/// Turns the second factor off; a current code is required, so a hijacked session alone
/// cannot remove it.
pub async fn remove_totp(
    user: &crate::model::DashboardUser,
    code: &str,
    users: &dyn DashboardUserStore,
    clock: &dyn Clock,
) -> Result<(), TotpError> {
    let record = users
        .login_record(&user.email)
        .await?
        .ok_or(StoreError::NotFound)?;
    match record.totp_secret {
        None => Ok(()),
        Some(secret) if totp::verify(&secret, code, clock.now().unix_seconds()) => {
            users.set_totp(user.id, None).await?;
            Ok(())
        }
        Some(_) => Err(TotpError::WrongCode),
    }
}
