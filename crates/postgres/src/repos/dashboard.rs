//! Dashboard accounts and sessions (D21); tokens arrive and are stored only as SHA-256.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{
    DashboardUserStore, LoginAttempt, NewDashboardUser, PendingSetup, StoreError, UserCreated,
};
use stablepay_domain::{
    AuditAction, AuditEvent, Changer, DashboardSession, DashboardUser, DashboardUserId, Email,
    LoginRecord, MerchantId, Timestamp, UserStatus,
};
use uuid::Uuid;

use stablepay_domain::rules::dashboard_auth::{locks_after, SessionPolicy};

use crate::cipher::totp_aad;

use crate::error::{corrupt, map_diesel_error};
use crate::repos::audit::record as record_audit;
use crate::repos::fee_tier;
use crate::schema::{dashboard_sessions as ds, dashboard_users as du, merchants as m};
use crate::PgStore;

#[derive(Queryable, Selectable)]
#[diesel(table_name = du)]
struct UserRow {
    id: Uuid,
    merchant_id: Uuid,
    email: String,
    password_hash: Option<String>,
    totp_secret: Option<Vec<u8>>,
    disabled_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
}

impl TryFrom<&UserRow> for DashboardUser {
    type Error = StoreError;

    fn try_from(r: &UserRow) -> Result<Self, StoreError> {
        let status = match (r.disabled_at, &r.password_hash) {
            (Some(_), _) => UserStatus::Disabled,
            (None, None) => UserStatus::Invited,
            (None, Some(_)) => UserStatus::Active,
        };
        Ok(DashboardUser {
            id: DashboardUserId::from_uuid(r.id),
            merchant_id: MerchantId::from_uuid(r.merchant_id),
            email: Email::parse(&r.email).map_err(|_| corrupt("email", &r.email))?,
            status,
            totp_enabled: r.totp_secret.is_some(),
            created_at: Timestamp::new(r.created_at),
        })
    }
}

fn sha(bytes: [u8; 32]) -> Vec<u8> {
    bytes.to_vec()
}

impl PgStore {
    fn open_totp(&self, user: Uuid, sealed: &[u8]) -> Result<Vec<u8>, StoreError> {
        let hex_secret = self
            .cipher
            .decrypt(sealed, &totp_aad(user))
            .map_err(|_| StoreError::Internal("a TOTP secret does not decrypt".into()))?;
        hex::decode(hex_secret).map_err(|_| corrupt("totp_secret", "not hex"))
    }
}

