//! A dashboard request's session: read back from its cookie, expired when idle or too
//! old, ended by sign-out (one device or everywhere).

use crate::model::DashboardSession;
use crate::ports::{Clock, DashboardUserStore, StoreError};
use crate::rules::dashboard_auth::{check_session, token_hash, SessionCheck, SessionPolicy};

/// The live session behind a cookie value, or `None` (unknown, revoked, expired, or the
/// account disabled). An expired session is ended so it can never come back.
pub async fn resume_dashboard_session(
    token: &str,
    policy: &SessionPolicy,
    users: &dyn DashboardUserStore,
    clock: &dyn Clock,
) -> Result<Option<DashboardSession>, StoreError> {
    let Some(session) = users.session(token_hash(token)).await? else {
        return Ok(None);
    };
    let now = clock.now();
    match check_session(policy, session.created_at, session.last_seen_at, now) {
        SessionCheck::Expired => {
            users.end_session(session.session_id, now).await?;
            Ok(None)
        }
        SessionCheck::Valid { touch } => {
            if touch {
                users.touch_session(session.session_id, now).await?;
            }
            Ok(Some(session))
        }
    }
}

/// Ends this session, or every session of the account when `everywhere`.
pub async fn sign_out(
    session: &DashboardSession,
    everywhere: bool,
    users: &dyn DashboardUserStore,
    clock: &dyn Clock,
) -> Result<(), StoreError> {
    let now = clock.now();
    if everywhere {
        users
            .end_all_sessions(session.user.id, now)
            .await
            .map(|_| ())
    } else {
        users.end_session(session.session_id, now).await
    }
}
