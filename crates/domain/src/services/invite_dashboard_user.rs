//! `stablepay-api users create`: a dashboard account for a merchant, reachable through a
//! one-time setup link (there is no public signup, D5/D21).

use crate::model::{
    AuditAction, Changer, DashboardUser, DashboardUserId, Email, MerchantId, UserStatus,
};
use crate::ports::{Clock, DashboardUserStore, NewDashboardUser, StoreError, UserCreated};
use crate::rules::audit;
use crate::rules::dashboard_auth::{new_token, token_hash, SessionPolicy};

#[derive(Debug, thiserror::Error)]
pub enum InviteError {
    #[error("an account with this email already exists")]
    EmailTaken,
    #[error("no such merchant")]
    NoSuchMerchant,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The account and the token of its setup link (`/dashboard/setup/<token>`).
#[derive(Debug, Clone)]
pub struct Invitation {
    pub user: DashboardUser,
    pub setup_token: String,
}

pub async fn invite_dashboard_user(
    merchant: MerchantId,
    email: Email,
    policy: &SessionPolicy,
    users: &dyn DashboardUserStore,
    clock: &dyn Clock,
) -> Result<Invitation, InviteError> {
    let now = clock.now();
    let token = new_token();
    let user = DashboardUser {
        id: DashboardUserId::generate_at(now),
        merchant_id: merchant,
        email,
        status: UserStatus::Invited,
        totp_enabled: false,
        created_at: now,
    };
    let new = NewDashboardUser {
        user: user.clone(),
        setup_sha256: token_hash(&token),
        setup_expires_at: now.plus_seconds(policy.setup_link_secs),
    };
    let entry = audit::user_changed(
        &Changer::OPERATOR,
        merchant,
        user.id,
        AuditAction::UserInvited,
        now,
    );
    match users.create_user(&new, &entry).await? {
        UserCreated::Created => Ok(Invitation {
            user,
            setup_token: token,
        }),
        UserCreated::EmailTaken => Err(InviteError::EmailTaken),
        UserCreated::NoSuchMerchant => Err(InviteError::NoSuchMerchant),
    }
}
