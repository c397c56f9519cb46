use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Bool, Bytea, Int4, Int8, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::ApiKeyManager;
use stablepay_domain::ports::{
    ApiKeyStore, Authenticated, IdempotencyAsk, IdempotencyLook, LeaseOutcome, RateLease,
    StoreError,
};
use stablepay_domain::{Actor, ApiKeyId, AuthContext, FeeTier, MerchantId, Mode};
use stablepay_domain::{ApiKey, AuditEvent, Timestamp, UnderpaymentTolerance};
use uuid::Uuid;

use crate::diesel_internals::Prepared;
use crate::error::{corrupt, map_diesel_error};
use crate::repos::audit;
use crate::repos::idempotency::{idempotency_look, HeldRow};
use crate::schema::api_keys;
use crate::PgStore;

pub(crate) fn fee_tier(label: &str, bps: i32) -> Result<FeeTier, StoreError> {
    let bps16 = u16::try_from(bps).map_err(|_| corrupt("fee_bps", bps))?;
    FeeTier::from_parts(label, Some(bps16)).map_err(|_| corrupt("fee_tier", label))
}

/// `merchants.underpayment_tolerance_bps` as the domain's type.
pub(crate) fn merchant_tolerance(bps: i32) -> Result<UnderpaymentTolerance, StoreError> {
    u16::try_from(bps)
        .ok()
        .and_then(UnderpaymentTolerance::from_bps)
        .ok_or_else(|| corrupt("underpayment_tolerance_bps", bps))
}

#[derive(QueryableByName)]
struct KeyRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    merchant_id: Uuid,
    #[diesel(sql_type = Bool)]
    livemode: bool,
    #[diesel(sql_type = Nullable<Int4>)]
    rate_limit_per_min: Option<i32>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    last_used_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Text)]
    fee_tier: String,
    #[diesel(sql_type = Int4)]
    fee_bps: i32,
    #[diesel(sql_type = Int4)]
    underpayment_tolerance_bps: i32,
    #[diesel(sql_type = SqlUuid)]
    wallets_version: Uuid,
    #[diesel(sql_type = Nullable<Int4>)]
    granted: Option<i32>,
    #[diesel(sql_type = Nullable<Int8>)]
    retry_after_ms: Option<i64>,
}

/// The key by its hash, with its merchant's terms and wallets version (`$1`: the hash).
macro_rules! auth_sql {
    () => {
        "
SELECT k.id, k.merchant_id, k.livemode, k.rate_limit_per_min, k.last_used_at, m.fee_tier,
       m.fee_bps, m.underpayment_tolerance_bps, m.wallets_version, NULL::INTEGER AS granted, NULL::BIGINT AS retry_after_ms
FROM api_keys k JOIN merchants m ON m.id = k.merchant_id
WHERE k.key_sha256 = $1 AND k.revoked_at IS NULL"
    };
}

/// Authentication and a lease from the key's shared budget, in one statement (`$1`: the
/// hash, `$2`..`$4`: the lease).
macro_rules! auth_and_lease_sql {
    () => {
        "
SELECT k.id, k.merchant_id, k.livemode, k.rate_limit_per_min, k.last_used_at, m.fee_tier,
       m.fee_bps, m.underpayment_tolerance_bps, m.wallets_version, l.granted, l.retry_after_ms
FROM api_keys k JOIN merchants m ON m.id = k.merchant_id
CROSS JOIN LATERAL stablepay_rate_lease(k.id, COALESCE(k.rate_limit_per_min, $2), $3, $4) l
WHERE k.key_sha256 = $1 AND k.revoked_at IS NULL"
    };
}

const AUTH_SQL: &str = auth_sql!();
const AUTH_AND_LEASE_SQL: &str = auth_and_lease_sql!();
/// `authenticate_and_look` (`$2`..`$5`: route, key, body hash, stale seconds).
const AUTH_AND_LOOK_SQL: &str = idempotency_look!(auth_sql!(), "$2", "$3", "$4", "$5");
/// The same with a lease (`$5`..`$8`: route, key, body hash, stale seconds).
const AUTH_LEASE_AND_LOOK_SQL: &str =
    idempotency_look!(auth_and_lease_sql!(), "$5", "$6", "$7", "$8");

/// A key and what its `Idempotency-Key` holds.
#[derive(QueryableByName)]
struct KeyAndLook {
    #[diesel(embed)]
    key: KeyRow,
    #[diesel(embed)]
    look: HeldRow,
}

