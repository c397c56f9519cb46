//! Idempotency keys (D14). One statement claims a key: insert it, or take over a key
//! that expired or was left `processing` by a crashed request. A request that runs in one
//! transaction instead looks at the key first (a read, before the transaction) and records
//! its answer once, at the end, under the key's lock: one statement and one row version
//! per create instead of a claim, an insert and an update.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Bytea, Int4, Int8, Nullable, Text, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use stablepay_domain::ports::{
    IdempotencyClaim, IdempotencyScope, IdempotencyStore, RecordOutcome, StoreError, StoredResponse,
};

use crate::diesel_internals::Prepared;
use crate::error::map_diesel_error;
use crate::schema::idempotency_keys as ik;
use crate::PgStore;

#[derive(QueryableByName)]
struct Claimed {
    #[diesel(sql_type = Bool)]
    #[allow(dead_code)]
    claimed: bool,
}

/// The key's transaction-scoped advisory lock, taken without waiting (`$1`..`$4`: merchant,
/// livemode, route, key): `CLAIM_SQL` and `RECORD_SQL` take it, so a duplicate of either is
/// "in flight" at once instead of queueing.
macro_rules! key_lock {
    () => {
        "pg_try_advisory_xact_lock(hashtextextended($1::text || $2::text || $3 || ' ' || $4, 0))"
    };
}

/// Whether a stored row may be taken over (`k`: the row, `$5`: the request's hash, `$6`:
/// seconds after which a `processing` row counts as abandoned).
macro_rules! reusable {
    () => {
        "(k.expires_at <= now()
       OR (k.state = 'processing' AND k.locked_at < now() - make_interval(secs => $6)
           AND k.request_sha256 = $5))"
    };
}

/// `sql` with the parameters every statement here shares bound: `$1`..`$4` the scope,
/// `$5` the request's hash, `$6` the stale period in seconds.
macro_rules! scoped_query {
    ($sql:expr, $scope:expr, $hash:expr, $stale:expr) => {
        diesel::sql_query($sql)
            .bind::<SqlUuid, _>($scope.merchant_id.uuid())
            .bind::<Bool, _>($scope.mode.is_live())
            .bind::<Text, _>(&$scope.route)
            .bind::<Text, _>(&$scope.key)
            .bind::<Bytea, _>($hash.to_vec())
            .bind::<Int8, _>($stale)
    };
}

