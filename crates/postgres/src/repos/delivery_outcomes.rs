//! Recording a batch of delivery attempts (`DeliveryQueue::record_outcomes`).

use chrono::{DateTime, Utc};
use diesel::sql_types::{Array, Int4, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{DeliveryOutcome, HealthRule, StoreError};
use stablepay_domain::rules::endpoint_health::{batch_health, BatchHealth};
use uuid::Uuid;

use crate::diesel_internals::Prepared;
use crate::error::map_diesel_error;
use crate::PgStore;

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

/// Records attempt results, releases their leases and takes finished deliveries off the
/// queue; endpoint health as the domain's rule judges it.
pub(super) async fn record_outcomes(
    store: &PgStore,
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
    let failed: std::collections::BTreeMap<_, _> = judged
        .into_iter()
        .filter_map(|(id, h)| match h {
            BatchHealth::Failed {
                first_started,
                last_attempted,
            } => Some((id, (first_started, last_attempted))),
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
    let mut conn = store.conn().await?;
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
