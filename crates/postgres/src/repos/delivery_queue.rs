//! The delivery queue the workers drain: leased batch claims (FOR UPDATE SKIP LOCKED),
//! batched completion, LISTEN/NOTIFY wake-ups.

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::sql_types::{Array, Bytea, Int4, Int8, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryableByName;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::StreamExt;
use stablepay_domain::ports::{
    Backlog, ClaimedDelivery, DeliveryOutcome, DeliveryQueue, StoreError, UnreadableSecret,
};
use stablepay_domain::EventId;
use tokio::sync::Mutex;
use uuid::Uuid;

use super::outbox::NOTIFY_CHANNEL;
use crate::error::map_diesel_error;
use crate::prepared::Prepared;
use crate::PgStore;

const CLAIM_SQL: &str = "
WITH due AS (
    SELECT w.id FROM webhook_events w
    JOIN webhook_endpoints e ON e.id = w.endpoint_id AND e.status = 'enabled' AND e.deleted_at IS NULL
    WHERE w.status = 'pending' AND w.next_attempt_at <= now()
      AND (w.lease_until IS NULL OR w.lease_until < now())
    ORDER BY w.next_attempt_at
    LIMIT $1
    FOR UPDATE OF w SKIP LOCKED
)
UPDATE webhook_events w SET lease_until = now() + make_interval(secs => $2)
FROM due, webhook_endpoints e
WHERE w.id = due.id AND e.id = w.endpoint_id
RETURNING w.id, e.url, e.secret_ciphertext,
    CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_ciphertext END AS previous_secret,
    w.payload, w.attempts";

/// Each outcome updates its delivery and appends its attempt, in one statement.
const COMPLETE_SQL: &str = "
WITH done AS (
    UPDATE webhook_events w SET status = v.status, attempts = v.attempts, last_attempt_at = v.attempted_at,
        next_attempt_at = v.next_at, response_status = v.resp, last_error = v.err, lease_until = NULL
    FROM unnest($1::uuid[], $2::text[], $3::int4[], $4::timestamptz[], $5::timestamptz[], $6::int4[],
                $7::text[], $8::uuid[], $9::timestamptz[], $10::int4[], $11::text[], $12::text[])
        AS v(id, status, attempts, attempted_at, next_at, resp, err, attempt_id, started_at,
             duration_ms, attempt_err, body)
    WHERE w.id = v.id AND w.status = 'pending'
    RETURNING w.id, w.merchant_id, w.livemode, v.attempt_id, v.started_at, v.duration_ms, v.resp,
        v.attempt_err, v.body
)
INSERT INTO webhook_attempts
    (id, delivery_id, merchant_id, livemode, attempted_at, duration_ms, response_status, error,
     response_body)
SELECT attempt_id, id, merchant_id, livemode, started_at, duration_ms, resp, attempt_err, body
FROM done";

#[derive(QueryableByName)]
struct ClaimRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    url: String,
    #[diesel(sql_type = Bytea)]
    secret_ciphertext: Vec<u8>,
    #[diesel(sql_type = Nullable<Bytea>)]
    previous_secret: Option<Vec<u8>>,
    #[diesel(sql_type = Text)]
    payload: String,
    #[diesel(sql_type = Int4)]
    attempts: i32,
}

/// Due deliveries, through the partial `due` index.
const BACKLOG_SQL: &str = "
SELECT count(*) AS due,
       EXTRACT(EPOCH FROM now() - min(next_attempt_at))::float8 AS oldest_age
FROM webhook_events WHERE status = 'pending' AND next_attempt_at <= now()";

#[derive(QueryableByName)]
struct BacklogRow {
    #[diesel(sql_type = diesel::sql_types::Int8)]
    due: i64,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Double>)]
    oldest_age: Option<f64>,
}

/// The queue: the store plus a dedicated LISTEN connection.
pub struct PgDeliveryQueue {
    store: PgStore,
    database_url: String,
    listener: Mutex<Option<AsyncPgConnection>>,
}

impl PgDeliveryQueue {
    pub fn new(store: PgStore, database_url: &str) -> Self {
        Self {
            store,
            database_url: database_url.to_owned(),
            listener: Mutex::new(None),
        }
    }

    async fn listen(&self) -> Option<AsyncPgConnection> {
        let mut conn = AsyncPgConnection::establish(&self.database_url)
            .await
            .ok()?;
        diesel::sql_query(format!("LISTEN {NOTIFY_CHANNEL}"))
            .execute(&mut conn)
            .await
            .ok()?;
        Some(conn)
    }
}

