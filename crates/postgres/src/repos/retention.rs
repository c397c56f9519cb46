//! Retention deletes: small batches, rows locked by another worker skipped.

use async_trait::async_trait;
use diesel::sql_types::{Int4, Timestamptz, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use stablepay_domain::ports::{Purge, RetentionStore, StoreError};
use stablepay_domain::Timestamp;
use uuid::Uuid;

use crate::error::map_diesel_error;
use crate::PgStore;

const IDEMPOTENCY_KEYS: &str = "
DELETE FROM idempotency_keys WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM idempotency_keys WHERE expires_at < $1
    LIMIT $2 FOR UPDATE SKIP LOCKED))";

const WALLET_CHALLENGES: &str = "
DELETE FROM wallet_challenges WHERE id = ANY(ARRAY(
    SELECT id FROM wallet_challenges
    WHERE created_at < $1 AND (used_at IS NOT NULL OR expires_at < $1)
    LIMIT $2 FOR UPDATE SKIP LOCKED))";

/// Ids are UUIDv7, so `id < $3` (the smallest id of the cutoff's millisecond) walks the
/// primary key from the oldest record instead of scanning the table.
const WEBHOOK_EVENTS: &str = "
DELETE FROM webhook_events WHERE id = ANY(ARRAY(
    SELECT id FROM webhook_events
    WHERE id < $3 AND created_at < $1 AND status = 'succeeded'
    ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED))";

/// The smallest UUIDv7 of a millisecond: its 48-bit timestamp, every other bit zero.
fn v7_floor(at: Timestamp) -> Uuid {
    let ms = u128::try_from(at.as_datetime().timestamp_millis()).unwrap_or(0);
    Uuid::from_u128((ms & 0xFFFF_FFFF_FFFF) << 80)
}

#[async_trait]
impl RetentionStore for PgStore {
    async fn purge(&self, what: Purge, cutoff: Timestamp, batch: u32) -> Result<u64, StoreError> {
        let mut conn = self.conn().await?;
        let limit = i32::try_from(batch).unwrap_or(i32::MAX);
        let sql = match what {
            Purge::ExpiredIdempotencyKeys => IDEMPOTENCY_KEYS,
            Purge::SpentWalletChallenges => WALLET_CHALLENGES,
            Purge::DeliveredWebhookEvents => WEBHOOK_EVENTS,
        };
        let query = diesel::sql_query(sql)
            .bind::<Timestamptz, _>(cutoff.as_datetime())
            .bind::<Int4, _>(limit);
        let deleted = match what {
            Purge::DeliveredWebhookEvents => {
                query
                    .bind::<SqlUuid, _>(v7_floor(cutoff))
                    .execute(&mut conn)
                    .await
            }
            _ => query.execute(&mut conn).await,
        }
        .map_err(map_diesel_error)?;
        Ok(deleted as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_v7_floor_sorts_below_every_id_of_its_millisecond_and_above_earlier_ones() {
        let at = Timestamp::from_unix_seconds(1_795_435_200).unwrap();
        let floor = v7_floor(at);
        let same_ms = Uuid::new_v7(uuid::Timestamp::from_unix(
            uuid::NoContext,
            1_795_435_200,
            0,
        ));
        let earlier = Uuid::new_v7(uuid::Timestamp::from_unix(
            uuid::NoContext,
            1_795_435_199,
            999_000_000,
        ));
        assert!(floor <= same_ms);
        assert!(earlier < floor);
    }
}
