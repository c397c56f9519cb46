use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use stablepay_domain::ports::{ApiKeyStore, StoreError};
use stablepay_domain::{ApiKeyId, AuthContext, FeeTier, MerchantId, Mode};
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
        let row: Option<(Uuid, Uuid, bool, Option<i32>, String, i32)> = api_keys::table
            .inner_join(merchants::table)
            .filter(api_keys::key_sha256.eq(key_sha256.to_vec()))
            .filter(api_keys::revoked_at.is_null())
            .select((
                api_keys::id,
                api_keys::merchant_id,
                api_keys::livemode,
                api_keys::rate_limit_per_min,
                merchants::fee_tier,
                merchants::fee_bps,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(|(id, merchant, live, rate, tier, bps)| {
            Ok(AuthContext {
                merchant_id: MerchantId::from_uuid(merchant),
                mode: Mode::from_livemode(live),
                api_key_id: ApiKeyId::from_uuid(id),
                fee_tier: fee_tier(&tier, bps)?,
                rate_limit_per_min: rate.and_then(|r| u32::try_from(r).ok()),
            })
        })
        .transpose()
    }
}
