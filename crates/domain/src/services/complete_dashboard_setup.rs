//! The setup link: the invited user chooses a password; the link then stops working.

use crate::model::{DashboardUser, NewPassword};
use crate::ports::{Clock, DashboardUserStore, StoreError};
use crate::rules::dashboard_auth::{hash_password, token_hash};

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("this setup link is invalid, used or expired; ask your operator for a new one")]
    InvalidLink,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The account a setup link belongs to, while the link is usable.
pub async fn setup_link_user(
    token: &str,
    users: &dyn DashboardUserStore,
    clock: &dyn Clock,
) -> Result<DashboardUser, SetupError> {
    match users.pending_setup(token_hash(token)).await? {
        Some(p) if p.expires_at > clock.now() => Ok(p.user),
        _ => Err(SetupError::InvalidLink),
    }
}

pub async fn complete_dashboard_setup(
    token: &str,
    password: &NewPassword,
    users: &dyn DashboardUserStore,
    clock: &dyn Clock,
) -> Result<DashboardUser, SetupError> {
    let user = setup_link_user(token, users, clock).await?;
    let hash = hash_password(password).map_err(StoreError::Internal)?;
    if users
        .complete_setup(user.id, token_hash(token), &hash)
        .await?
    {
        Ok(user)
    } else {
        Err(SetupError::InvalidLink)
    }
}
