//! The setup link: the invited user chooses a password; the link then stops working.

use crate::model::{Actor, AuditAction, Changer, DashboardUser, NewPassword};
use crate::ports::{Clock, DashboardUserStore, StoreError};
use crate::rules::audit;
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
    client_address: Option<std::net::IpAddr>,
    users: &dyn DashboardUserStore,
    clock: &dyn Clock,
) -> Result<DashboardUser, SetupError> {
    let user = setup_link_user(token, users, clock).await?;
    let hash = hash_password(password).map_err(StoreError::Internal)?;
    let by = Changer::new(Actor::DashboardUser(user.id), client_address);
    let entry = audit::user_changed(
        &by,
        user.merchant_id,
        user.id,
        AuditAction::UserPasswordSet,
        clock.now(),
    );
    if users
        .complete_setup(user.id, token_hash(token), &hash, &entry)
        .await?
    {
        Ok(user)
    } else {
        Err(SetupError::InvalidLink)
    }
}