#[async_trait]
impl DeliveryQueue for PgDeliveryQueue {
    async fn claim_due(
        &self,
        limit: u32,
        lease_secs: i64,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let mut conn = self.store.conn().await?;
        let rows: Vec<ClaimRow> = Prepared(
            diesel::sql_query(CLAIM_SQL)
                .bind::<Int8, _>(i64::from(limit))
                .bind::<Int8, _>(lease_secs),
        )
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(rows
            .into_iter()
            .map(|r| {
                // A row whose secret does not decrypt travels as such and fails alone.
                let secrets = std::iter::once(&r.secret_ciphertext)
                    .chain(r.previous_secret.as_ref())
                    .map(|sealed| self.store.decrypt_secret(sealed))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| {
                        tracing::error!(delivery = %r.id, error = %e, "unreadable signing secret");
                        UnreadableSecret
                    });
                ClaimedDelivery {
                    id: EventId::from_uuid(r.id),
                    url: r.url,
                    secrets,
                    payload: r.payload,
                    attempts: u32::try_from(r.attempts).unwrap_or(0),
                }
            })
            .collect())
    }

    async fn backlog(&self) -> Result<Backlog, StoreError> {
        let mut conn = self.store.conn().await?;
        let row: BacklogRow = diesel::sql_query(BACKLOG_SQL)
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(Backlog {
            due: u64::try_from(row.due).unwrap_or(0),
            oldest_due_age_secs: row.oldest_age.unwrap_or(0.0).max(0.0),
        })
    }

    async fn record_outcomes(&self, outcomes: &[DeliveryOutcome]) -> Result<(), StoreError> {
        if outcomes.is_empty() {
            return Ok(());
        }
        let ids: Vec<Uuid> = outcomes.iter().map(|o| o.id.uuid()).collect();
        let statuses: Vec<String> = outcomes
            .iter()
            .map(|o| o.status.as_str().to_owned())
            .collect();
        let attempts: Vec<i32> = outcomes
            .iter()
            .map(|o| i32::try_from(o.attempts).unwrap_or(i32::MAX))
            .collect();
        let attempted: Vec<DateTime<Utc>> = outcomes
            .iter()
            .map(|o| o.attempted_at.as_datetime())
            .collect();
        let next: Vec<Option<DateTime<Utc>>> = outcomes
            .iter()
            .map(|o| o.next_attempt_at.map(|t| t.as_datetime()))
            .collect();
        let resp: Vec<Option<i32>> = outcomes
            .iter()
            .map(|o| o.response_status.map(i32::from))
            .collect();
        let errs: Vec<Option<String>> = outcomes.iter().map(|o| o.last_error.clone()).collect();
        let attempt_ids: Vec<Uuid> = outcomes.iter().map(|o| o.attempt.id.uuid()).collect();
        let started: Vec<DateTime<Utc>> = outcomes
            .iter()
            .map(|o| o.attempt.attempted_at.as_datetime())
            .collect();
        let durations: Vec<i32> = outcomes
            .iter()
            .map(|o| i32::try_from(o.attempt.duration_ms).unwrap_or(i32::MAX))
            .collect();
        let attempt_errs: Vec<Option<String>> =
            outcomes.iter().map(|o| o.attempt.error.clone()).collect();
        let bodies: Vec<Option<String>> = outcomes
            .iter()
            .map(|o| o.attempt.response_body.clone())
            .collect();
        let mut conn = self.store.conn().await?;
        Prepared(
            diesel::sql_query(COMPLETE_SQL)
                .bind::<Array<SqlUuid>, _>(ids)
                .bind::<Array<Text>, _>(statuses)
                .bind::<Array<Int4>, _>(attempts)
                .bind::<Array<Timestamptz>, _>(attempted)
                .bind::<Array<Nullable<Timestamptz>>, _>(next)
                .bind::<Array<Nullable<Int4>>, _>(resp)
                .bind::<Array<Nullable<Text>>, _>(errs)
                .bind::<Array<SqlUuid>, _>(attempt_ids)
                .bind::<Array<Timestamptz>, _>(started)
                .bind::<Array<Int4>, _>(durations)
                .bind::<Array<Nullable<Text>>, _>(attempt_errs)
                .bind::<Array<Nullable<Text>>, _>(bodies),
        )
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn wait_for_work(&self, max_wait_ms: u64) {
        let deadline = Duration::from_millis(max_wait_ms);
        let mut guard = self.listener.lock().await;
        if guard.is_none() {
            *guard = self.listen().await;
        }
        let Some(conn) = guard.as_mut() else {
            tokio::time::sleep(deadline).await;
            return;
        };
        let broken = {
            let mut stream = std::pin::pin!(conn.notifications_stream());
            match tokio::time::timeout(deadline, stream.next()).await {
                Ok(Some(Ok(_))) | Err(_) => {
                    // Drain whatever else arrived so one wake-up covers a burst.
                    while let Ok(Some(Ok(_))) =
                        tokio::time::timeout(Duration::ZERO, stream.next()).await
                    {
                    }
                    false
                }
                Ok(Some(Err(_))) | Ok(None) => true,
            }
        };
        if broken {
            // The connection broke: reconnect on the next wait.
            *guard = None;
        }
    }
}