/// A claim (the `write` policy; it commits on its own) first takes the key's advisory lock
/// without waiting, as `RECORD_SQL` does: one racing a concurrent claim or record of the
/// same key is answered "in flight" at once instead of queueing behind it.
const CLAIM_SQL: &str = concat!(
    "
WITH lock AS (SELECT ",
    key_lock!(),
    " AS got)
INSERT INTO idempotency_keys AS k
    (merchant_id, livemode, route, key, request_sha256, state, locked_at, expires_at)
SELECT $1, $2, $3, $4, $5, 'processing', now(), now() + interval '24 hours' FROM lock WHERE lock.got
ON CONFLICT (merchant_id, livemode, route, key) DO UPDATE
    SET request_sha256 = EXCLUDED.request_sha256, state = 'processing', response_status = NULL,
        response_body = NULL, locked_at = now(), expires_at = EXCLUDED.expires_at
    WHERE ",
    reusable!(),
    "
RETURNING true AS claimed"
);

/// What a key holds (`lookup`).
const LOOKUP_SQL: &str = concat!(
    "
SELECT k.request_sha256, k.state, k.response_status, k.response_body,
    (k.merchant_id IS NULL OR COALESCE(",
    reusable!(),
    ", false)) AS reusable
FROM (SELECT 1) AS one LEFT JOIN idempotency_keys k
    ON k.merchant_id = $1 AND k.livemode = $2 AND k.route = $3 AND k.key = $4"
);

/// The answer, stored once, under the key's advisory lock taken without waiting (it is
/// then held to the commit): a duplicate storing its answer right now holds that lock and
/// this one is "in flight" at once, never queued; a row with another request's committed
/// answer is left as it is ("superseded").
const RECORD_SQL: &str = concat!(
    "
WITH lock AS (SELECT ",
    key_lock!(),
    " AS got),
stored AS (
INSERT INTO idempotency_keys AS k (merchant_id, livemode, route, key, request_sha256, state,
    locked_at, expires_at, response_status, response_body)
SELECT $1, $2, $3, $4, $5, 'completed', now(), now() + interval '24 hours', $7, $8
FROM lock WHERE lock.got
ON CONFLICT (merchant_id, livemode, route, key) DO UPDATE
    SET request_sha256 = EXCLUDED.request_sha256, state = 'completed',
        response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
        locked_at = now(), expires_at = EXCLUDED.expires_at
    WHERE ",
    reusable!(),
    "
RETURNING 1)
SELECT lock.got, EXISTS (SELECT 1 FROM stored) AS stored FROM lock"
);

/// What `RECORD_SQL` did.
#[derive(QueryableByName)]
struct Recording {
    #[diesel(sql_type = Bool)]
    got: bool,
    #[diesel(sql_type = Bool)]
    stored: bool,
}

#[derive(QueryableByName)]
struct Held {
    #[diesel(sql_type = Nullable<Bytea>)]
    request_sha256: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Text>)]
    state: Option<String>,
    #[diesel(sql_type = Nullable<Int4>)]
    response_status: Option<i32>,
    #[diesel(sql_type = Nullable<Text>)]
    response_body: Option<String>,
    #[diesel(sql_type = Bool)]
    reusable: bool,
}

/// What a key holds, for a request that did not get to write it.
fn verdict(
    request_sha256: &[u8; 32],
    stored_hash: &[u8],
    state: &str,
    status: Option<i32>,
    body: Option<String>,
) -> IdempotencyClaim {
    match (status, body) {
        _ if stored_hash != request_sha256 => IdempotencyClaim::BodyMismatch,
        (Some(status), Some(body)) if state == "completed" => {
            IdempotencyClaim::Replay(StoredResponse {
                status: u16::try_from(status).unwrap_or(500),
                body,
            })
        }
        _ => IdempotencyClaim::InFlight,
    }
}

#[async_trait]
impl IdempotencyStore for PgStore {
    async fn claim(
        &self,
        scope: &IdempotencyScope,
        request_sha256: [u8; 32],
        stale_after_secs: i64,
    ) -> Result<IdempotencyClaim, StoreError> {
        let conn = self.shared_conn().await?;
        let claimed = Prepared(scoped_query!(
            CLAIM_SQL,
            scope,
            request_sha256,
            stale_after_secs
        ))
        .get_result::<Claimed>(&mut &*conn)
        .await
        .optional()
        .map_err(map_diesel_error)?;
        if claimed.is_some() {
            return Ok(IdempotencyClaim::Acquired);
        }
        let existing: Option<(Vec<u8>, String, Option<i32>, Option<String>)> = ik::table
            .filter(ik::merchant_id.eq(scope.merchant_id.uuid()))
            .filter(ik::livemode.eq(scope.mode.is_live()))
            .filter(ik::route.eq(&scope.route))
            .filter(ik::key.eq(&scope.key))
            .select((
                ik::request_sha256,
                ik::state,
                ik::response_status,
                ik::response_body,
            ))
            .first(&mut &*conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        Ok(match existing {
            // Released between our insert attempt and this read: the caller may retry.
            None => IdempotencyClaim::InFlight,
            Some((hash, state, status, body)) => {
                verdict(&request_sha256, &hash, &state, status, body)
            }
        })
    }

    async fn complete(
        &self,
        scope: &IdempotencyScope,
        response: &StoredResponse,
    ) -> Result<(), StoreError> {
        let conn = self.shared_conn().await?;
        Prepared(
            diesel::update(ik::table)
                .filter(ik::merchant_id.eq(scope.merchant_id.uuid()))
                .filter(ik::livemode.eq(scope.mode.is_live()))
                .filter(ik::route.eq(&scope.route))
                .filter(ik::key.eq(&scope.key))
                .set((
                    ik::state.eq("completed"),
                    ik::response_status.eq(i32::from(response.status)),
                    ik::response_body.eq(&response.body),
                )),
        )
        .execute(&mut &*conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn release(&self, scope: &IdempotencyScope) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::delete(ik::table)
            .filter(ik::merchant_id.eq(scope.merchant_id.uuid()))
            .filter(ik::livemode.eq(scope.mode.is_live()))
            .filter(ik::route.eq(&scope.route))
            .filter(ik::key.eq(&scope.key))
            .filter(ik::state.eq("processing"))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn lookup(
        &self,
        scope: &IdempotencyScope,
        request_sha256: [u8; 32],
        stale_after_secs: i64,
    ) -> Result<IdempotencyClaim, StoreError> {
        let conn = self.shared_conn().await?;
        let row: Held = Prepared(scoped_query!(
            LOOKUP_SQL,
            scope,
            request_sha256,
            stale_after_secs
        ))
        .get_result(&mut &*conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(match (row.reusable, row.request_sha256, row.state) {
            (false, Some(hash), Some(state)) => verdict(
                &request_sha256,
                &hash,
                &state,
                row.response_status,
                row.response_body,
            ),
            _ => IdempotencyClaim::Acquired,
        })
    }

    async fn record(
        &self,
        scope: &IdempotencyScope,
        request_sha256: [u8; 32],
        response: &StoredResponse,
        stale_after_secs: i64,
    ) -> Result<RecordOutcome, StoreError> {
        let conn = self.shared_conn().await?;
        let row: Recording = Prepared(
            scoped_query!(RECORD_SQL, scope, request_sha256, stale_after_secs)
                .bind::<Int4, _>(i32::from(response.status))
                .bind::<Text, _>(&response.body),
        )
        .get_result(&mut &*conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(match (row.got, row.stored) {
            (false, _) => RecordOutcome::InFlight,
            (true, true) => RecordOutcome::Recorded,
            (true, false) => RecordOutcome::Superseded,
        })
    }
}
