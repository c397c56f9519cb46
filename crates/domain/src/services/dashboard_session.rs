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

#[cfg(test)]
mod tests {
    use futures_executor::block_on;

    use super::*;
    use crate::model::{
        DashboardUser, DashboardUserId, Email, FeeTier, MerchantId, Timestamp, UserStatus,
    };
    use crate::ports::{MockClock, MockDashboardUserStore};

    fn at(s: i64) -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000 + s).expect("time")
    }

    fn session(created: i64, seen: i64) -> DashboardSession {
        DashboardSession {
            session_id: uuid::Uuid::now_v7(),
            user: DashboardUser {
                id: DashboardUserId::generate(),
                merchant_id: MerchantId::generate(),
                email: Email::parse("ops@m.example").expect("email"),
                status: UserStatus::Active,
                totp_enabled: false,
                created_at: at(0),
            },
            merchant_name: "M".into(),
            fee_tier: FeeTier::Standard,
            underpayment_tolerance: crate::model::UnderpaymentTolerance::NONE,
            created_at: at(created),
            last_seen_at: at(seen),
        }
    }

    fn resume(
        s: DashboardSession,
        now: i64,
        users: &mut MockDashboardUserStore,
    ) -> Option<DashboardSession> {
        users.expect_session().return_once(move |_| Ok(Some(s)));
        let mut clock = MockClock::new();
        clock.expect_now().return_const(at(now));
        block_on(resume_dashboard_session(
            "token",
            &SessionPolicy::default(),
            users,
            &clock,
        ))
        .expect("resumed")
    }

    #[test]
    fn an_idle_session_is_ended_and_refused() {
        let mut users = MockDashboardUserStore::new();
        users.expect_end_session().times(1).returning(|_, _| Ok(()));
        assert!(resume(session(0, 0), 30 * 60, &mut users).is_none());
    }

    #[test]
    fn a_session_older_than_its_lifetime_is_refused_however_busy() {
        let mut users = MockDashboardUserStore::new();
        users.expect_end_session().times(1).returning(|_, _| Ok(()));
        assert!(resume(session(0, 12 * 3600 - 5), 12 * 3600, &mut users).is_none());
    }

    #[test]
    fn a_live_session_is_touched_at_most_once_a_minute() {
        let mut users = MockDashboardUserStore::new();
        users.expect_touch_session().times(0);
        assert!(resume(session(0, 100), 130, &mut users).is_some());
        let mut users = MockDashboardUserStore::new();
        users
            .expect_touch_session()
            .withf(|_, now| *now == at(200))
            .times(1)
            .returning(|_, _| Ok(()));
        assert!(resume(session(0, 100), 200, &mut users).is_some());
    }
}
