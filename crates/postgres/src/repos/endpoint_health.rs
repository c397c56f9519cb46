//! Failing webhook endpoints' records: read and locked, judged by the domain's health
//! rule (`rules::endpoint_health`), and written back as it decided.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use diesel::sql_types::{Array, Bool, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryableByName;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use stablepay_domain::ports::HealthRule;
use stablepay_domain::rules::endpoint_health::{after_failed_batch, FailureRecord, FailureUpdate};
use stablepay_domain::{Timestamp, WebhookEndpointId};
use uuid::Uuid;

use crate::diesel_internals::Prepared;

/// The enabled endpoints among `$1`, locked until the recording transaction ends.
const LOCK_SQL: &str = "
SELECT id, failing_since, last_failed_at FROM webhook_endpoints
WHERE id = ANY ($1) AND status = 'enabled' AND deleted_at IS NULL
ORDER BY id FOR UPDATE";

/// What the rule decided, per endpoint (`$4`: disable, with the reason `$5`).
const WRITE_SQL: &str = "
UPDATE webhook_endpoints e SET failing_since = u.since, last_failed_at = u.last,
    status = CASE WHEN u.disable THEN 'disabled' ELSE e.status END,
    disabled_reason = CASE WHEN u.disable THEN $5 ELSE e.disabled_reason END
FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[], $4::bool[]) AS u(id, since, last, disable)
WHERE e.id = u.id";

#[derive(QueryableByName)]
struct Stored {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    failing_since: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    last_failed_at: Option<DateTime<Utc>>,
}

/// Applies the health rule to endpoints whose batch attempts all failed: `failed` maps
/// each to its batch's first start and last end. Runs inside the caller's
/// transaction.
pub(super) async fn record_failures(
    conn: &mut AsyncPgConnection,
    failed: &BTreeMap<WebhookEndpointId, (Timestamp, Timestamp)>,
    rule: &HealthRule,
) -> diesel::QueryResult<()> {
    let ids: Vec<Uuid> = failed.keys().map(|id| id.uuid()).collect();
    let stored: Vec<Stored> = Prepared(diesel::sql_query(LOCK_SQL).bind::<Array<SqlUuid>, _>(ids))
        .load(conn)
        .await?;
    let (mut ids, mut since, mut last, mut disable) = (vec![], vec![], vec![], vec![]);
    for row in stored {
        let Some((first_started, last_attempted)) =
            failed.get(&WebhookEndpointId::from_uuid(row.id))
        else {
            continue;
        };
        let record = FailureRecord {
            failing_since: row.failing_since.map(Timestamp::new),
            last_failed_at: row.last_failed_at.map(Timestamp::new),
        };
        let (s, l, d) = match after_failed_batch(record, *first_started, *last_attempted, rule) {
            FailureUpdate::Unchanged => continue,
            FailureUpdate::Failing { since, last } => (since, last, false),
            FailureUpdate::Disabled { since, last } => (since, last, true),
        };
        ids.push(row.id);
        since.push(s.as_datetime());
        last.push(l.as_datetime());
        disable.push(d);
    }
    if ids.is_empty() {
        return Ok(());
    }
    Prepared(
        diesel::sql_query(WRITE_SQL)
            .bind::<Array<SqlUuid>, _>(ids)
            .bind::<Array<Timestamptz>, _>(since)
            .bind::<Array<Timestamptz>, _>(last)
            .bind::<Array<Bool>, _>(disable)
            .bind::<Text, _>(&rule.reason),
    )
    .execute(conn)
    .await
    .map(|_| ())
}