impl PgStore {
    /// The authenticated key of `row` (its use noted, and in an atomic unit the wallets
    /// version it saw, `verified_wallets`).
    fn authenticated(&self, row: KeyRow) -> Result<Authenticated, StoreError> {
        self.note_key_use(row.id, row.last_used_at);
        if let Some(seen) = self.wallets_seen() {
            seen.checked(row.merchant_id, row.wallets_version);
        }
        let lease = match (row.granted, row.retry_after_ms) {
            (Some(n), _) if n >= 1 => LeaseOutcome::Granted(n.unsigned_abs()),
            (Some(_), retry) => LeaseOutcome::Exhausted {
                retry_after_ms: retry.unwrap_or(1000).max(1).unsigned_abs(),
            },
            (None, _) => LeaseOutcome::NotAsked,
        };
        Ok(Authenticated {
            context: AuthContext {
                merchant_id: MerchantId::from_uuid(row.merchant_id),
                mode: Mode::from_livemode(row.livemode),
                actor: Actor::ApiKey(ApiKeyId::from_uuid(row.id)),
                fee_tier: fee_tier(&row.fee_tier, row.fee_bps)?,
                rate_limit_per_min: row.rate_limit_per_min.and_then(|r| u32::try_from(r).ok()),
                underpayment_tolerance: merchant_tolerance(row.underpayment_tolerance_bps)?,
            },
            lease,
        })
    }
}

/// `sql` with a lease's binds (`$2`..`$4`) after the key's hash.
macro_rules! leased {
    ($sql:expr, $store:expr, $hash:expr, $lease:expr) => {
        diesel::sql_query($sql)
            .bind::<Bytea, _>($hash.to_vec())
            .bind::<Int4, _>(i32::try_from($lease.default_per_min).unwrap_or(i32::MAX))
            .bind::<Int4, _>(i32::try_from($lease.tokens.max(1)).unwrap_or(i32::MAX))
            // The lease's time is the `Clock` port's, not the server's.
            .bind::<diesel::sql_types::Timestamptz, _>($store.now())
    };
}

/// `query` with an ask's binds after it.
macro_rules! asked {
    ($query:expr, $ask:expr) => {
        $query
            .bind::<Text, _>(&$ask.route)
            .bind::<Text, _>(&$ask.key)
            .bind::<Bytea, _>($ask.request_sha256.to_vec())
            .bind::<Int8, _>($ask.stale_after_secs)
    };
}

#[async_trait]
impl ApiKeyStore for PgStore {
    async fn authenticate(
        &self,
        key_sha256: [u8; 32],
        lease: Option<RateLease>,
    ) -> Result<Option<Authenticated>, StoreError> {
        let conn = self.shared_conn().await?;
        let row: Option<KeyRow> = match lease {
            None => {
                Prepared(diesel::sql_query(AUTH_SQL).bind::<Bytea, _>(key_sha256.to_vec()))
                    .get_result(&mut &*conn)
                    .await
            }
            Some(lease) => {
                Prepared(leased!(AUTH_AND_LEASE_SQL, self, key_sha256, lease))
                    .get_result(&mut &*conn)
                    .await
            }
        }
        .optional()
        .map_err(map_diesel_error)?;
        drop(conn);
        row.map(|row| self.authenticated(row)).transpose()
    }

    async fn authenticate_and_look(
        &self,
        key_sha256: [u8; 32],
        lease: Option<RateLease>,
        ask: &IdempotencyAsk,
    ) -> Result<Option<(Authenticated, IdempotencyLook)>, StoreError> {
        let conn = self.shared_conn().await?;
        let row: Option<KeyAndLook> = match lease {
            None => {
                let query =
                    diesel::sql_query(AUTH_AND_LOOK_SQL).bind::<Bytea, _>(key_sha256.to_vec());
                Prepared(asked!(query, ask)).get_result(&mut &*conn).await
            }
            Some(lease) => {
                let query = leased!(AUTH_LEASE_AND_LOOK_SQL, self, key_sha256, lease);
                Prepared(asked!(query, ask)).get_result(&mut &*conn).await
            }
        }
        .optional()
        .map_err(map_diesel_error)?;
        drop(conn);
        let Some(row) = row else {
            return Ok(None);
        };
        let look = row.look.verdict(&ask.request_sha256);
        Ok(Some((self.authenticated(row.key)?, look)))
    }
}

/// `last_used_at` is written at most once a minute per key, off the request's path.
const LAST_USED_RESOLUTION_SECS: i64 = 60;

