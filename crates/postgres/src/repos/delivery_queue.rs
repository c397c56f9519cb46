//! The delivery queue the workers drain (the narrow `webhook_queue` table): announced
//! deliveries claimed by key, fair searches capped per endpoint, batched completion, and
//! LISTEN/NOTIFY wake-ups that carry the new ids.

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::sql_types::{Array, Bytea, Int4, Int8, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryableByName;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::{FutureExt, StreamExt};
use stablepay_domain::ports::{
    Backlog, ClaimRequest, ClaimSource, ClaimedDelivery, DeliveryOutcome, DeliveryQueue,
    HealthRule, StoreError, UnreadableSecret, Wakeup,
};
use stablepay_domain::rules::endpoint_health::{batch_health, BatchHealth};
use stablepay_domain::{EventId, WebhookEndpointId};
use tokio::sync::Mutex;
use uuid::Uuid;

use super::outbox::NOTIFY_CHANNEL;
use crate::diesel_internals::Prepared;
use crate::error::map_diesel_error;
use crate::PgStore;

/// The lease and what the worker needs to send, for the deliveries `picked` names (an
/// array, so the planner reads them by key rather than joining the whole queue).
macro_rules! lease_picked {
    () => {
        "
UPDATE webhook_queue q SET lease_until = now() + make_interval(secs => $2)
FROM webhook_events w, webhook_endpoints e
WHERE q.delivery_id = ANY (ARRAY(SELECT delivery_id FROM picked))
  AND w.id = q.delivery_id AND e.id = q.endpoint_id
  AND (q.lease_until IS NULL OR q.lease_until < now())
RETURNING w.id, q.endpoint_id, e.url, e.secret_ciphertext,
    CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_ciphertext END AS previous_secret,
    w.payload, w.attempts"
    };
}

/// Room per endpoint: `$3` for an idle endpoint, what `$4`/`$5` say for a busy one.
macro_rules! room {
    () => {
        "LEFT JOIN unnest($4::uuid[], $5::int4[]) AS b(endpoint_id, room) ON b.endpoint_id = "
    };
}

/// Fresh deliveries named by their announcement, claimed by key within each endpoint's
/// room. The re-check in the UPDATE makes a second worker's claim of the same id a no-op.
const CLAIM_ANNOUNCED_SQL: &str = concat!(
    "
WITH cand AS (
    SELECT q.delivery_id, q.endpoint_id,
        row_number() OVER (PARTITION BY q.endpoint_id ORDER BY q.due_at) AS n
    FROM webhook_queue q
    JOIN webhook_endpoints e ON e.id = q.endpoint_id AND e.status = 'enabled' AND e.deleted_at IS NULL
    WHERE q.delivery_id = ANY($6) AND q.due_at <= now()
      AND (q.lease_until IS NULL OR q.lease_until < now())
), picked AS (
    SELECT cand.delivery_id FROM cand ",
    room!(),
    "cand.endpoint_id
    WHERE cand.n <= COALESCE(b.room, $3)
    LIMIT $1
)",
    lease_picked!()
);

/// A fair search: every endpoint with queued work (a loose index scan), each giving at most
/// its room, oldest first overall. A slow endpoint's backlog is never walked past: it is
/// read only up to its room.
const CLAIM_DUE_SQL: &str = concat!(
    "
WITH RECURSIVE eps(endpoint_id) AS (
    (SELECT endpoint_id FROM webhook_queue ORDER BY endpoint_id LIMIT 1)
  UNION ALL
    SELECT (SELECT q.endpoint_id FROM webhook_queue q WHERE q.endpoint_id > eps.endpoint_id
            ORDER BY q.endpoint_id LIMIT 1)
    FROM eps WHERE eps.endpoint_id IS NOT NULL
), room AS (
    SELECT eps.endpoint_id, COALESCE(b.room, $3) AS room
    FROM eps
    JOIN webhook_endpoints e ON e.id = eps.endpoint_id AND e.status = 'enabled' AND e.deleted_at IS NULL
    ",
    room!(),
    "eps.endpoint_id
), picked AS (
    SELECT c.delivery_id FROM room
    CROSS JOIN LATERAL (
        SELECT q.delivery_id, q.due_at FROM webhook_queue q
        WHERE q.endpoint_id = room.endpoint_id AND q.due_at <= now()
          AND (q.lease_until IS NULL OR q.lease_until < now())
        ORDER BY q.due_at LIMIT room.room
        FOR UPDATE SKIP LOCKED) c
    WHERE room.room > 0
    ORDER BY c.due_at
    LIMIT $1
)",
    lease_picked!()
);

/// Each outcome updates its delivery, appends its attempt, takes a finished delivery off
/// the queue or reschedules it, in one statement; the endpoints the domain judged healthy
/// (`$15`) lose their failure streak in the same statement.
const COMPLETE_SQL: &str = "
WITH v AS (
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::int4[], $4::timestamptz[], $5::timestamptz[],
                $6::int4[], $7::text[], $8::uuid[], $9::timestamptz[], $10::int4[], $11::text[],
                $12::text[], $13::uuid[], $14::bool[])
        AS v(id, status, attempts, attempted_at, next_at, resp, err, attempt_id, started_at,
             duration_ms, attempt_err, body, endpoint_id, sent)
), done AS (
    UPDATE webhook_events w SET status = v.status, attempts = v.attempts, last_attempt_at = v.attempted_at,
        next_attempt_at = v.next_at, response_status = v.resp, last_error = v.err
    FROM v
    WHERE w.id = v.id AND w.status = 'pending'
    RETURNING w.id, w.merchant_id, w.livemode, v.status, v.next_at, v.attempt_id, v.started_at,
        v.duration_ms, v.resp, v.attempt_err, v.body
), logged AS (
    INSERT INTO webhook_attempts
        (id, delivery_id, merchant_id, livemode, attempted_at, duration_ms, response_status,
         error, response_body)
    SELECT attempt_id, id, merchant_id, livemode, started_at, duration_ms, resp, attempt_err, body
    FROM done
), dequeued AS (
    DELETE FROM webhook_queue q
    WHERE q.delivery_id = ANY (ARRAY(SELECT id FROM done WHERE status <> 'pending'))
), rescheduled AS (
    -- `= ANY($1)` lets the planner find the rows by key instead of joining the queue.
    UPDATE webhook_queue q SET due_at = done.next_at, lease_until = NULL
    FROM done WHERE q.delivery_id = ANY ($1) AND q.delivery_id = done.id AND done.status = 'pending'
)
UPDATE webhook_endpoints e SET failing_since = NULL
WHERE e.id = ANY ($15) AND e.failing_since IS NOT NULL";