#[async_trait]
impl DashboardUserStore for PgStore {
    async fn create_user(
        &self,
        new: &NewDashboardUser,
        audit: &AuditEvent,
    ) -> Result<UserCreated, StoreError> {
        let mut conn = self.conn().await?;
        let u = &new.user;
        let inserted = conn
            .transaction(async |conn| {
                diesel::insert_into(du::table)
                    .values((
                        du::id.eq(u.id.uuid()),
                        du::merchant_id.eq(u.merchant_id.uuid()),
                        du::email.eq(u.email.as_str()),
                        du::setup_sha256.eq(sha(new.setup_sha256)),
                        du::setup_expires_at.eq(new.setup_expires_at.as_datetime()),
                        du::created_at.eq(u.created_at.as_datetime()),
                    ))
                    .execute(conn)
                    .await?;
                record_audit(conn, audit).await
            })
            .await;
        match inserted {
            Ok(_) => Ok(UserCreated::Created),
            Err(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::UniqueViolation,
                _,
            )) => Ok(UserCreated::EmailTaken),
            Err(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::ForeignKeyViolation,
                _,
            )) => Ok(UserCreated::NoSuchMerchant),
            Err(e) => Err(map_diesel_error(e)),
        }
    }

    async fn users(&self, merchant: Option<MerchantId>) -> Result<Vec<DashboardUser>, StoreError> {
        let mut conn = self.conn().await?;
        let mut q = du::table
            .select(UserRow::as_select())
            .order(du::id.asc())
            .into_boxed();
        if let Some(mid) = merchant {
            q = q.filter(du::merchant_id.eq(mid.uuid()));
        }
        let rows: Vec<UserRow> = q.load(&mut conn).await.map_err(map_diesel_error)?;
        rows.iter().map(DashboardUser::try_from).collect()
    }

    async fn disable_user(
        &self,
        id: DashboardUserId,
        now: Timestamp,
        by: &Changer,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let at = now.as_datetime();
        conn.transaction(async |conn| {
            let merchant: Option<Uuid> = diesel::update(du::table.filter(du::id.eq(id.uuid())))
                .set((
                    du::disabled_at.eq(Some(at)),
                    du::setup_sha256.eq(None::<Vec<u8>>),
                ))
                .returning(du::merchant_id)
                .get_result(conn)
                .await
                .optional()?;
            let Some(merchant) = merchant else {
                return Ok(false);
            };
            let entry = stablepay_domain::rules::audit::user_changed(
                by,
                MerchantId::from_uuid(merchant),
                id,
                AuditAction::UserDisabled,
                now,
            );
            record_audit(conn, &entry).await?;
            diesel::update(
                ds::table
                    .filter(ds::user_id.eq(id.uuid()))
                    .filter(ds::revoked_at.is_null()),
            )
            .set(ds::revoked_at.eq(Some(at)))
            .execute(conn)
            .await?;
            Ok::<_, diesel::result::Error>(true)
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn pending_setup(
        &self,
        setup_sha256: [u8; 32],
    ) -> Result<Option<PendingSetup>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<(UserRow, Option<DateTime<Utc>>)> = du::table
            .filter(du::setup_sha256.eq(sha(setup_sha256)))
            .filter(du::disabled_at.is_null())
            .select((UserRow::as_select(), du::setup_expires_at))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(|(r, expires)| {
            Ok(PendingSetup {
                user: DashboardUser::try_from(&r)?,
                expires_at: Timestamp::new(
                    expires.ok_or_else(|| corrupt("setup_expires_at", "null"))?,
                ),
            })
        })
        .transpose()
    }

    async fn complete_setup(
        &self,
        id: DashboardUserId,
        setup_sha256: [u8; 32],
        password_hash: &str,
        audit: &AuditEvent,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        conn.transaction(async |conn| {
            let n = diesel::update(
                du::table
                    .filter(du::id.eq(id.uuid()))
                    .filter(du::setup_sha256.eq(sha(setup_sha256)))
                    .filter(du::disabled_at.is_null()),
            )
            .set((
                du::password_hash.eq(Some(password_hash)),
                du::setup_sha256.eq(None::<Vec<u8>>),
                du::setup_expires_at.eq(None::<DateTime<Utc>>),
                du::failed_logins.eq(0),
                du::locked_until.eq(None::<DateTime<Utc>>),
            ))
            .execute(conn)
            .await?;
            if n == 1 {
                record_audit(conn, audit).await?;
            }
            Ok::<_, diesel::result::Error>(n == 1)
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn login_record(&self, email: &Email) -> Result<Option<LoginRecord>, StoreError> {
        let mut conn = self.conn().await?;
        #[allow(clippy::type_complexity)]
        let row: Option<(UserRow, i32, Option<DateTime<Utc>>, Option<i64>)> = du::table
            .filter(du::email.eq(email.as_str()))
            .select((
                UserRow::as_select(),
                du::failed_logins,
                du::locked_until,
                du::totp_last_step,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        let Some((r, failures, locked, last_step)) = row else {
            return Ok(None);
        };
        Ok(Some(LoginRecord {
            user: DashboardUser::try_from(&r)?,
            totp_secret: r
                .totp_secret
                .as_deref()
                .map(|s| self.open_totp(r.id, s))
                .transpose()?,
            password_hash: r.password_hash,
            failed_logins: u32::try_from(failures).unwrap_or(0),
            locked_until: locked.map(Timestamp::new),
            totp_last_step: last_step,
        }))
    }

    async fn use_totp_step(&self, id: DashboardUserId, step: i64) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let n = diesel::update(
            du::table
                .filter(du::id.eq(id.uuid()))
                .filter(du::totp_last_step.is_null().or(du::totp_last_step.lt(step))),
        )
        .set(du::totp_last_step.eq(Some(step)))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(n == 1)
    }

    async fn reserve_login_attempt(
        &self,
        id: DashboardUserId,
        now: Timestamp,
        policy: &SessionPolicy,
        lock_until: Timestamp,
    ) -> Result<LoginAttempt, StoreError> {
        let mut conn = self.conn().await?;
        // One transaction: the count's update holds the account's row until commit, so
        // concurrent reservations queue on it and each re-evaluates the WHERE on the row
        // the previous one left (READ COMMITTED): the one after a locking reservation
        // finds the lock and reserves nothing. Whether this failure locks is the domain's
        // rule (`locks_after`), not restated in SQL.
        conn.transaction(async |conn| {
            let failures: Option<i32> = diesel::update(
                du::table.filter(du::id.eq(id.uuid())).filter(
                    du::locked_until
                        .is_null()
                        .or(du::locked_until.le(now.as_datetime())),
                ),
            )
            .set(du::failed_logins.eq(du::failed_logins + 1))
            .returning(du::failed_logins)
            .get_result(conn)
            .await
            .optional()?;
            let Some(failures) = failures else {
                return Ok(LoginAttempt::Locked);
            };
            let failures = u32::try_from(failures).unwrap_or(0);
            if locks_after(policy, failures) {
                diesel::update(du::table.filter(du::id.eq(id.uuid())))
                    .set(du::locked_until.eq(Some(lock_until.as_datetime())))
                    .execute(conn)
                    .await?;
            }
            Ok::<_, diesel::result::Error>(LoginAttempt::Reserved { failures })
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn release_login_attempt(
        &self,
        id: DashboardUserId,
        its_lock: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let target = du::table.filter(du::id.eq(id.uuid()));
        let fewer =
            diesel::dsl::sql::<diesel::sql_types::Integer>("GREATEST(failed_logins - 1, 0)");
        let n = match its_lock {
            // Only the lock this reservation set (a later lock is another window's).
            Some(until) => {
                diesel::update(target)
                    .set((
                        du::failed_logins.eq(fewer),
                        du::locked_until.eq(diesel::dsl::sql::<
                            diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>,
                        >("CASE WHEN locked_until = ")
                        .bind::<diesel::sql_types::Timestamptz, _>(until.as_datetime())
                        .sql(" THEN NULL ELSE locked_until END")),
                    ))
                    .execute(&mut conn)
                    .await
            }
            None => {
                diesel::update(target)
                    .set(du::failed_logins.eq(fewer))
                    .execute(&mut conn)
                    .await
            }
        };
        n.map_err(map_diesel_error)?;
        Ok(())
    }

    async fn open_session(
        &self,
        id: DashboardUserId,
        token_sha256: [u8; 32],
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let at = now.as_datetime();
        conn.transaction(async |conn| {
            diesel::update(du::table.filter(du::id.eq(id.uuid())))
                .set((
                    du::failed_logins.eq(0),
                    du::locked_until.eq(None::<DateTime<Utc>>),
                ))
                .execute(conn)
                .await?;
            diesel::insert_into(ds::table)
                .values((
                    ds::id.eq(Uuid::now_v7()),
                    ds::user_id.eq(id.uuid()),
                    ds::token_sha256.eq(sha(token_sha256)),
                    ds::created_at.eq(at),
                    ds::last_seen_at.eq(at),
                ))
                .execute(conn)
                .await?;
            Ok::<_, diesel::result::Error>(())
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn session(
        &self,
        token_sha256: [u8; 32],
    ) -> Result<Option<DashboardSession>, StoreError> {
        let mut conn = self.conn().await?;
        type Row = (
            Uuid,
            DateTime<Utc>,
            DateTime<Utc>,
            UserRow,
            String,
            String,
            i32,
            i32,
        );
        let row: Option<Row> = ds::table
            .inner_join(du::table.inner_join(m::table))
            .filter(ds::token_sha256.eq(sha(token_sha256)))
            .filter(ds::revoked_at.is_null())
            .filter(du::disabled_at.is_null())
            .select((
                ds::id,
                ds::created_at,
                ds::last_seen_at,
                UserRow::as_select(),
                m::name,
                m::fee_tier,
                m::fee_bps,
                m::underpayment_tolerance_bps,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(|(sid, created, seen, user, name, tier, bps, tolerance)| {
            Ok(DashboardSession {
                session_id: sid,
                user: DashboardUser::try_from(&user)?,
                merchant_name: name,
                fee_tier: fee_tier(&tier, bps)?,
                underpayment_tolerance: crate::repos::merchant_tolerance(tolerance)?,
                created_at: Timestamp::new(created),
                last_seen_at: Timestamp::new(seen),
            })
        })
        .transpose()
    }

    async fn touch_session(&self, session_id: Uuid, now: Timestamp) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::update(ds::table.filter(ds::id.eq(session_id)))
            .set(ds::last_seen_at.eq(now.as_datetime()))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn end_session(&self, session_id: Uuid, now: Timestamp) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::update(
            ds::table
                .filter(ds::id.eq(session_id))
                .filter(ds::revoked_at.is_null()),
        )
        .set(ds::revoked_at.eq(Some(now.as_datetime())))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn end_all_sessions(
        &self,
        id: DashboardUserId,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let mut conn = self.conn().await?;
        let n = diesel::update(
            ds::table
                .filter(ds::user_id.eq(id.uuid()))
                .filter(ds::revoked_at.is_null()),
        )
        .set(ds::revoked_at.eq(Some(now.as_datetime())))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(n as u64)
    }

    async fn set_totp(
        &self,
        id: DashboardUserId,
        secret: Option<Vec<u8>>,
        audit: &AuditEvent,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let sealed = secret.map(|s| self.cipher.encrypt(&hex::encode(s), &totp_aad(id.uuid())));
        conn.transaction(async |conn| {
            diesel::update(du::table.filter(du::id.eq(id.uuid())))
                .set(du::totp_secret.eq(sealed))
                .execute(conn)
                .await?;
            record_audit(conn, audit).await
        })
        .await
        .map_err(map_diesel_error)
    }
}