impl PgStore {
    pub(crate) fn note_key_use(&self, id: Uuid, last_used: Option<DateTime<Utc>>) {
        let now = self.now();
        if last_used.is_some_and(|t| (now - t).num_seconds() < LAST_USED_RESOLUTION_SECS) {
            return;
        }
        {
            let mut noted = self.key_use.lock().unwrap_or_else(|p| p.into_inner());
            match noted.get(&id) {
                Some(at) if now.timestamp() - at < LAST_USED_RESOLUTION_SECS => return,
                _ => {
                    // Bounded: forget everything older than the resolution first.
                    if noted.len() > 10_000 {
                        noted.retain(|_, at| now.timestamp() - *at < LAST_USED_RESOLUTION_SECS);
                    }
                    noted.insert(id, now.timestamp());
                }
            }
        }
        // Off the request: a connection of its own, never the unit's (whose transaction
        // it would join).
        let store = self.unbound();
        tokio::spawn(async move {
            let Ok(mut conn) = store.conn().await else {
                return;
            };
            let stale = now - chrono::Duration::seconds(LAST_USED_RESOLUTION_SECS);
            let written = diesel::update(
                api_keys::table.filter(api_keys::id.eq(id)).filter(
                    api_keys::last_used_at
                        .is_null()
                        .or(api_keys::last_used_at.lt(stale)),
                ),
            )
            .set(api_keys::last_used_at.eq(Some(now)))
            .execute(&mut conn)
            .await;
            if let Err(e) = written {
                tracing::warn!(error = %e, "could not record an API key's last use");
            }
        });
    }
}

#[async_trait]
impl ApiKeyManager for PgStore {
    async fn insert_key(
        &self,
        key: &ApiKey,
        secret_sha256: [u8; 32],
        audit: &AuditEvent,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let rate = key
            .rate_limit_per_min
            .map(|r| i32::try_from(r).unwrap_or(i32::MAX));
        conn.transaction(async |conn| {
            diesel::insert_into(api_keys::table)
                .values((
                    api_keys::id.eq(key.id.uuid()),
                    api_keys::merchant_id.eq(key.merchant_id.uuid()),
                    api_keys::livemode.eq(key.mode.is_live()),
                    api_keys::key_sha256.eq(secret_sha256.to_vec()),
                    api_keys::last4.eq(&key.last4),
                    api_keys::rate_limit_per_min.eq(rate),
                    api_keys::created_at.eq(key.created_at.as_datetime()),
                ))
                .execute(conn)
                .await?;
            audit::record(conn, audit).await
        })
        .await
        .map_err(|e| match e {
            diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::ForeignKeyViolation,
                _,
            ) => StoreError::NotFound,
            other => map_diesel_error(other),
        })?;
        Ok(())
    }

    async fn keys(&self, merchant: MerchantId) -> Result<Vec<ApiKey>, StoreError> {
        let mut conn = self.conn().await?;
        #[allow(clippy::type_complexity)]
        let rows: Vec<(
            Uuid,
            bool,
            String,
            Option<i32>,
            DateTime<Utc>,
            Option<DateTime<Utc>>,
            Option<DateTime<Utc>>,
        )> = api_keys::table
            .filter(api_keys::merchant_id.eq(merchant.uuid()))
            .order(api_keys::id.desc())
            .select((
                api_keys::id,
                api_keys::livemode,
                api_keys::last4,
                api_keys::rate_limit_per_min,
                api_keys::created_at,
                api_keys::revoked_at,
                api_keys::last_used_at,
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|(id, live, last4, rate, created, revoked, used)| ApiKey {
                id: ApiKeyId::from_uuid(id),
                merchant_id: merchant,
                mode: Mode::from_livemode(live),
                last4,
                rate_limit_per_min: rate.and_then(|r| u32::try_from(r).ok()),
                created_at: Timestamp::new(created),
                revoked_at: revoked.map(Timestamp::new),
                last_used_at: used.map(Timestamp::new),
            })
            .collect())
    }

    async fn revoke_key(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: ApiKeyId,
        now: Timestamp,
        audit: &AuditEvent,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        conn.transaction(async |conn| {
            let n = diesel::update(
                api_keys::table
                    .filter(api_keys::id.eq(id.uuid()))
                    .filter(api_keys::merchant_id.eq(merchant.uuid()))
                    .filter(api_keys::livemode.eq(mode.is_live()))
                    .filter(api_keys::revoked_at.is_null()),
            )
            .set(api_keys::revoked_at.eq(Some(now.as_datetime())))
            .execute(conn)
            .await?;
            if n == 1 {
                audit::record(conn, audit).await?;
            }
            Ok::<_, diesel::result::Error>(n == 1)
        })
        .await
        .map_err(map_diesel_error)
    }
}
