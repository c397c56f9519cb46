//! Operator actions behind `stablepay-api merchants|keys` (D5): there is no public signup.

use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::StoreError;
use stablepay_domain::{ApiKeyId, FeeTier, Merchant, MerchantId, Mode, Timestamp};
use uuid::Uuid;

use crate::error::map_diesel_error;
use crate::repos::fee_tier;
use crate::schema::{api_keys as k, merchants as m};
use crate::PgStore;

type KeyRow = (
    Uuid,
    Uuid,
    bool,
    String,
    chrono::DateTime<chrono::Utc>,
    Option<chrono::DateTime<chrono::Utc>>,
);

/// A freshly created key: the only time its secret exists outside the caller's hands.
#[derive(Debug, Clone)]
pub struct CreatedKey {
    pub id: ApiKeyId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub secret: String,
}

/// An API key as the operator lists it.
pub use stablepay_domain::ApiKeySummary as KeySummary;

impl PgStore {
    pub async fn create_merchant(&self, name: &str, tier: FeeTier) -> Result<Merchant, StoreError> {
        let mut conn = self.conn().await?;
        let now = Timestamp::new(self.now());
        let id = MerchantId::generate_at(now);
        diesel::insert_into(m::table)
            .values((
                m::id.eq(id.uuid()),
                m::name.eq(name),
                m::fee_tier.eq(tier.label()),
                m::fee_bps.eq(i32::from(tier.bps())),
                m::created_at.eq(now.as_datetime()),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(Merchant {
            id,
            name: name.to_owned(),
            fee_tier: tier,
            created_at: now,
        })
    }

    /// Changes the tier for sessions created from now on; existing snapshots keep theirs.
    pub async fn set_fee_tier(
        &self,
        merchant: MerchantId,
        tier: FeeTier,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let n = diesel::update(m::table.filter(m::id.eq(merchant.uuid())))
            .set((
                m::fee_tier.eq(tier.label()),
                m::fee_bps.eq(i32::from(tier.bps())),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    pub async fn list_merchants(&self) -> Result<Vec<Merchant>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<(Uuid, String, String, i32, chrono::DateTime<chrono::Utc>)> = m::table
            .order(m::id.asc())
            .select((m::id, m::name, m::fee_tier, m::fee_bps, m::created_at))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter()
            .map(|(id, name, tier, bps, at)| {
                Ok(Merchant {
                    id: MerchantId::from_uuid(id),
                    name,
                    fee_tier: fee_tier(&tier, bps)?,
                    created_at: Timestamp::new(at),
                })
            })
            .collect()
    }

    /// A key through the domain's `create_api_key` (tests and seeding use this shape).
    pub async fn create_api_key(
        &self,
        merchant: MerchantId,
        mode: Mode,
        rate_limit_per_min: Option<u32>,
    ) -> Result<CreatedKey, StoreError> {
        let created = stablepay_domain::services::create_api_key(
            merchant,
            mode,
            rate_limit_per_min,
            &stablepay_domain::Changer::OPERATOR,
            self,
            &stablepay_domain::ports::SystemClock,
        )
        .await?;
        Ok(CreatedKey {
            id: created.key.id,
            merchant_id: merchant,
            mode,
            secret: created.secret,
        })
    }

    pub async fn list_api_keys(
        &self,
        merchant: Option<MerchantId>,
    ) -> Result<Vec<KeySummary>, StoreError> {
        let mut conn = self.conn().await?;
        let mut q = k::table
            .select((
                k::id,
                k::merchant_id,
                k::livemode,
                k::last4,
                k::created_at,
                k::revoked_at,
            ))
            .order(k::id.asc())
            .into_boxed();
        if let Some(m) = merchant {
            q = q.filter(k::merchant_id.eq(m.uuid()));
        }
        let rows: Vec<KeyRow> = q.load(&mut conn).await.map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|(id, merchant, live, last4, created, revoked)| KeySummary {
                id: ApiKeyId::from_uuid(id),
                merchant_id: MerchantId::from_uuid(merchant),
                mode: Mode::from_livemode(live),
                last4,
                created_at: Timestamp::new(created),
                revoked_at: revoked.map(Timestamp::new),
            })
            .collect())
    }

    /// Revokes a key as the operator; it stops working on the very next request.
    pub async fn revoke_api_key(&self, id: ApiKeyId) -> Result<(), StoreError> {
        let now = Timestamp::new(self.now());
        self.revoke_any_key(id, &stablepay_domain::Changer::OPERATOR, now)
            .await
    }

    async fn revoke_any_key(
        &self,
        id: ApiKeyId,
        by: &stablepay_domain::Changer,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let revoked = conn
            .transaction(async |conn| {
                let owner: Option<(uuid::Uuid, bool)> = diesel::update(
                    k::table
                        .filter(k::id.eq(id.uuid()))
                        .filter(k::revoked_at.is_null()),
                )
                .set(k::revoked_at.eq(at.as_datetime()))
                .returning((k::merchant_id, k::livemode))
                .get_result(conn)
                .await
                .optional()?;
                if let Some((merchant, live)) = owner {
                    let entry = stablepay_domain::rules::audit::key_revoked(
                        by,
                        MerchantId::from_uuid(merchant),
                        Mode::from_livemode(live),
                        id,
                        at,
                    );
                    crate::repos::audit::record(conn, &entry).await?;
                }
                Ok::<_, diesel::result::Error>(owner.is_some())
            })
            .await
            .map_err(map_diesel_error)?;
        if revoked {
            Ok(())
        } else {
            Err(StoreError::NotFound)
        }
    }
}

#[async_trait::async_trait]
impl stablepay_domain::ports::MerchantAdmin for PgStore {
    async fn create_merchant(&self, name: &str, tier: FeeTier) -> Result<Merchant, StoreError> {
        PgStore::create_merchant(self, name, tier).await
    }

    async fn set_fee_tier(&self, merchant: MerchantId, tier: FeeTier) -> Result<(), StoreError> {
        PgStore::set_fee_tier(self, merchant, tier).await
    }

    async fn merchants(&self) -> Result<Vec<Merchant>, StoreError> {
        self.list_merchants().await
    }

    async fn api_keys(&self, merchant: Option<MerchantId>) -> Result<Vec<KeySummary>, StoreError> {
        self.list_api_keys(merchant).await
    }

    async fn revoke_any_api_key(
        &self,
        id: ApiKeyId,
        by: &stablepay_domain::Changer,
        at: Timestamp,
    ) -> Result<(), StoreError> {
        self.revoke_any_key(id, by, at).await
    }
}
