use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use stablepay_domain::ports::ApiKeyManager;
use stablepay_domain::ports::{ApiKeyStore, StoreError};
use stablepay_domain::{Actor, ApiKeyId, AuthContext, FeeTier, MerchantId, Mode};
use stablepay_domain::{ApiKey, Timestamp};
use uuid::Uuid;

use crate::error::{corrupt, map_diesel_error};
use crate::schema::{api_keys, merchants};
use crate::PgStore;

pub(crate) fn fee_tier(label: &str, bps: i32) -> Result<FeeTier, StoreError> {
    let bps16 = u16::try_from(bps).map_err(|_| corrupt("fee_bps", bps))?;
    FeeTier::from_parts(label, Some(bps16)).map_err(|_| corrupt("fee_tier", label))
}

#[async_trait]
impl ApiKeyStore for PgStore {
    async fn authenticate(&self, key_sha256: [u8; 32]) -> Result<Option<AuthContext>, StoreError> {
        let mut conn = self.conn().await?;
        #[allow(clippy::type_complexity)]
        let row: Option<(
            Uuid,
            Uuid,
            bool,
            Option<i32>,
            Option<DateTime<Utc>>,
            String,
            i32,
        )> = api_keys::table
            .inner_join(merchants::table)
            .filter(api_keys::key_sha256.eq(key_sha256.to_vec()))
            .filter(api_keys::revoked_at.is_null())
            .select((
                api_keys::id,
                api_keys::merchant_id,
                api_keys::livemode,
                api_keys::rate_limit_per_min,
                api_keys::last_used_at,
                merchants::fee_tier,
                merchants::fee_bps,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(|(id, merchant, live, rate, last_used, tier, bps)| {
            self.note_key_use(id, last_used);
            Ok(AuthContext {
                merchant_id: MerchantId::from_uuid(merchant),
                mode: Mode::from_livemode(live),
                actor: Actor::ApiKey(ApiKeyId::from_uuid(id)),
                fee_tier: fee_tier(&tier, bps)?,
                rate_limit_per_min: rate.and_then(|r| u32::try_from(r).ok()),
            })
        })
        .transpose()
    }
}

/// `last_used_at` is written at most once a minute per key, off the request's path.
const LAST_USED_RESOLUTION_SECS: i64 = 60;

impl PgStore {
    fn note_key_use(&self, id: Uuid, last_used: Option<DateTime<Utc>>) {
        let now = Utc::now();
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
        let store = self.clone();
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
    async fn insert_key(&self, key: &ApiKey, secret_sha256: [u8; 32]) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let rate = key
            .rate_limit_per_min
            .map(|r| i32::try_from(r).unwrap_or(i32::MAX));
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
            .execute(&mut conn)
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
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let n = diesel::update(
            api_keys::table
                .filter(api_keys::id.eq(id.uuid()))
                .filter(api_keys::merchant_id.eq(merchant.uuid()))
                .filter(api_keys::livemode.eq(mode.is_live()))
                .filter(api_keys::revoked_at.is_null()),
        )
        .set(api_keys::revoked_at.eq(Some(now.as_datetime())))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(n == 1)
    }
}