#[derive(QueryableByName)]
struct ClaimRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    endpoint_id: Uuid,
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

/// Due deliveries: the queue table is small (live work only).
const BACKLOG_SQL: &str = "
SELECT count(*) AS due, EXTRACT(EPOCH FROM now() - min(due_at))::float8 AS oldest_age
FROM webhook_queue WHERE due_at <= now()";

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

    /// The endpoint's signing secrets, current first. A row whose secret does not decrypt
    /// travels as such and fails alone. An unreadable previous secret (still in its grace
    /// period) is left out: the current one signs alone rather than nothing being sent.
    fn open_secrets(&self, r: &ClaimRow) -> Result<Vec<String>, UnreadableSecret> {
        let endpoint = r.endpoint_id;
        let previous = r.previous_secret.as_ref().and_then(|sealed| {
            self.store
                .decrypt_secret(endpoint, sealed)
                .map_err(|e| tracing::error!(%endpoint, error = %e, "unreadable previous signing secret; signing with the current one alone"))
                .ok()
        });
        self.store
            .decrypt_secret(endpoint, &r.secret_ciphertext)
            .map(|current| std::iter::once(current).chain(previous).collect())
            .map_err(|e| {
                tracing::error!(%endpoint, error = %e, "unreadable signing secret");
                UnreadableSecret
            })
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
    async fn claim(&self, request: &ClaimRequest) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let (sql, announced) = match &request.source {
            ClaimSource::Announced(ids) if ids.is_empty() => return Ok(Vec::new()),
            ClaimSource::Announced(ids) => (
                CLAIM_ANNOUNCED_SQL,
                ids.iter().map(|id| id.uuid()).collect::<Vec<_>>(),
            ),
            // $6 is not referenced by the search; bound empty to keep one bind list.
            ClaimSource::Due => (CLAIM_DUE_SQL, Vec::<Uuid>::new()),
        };
        let (busy, room): (Vec<Uuid>, Vec<i32>) = request
            .busy
            .iter()
            .map(|(e, r)| (e.uuid(), i32::try_from(*r).unwrap_or(i32::MAX)))
            .unzip();
        let query = diesel::sql_query(sql)
            .bind::<Int8, _>(i64::from(request.limit))
            .bind::<Int8, _>(request.lease_secs)
            .bind::<Int4, _>(i32::try_from(request.per_endpoint).unwrap_or(i32::MAX))
            .bind::<Array<SqlUuid>, _>(busy)
            .bind::<Array<Int4>, _>(room)
            .bind::<Array<SqlUuid>, _>(announced);
        let mut conn = self.store.conn().await?;
        let rows: Vec<ClaimRow> = Prepared(query)
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        // A claim often holds many deliveries of one endpoint: open its secrets once.
        let mut secrets: HashMap<Uuid, Result<Vec<String>, UnreadableSecret>> = HashMap::new();
        Ok(rows
            .into_iter()
            .map(|r| {
                let secrets = secrets
                    .entry(r.endpoint_id)
                    .or_insert_with(|| self.open_secrets(&r))
                    .clone();
                ClaimedDelivery {
                    id: EventId::from_uuid(r.id),
                    endpoint: WebhookEndpointId::from_uuid(r.endpoint_id),
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

    async fn record_outcomes(
        &self,
        outcomes: &[DeliveryOutcome],
        health: &HealthRule,
    ) -> Result<(), StoreError> {
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
        let endpoints: Vec<Uuid> = outcomes.iter().map(|o| o.endpoint.uuid()).collect();
        let sent: Vec<bool> = outcomes.iter().map(|o| o.sent).collect();
        let judged = batch_health(outcomes);
        let healthy: Vec<Uuid> = judged
            .iter()
            .filter(|(_, h)| **h == BatchHealth::Succeeded)
            .map(|(id, _)| id.uuid())
            .collect();
        let failed: Vec<_> = judged
            .into_iter()
            .filter_map(|(id, h)| match h {
                BatchHealth::Failed {
                    first_started,
                    last_attempted,
                } => Some((id, first_started, last_attempted)),
                _ => None,
            })
            .collect();
        let complete = Prepared(
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
                .bind::<Array<Nullable<Text>>, _>(bodies)
                .bind::<Array<SqlUuid>, _>(endpoints)
                .bind::<Array<diesel::sql_types::Bool>, _>(sent)
                .bind::<Array<SqlUuid>, _>(healthy),
        );
        let mut conn = self.store.conn().await?;
        if failed.is_empty() {
            complete
                .execute(&mut conn)
                .await
                .map_err(map_diesel_error)?;
            return Ok(());
        }
        // Failing endpoints: their records are read, locked, judged by the domain's rule
        // and written back in the transaction that records the outcomes.
        conn.transaction(async |conn| {
            complete.execute(conn).await?;
            super::endpoint_health::record_failures(conn, &failed, health).await
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn wait_for_work(&self, max_wait_ms: u64) -> Wakeup {
        let deadline = Duration::from_millis(max_wait_ms);
        let mut guard = self.listener.lock().await;
        if guard.is_none() {
            *guard = self.listen().await;
            // Announcements sent while nobody listened are lost: search once.
            if guard.is_some() {
                return Wakeup {
                    search: true,
                    ..Wakeup::default()
                };
            }
        }
        let Some(conn) = guard.as_mut() else {
            tokio::time::sleep(deadline).await;
            return Wakeup {
                search: true,
                ..Wakeup::default()
            };
        };
        let mut wakeup = Wakeup::default();
        let broken = {
            let mut stream = std::pin::pin!(conn.notifications_stream());
            match tokio::time::timeout(deadline, stream.next()).await {
                Ok(Some(Ok(first))) => {
                    read_announcement(&first.payload, &mut wakeup);
                    // Take whatever else already arrived so one wake-up covers a burst.
                    // Not `timeout(ZERO, ..)`: a zero timeout fires on the timer's next
                    // millisecond tick, which held every wake-up back by about 1 ms.
                    while let Some(Some(Ok(more))) = stream.next().now_or_never() {
                        read_announcement(&more.payload, &mut wakeup);
                    }
                    false
                }
                Err(_) => {
                    wakeup.search = true;
                    false
                }
                Ok(Some(Err(_))) | Ok(None) => true,
            }
        };
        if broken {
            // The connection broke: reconnect on the next wait, and search meanwhile.
            *guard = None;
            wakeup.search = true;
        }
        wakeup
    }

    async fn tidy(&self) -> Result<(), StoreError> {
        let mut conn = self.store.conn().await?;
        // SKIP_LOCKED: when another worker is already vacuuming, there is nothing to add.
        // ANALYZE: the claims are prepared statements, planned from the table's statistics;
        // statistics taken when the queue held a few rows make a plan that walks a whole
        // index once it holds thousands (measured: 3–7 ms per claim at 50,000 rows, against
        // well under 1 ms by key). Fresh statistics also make every connection re-plan.
        diesel::sql_query("VACUUM (ANALYZE, SKIP_LOCKED) webhook_queue")
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }
}

/// An announcement's payload: comma-separated delivery ids, or empty when there were too
/// many to name (then, and for anything unreadable, the workers search).
fn read_announcement(payload: &str, wakeup: &mut Wakeup) {
    if payload.is_empty() {
        // Too many to name: a burst.
        wakeup.search = true;
        wakeup.burst = true;
        return;
    }
    for id in payload.split(',') {
        match Uuid::parse_str(id) {
            Ok(id) => wakeup.announced.push(EventId::from_uuid(id)),
            Err(_) => wakeup.search = true,
        }
    }
}
