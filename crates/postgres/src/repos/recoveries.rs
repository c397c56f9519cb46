//! Endpoint recoveries the worker continues in batches (`RecoveryQueue`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use stablepay_domain::ports::{RecoveryJob, RecoveryQueue, StoreError};
use stablepay_domain::{EventId, MerchantId, Mode, Timestamp, WebhookEndpointId};
use uuid::Uuid;

use crate::error::map_diesel_error;
use crate::schema::webhook_recoveries as r;
use crate::PgStore;

/// Takes the oldest unfinished job whose lease is over, skipping rows another worker holds.
const CLAIM: &str = "
UPDATE webhook_recoveries SET leased_until = $2, updated_at = $1
WHERE id = (
    SELECT id FROM webhook_recoveries
    WHERE finished_at IS NULL AND (leased_until IS NULL OR leased_until <= $1)
    ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id, merchant_id, livemode, endpoint_id, since, resume_after";

#[derive(QueryableByName)]
struct JobRow {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    merchant_id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    livemode: bool,
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    endpoint_id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    since: DateTime<Utc>,
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    resume_after: Uuid,
}

fn count(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

#[async_trait]
impl RecoveryQueue for PgStore {
    async fn queue_recovery(&self, job: &RecoveryJob, now: Timestamp) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::insert_into(r::table)
            .values((
                r::id.eq(job.id),
                r::merchant_id.eq(job.merchant_id.uuid()),
                r::livemode.eq(job.mode.is_live()),
                r::endpoint_id.eq(job.endpoint.uuid()),
                r::since.eq(job.since.as_datetime()),
                r::resume_after.eq(job.resume_after.uuid()),
                r::created_at.eq(now.as_datetime()),
                r::updated_at.eq(now.as_datetime()),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn claim_recovery(
        &self,
        now: Timestamp,
        lease_secs: i64,
    ) -> Result<Option<RecoveryJob>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<JobRow> = diesel::sql_query(CLAIM)
            .bind::<diesel::sql_types::Timestamptz, _>(now.as_datetime())
            .bind::<diesel::sql_types::Timestamptz, _>(now.plus_seconds(lease_secs).as_datetime())
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        Ok(row.map(|j| RecoveryJob {
            id: j.id,
            merchant_id: MerchantId::from_uuid(j.merchant_id),
            mode: Mode::from_livemode(j.livemode),
            endpoint: WebhookEndpointId::from_uuid(j.endpoint_id),
            since: Timestamp::new(j.since),
            resume_after: EventId::from_uuid(j.resume_after),
        }))
    }

    async fn advance_recovery(
        &self,
        id: Uuid,
        next: Option<EventId>,
        enqueued: u32,
        still_pending: u32,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let at = now.as_datetime();
        let target = diesel::update(r::table.filter(r::id.eq(id)));
        let counts = (
            r::enqueued.eq(r::enqueued + count(enqueued)),
            r::still_pending.eq(r::still_pending + count(still_pending)),
            r::leased_until.eq(None::<DateTime<Utc>>),
            r::updated_at.eq(at),
        );
        let done = match next {
            Some(next) => {
                target
                    .set((counts, r::resume_after.eq(next.uuid())))
                    .execute(&mut conn)
                    .await
            }
            None => {
                target
                    .set((counts, r::finished_at.eq(Some(at))))
                    .execute(&mut conn)
                    .await
            }
        };
        done.map_err(map_diesel_error)?;
        Ok(())
    }
}
