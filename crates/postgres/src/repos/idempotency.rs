//! Idempotency keys (D14). A request looks at its key first (a read, before any
//! transaction) and records its answer once, at the end, under the key's lock: one
//! statement and one row version per request. Rows left `processing` by the claim
//! protocol this replaced are in flight until stale, then taken over.

use async_trait::async_trait;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{Bool, Bytea, Int4, Int8, Nullable, Text, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use stablepay_domain::ports::{
    IdempotencyLook, IdempotencyScope, IdempotencyStore, RecordOutcome, StoreError, StoredResponse,
};

use crate::diesel_internals::Prepared;
use crate::error::map_diesel_error;
use crate::PgStore;

/// Whether a stored row may be taken over (`k`: the row; the parameters: the request's
/// hash, and the seconds after which a `processing` row counts as abandoned).
macro_rules! reusable {
    ($hash:literal, $stale:literal) => {
        concat!(
            "(k.expires_at <= now()
       OR (k.state = 'processing' AND k.locked_at < now() - make_interval(secs => ",
            $stale,
            ")
           AND k.request_sha256 = ",
            $hash,
            "))"
        )
    };
}

/// What a key holds, as `HeldRow` reads it (`k`: the row, none when it is `NULL`).
macro_rules! held_columns {
    ($hash:literal, $stale:literal) => {
        concat!(
            "k.request_sha256, k.state, k.response_status, k.response_body,
    (k.merchant_id IS NULL OR COALESCE(",
            $crate::repos::idempotency::reusable!($hash, $stale),
            ", false)) AS reusable"
        )
    };
}

/// `key_sql` (the statement that authenticates an API key, as `a`) with what the key's
/// own merchant and mode hold under an `Idempotency-Key` (the parameters: route, key,
/// the request's hash, the stale period), for `ApiKeyStore::authenticate_and_look`.
macro_rules! idempotency_look {
    ($key_sql:expr, $route:literal, $key:literal, $hash:literal, $stale:literal) => {
        concat!(
            "SELECT a.*, ",
            $crate::repos::idempotency::held_columns!($hash, $stale),
            "
FROM (",
            $key_sql,
            ") a LEFT JOIN idempotency_keys k
    ON k.merchant_id = a.merchant_id AND k.livemode = a.livemode AND k.route = ",
            $route,
            " AND k.key = ",
            $key
        )
    };
}
pub(crate) use {held_columns, idempotency_look, reusable};

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

/// What a key holds (`lookup`).
const LOOKUP_SQL: &str = concat!(
    "
SELECT ",
    held_columns!("$5", "$6"),
    "
FROM (SELECT 1) AS one LEFT JOIN idempotency_keys k
    ON k.merchant_id = $1 AND k.livemode = $2 AND k.route = $3 AND k.key = $4"
);

/// The answer, stored once (`Answer`, as `WithAnswer` renders it after its parameters),
/// under the key's transaction-scoped advisory lock, taken without waiting and held to
/// the commit: a duplicate storing its answer right now holds that lock and this one is
/// "in flight" at once, never queued; a row with another request's committed answer is
/// left as it is ("superseded"). Either way the statement fails
/// (`idempotency_answer_refused`, volatile so never folded), so the statement's own write
/// and a `COMMIT` sent behind it roll back.
const RECORD_AFTER_PARAMS: &str = concat!(
    "
lock AS (SELECT pg_try_advisory_xact_lock(hashtextextended(
    p.merchant_id::text || p.livemode::text || p.route || ' ' || p.key, 0)) AS got FROM params p),
stored AS (
INSERT INTO idempotency_keys AS k (merchant_id, livemode, route, key, request_sha256, state,
    locked_at, expires_at, response_status, response_body)
SELECT p.merchant_id, p.livemode, p.route, p.key, p.request_sha256, 'completed', now(),
    now() + interval '24 hours', p.status, p.body
FROM params p, lock WHERE lock.got
ON CONFLICT (merchant_id, livemode, route, key) DO UPDATE
    SET request_sha256 = EXCLUDED.request_sha256, state = 'completed',
        response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
        locked_at = now(), expires_at = EXCLUDED.expires_at
    WHERE ",
    reusable!(
        "(SELECT request_sha256 FROM params)",
        "(SELECT stale_secs FROM params)"
    ),
    "
RETURNING 1)
SELECT CASE WHEN NOT lock.got THEN idempotency_answer_refused('in_flight')
    WHEN NOT EXISTS (SELECT 1 FROM stored) THEN idempotency_answer_refused('superseded')
    ELSE true END AS recorded
FROM lock"
);

/// An answer to record under an idempotency key.
pub(crate) struct Answer<'a> {
    merchant_id: uuid::Uuid,
    livemode: bool,
    route: &'a str,
    key: &'a str,
    request_sha256: [u8; 32],
    stale_after_secs: i64,
    status: i32,
    body: &'a str,
}

impl<'a> Answer<'a> {
    pub(crate) fn new(
        scope: &'a IdempotencyScope,
        request_sha256: [u8; 32],
        response: &'a StoredResponse,
        stale_after_secs: i64,
    ) -> Self {
        Self {
            merchant_id: scope.merchant_id.uuid(),
            livemode: scope.mode.is_live(),
            route: &scope.route,
            key: &scope.key,
            request_sha256,
            stale_after_secs,
            status: i32::from(response.status),
            body: &response.body,
        }
    }
}

/// The statement that records an answer: `WITH [written AS (write),] params AS (...)`,
/// then `RECORD_AFTER_PARAMS`. With a write (an atomic unit begun as one statement,
/// `one_statement`), the write and the answer commit together or not at all.
struct WithAnswer<'a> {
    write: Option<&'a (dyn QueryFragment<Pg> + Send + Sync)>,
    answer: &'a Answer<'a>,
}

impl QueryFragment<Pg> for WithAnswer<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("WITH ");
        if let Some(write) = self.write {
            out.push_sql("written AS (");
            write.walk_ast(out.reborrow())?;
            out.push_sql("), ");
        }
        let a = self.answer;
        out.push_sql("params AS (SELECT ");
        out.push_bind_param::<SqlUuid, _>(&a.merchant_id)?;
        out.push_sql("::uuid AS merchant_id, ");
        out.push_bind_param::<Bool, _>(&a.livemode)?;
        out.push_sql("::boolean AS livemode, ");
        out.push_bind_param::<Text, _>(a.route)?;
        out.push_sql("::text AS route, ");
        out.push_bind_param::<Text, _>(a.key)?;
        out.push_sql("::text AS key, ");
        out.push_bind_param::<Bytea, _>(&a.request_sha256[..])?;
        out.push_sql("::bytea AS request_sha256, ");
        out.push_bind_param::<Int8, _>(&a.stale_after_secs)?;
        out.push_sql("::bigint AS stale_secs, ");
        out.push_bind_param::<Int4, _>(&a.status)?;
        out.push_sql("::integer AS status, ");
        out.push_bind_param::<Text, _>(a.body)?;
        out.push_sql("::text AS body),");
        out.push_sql(RECORD_AFTER_PARAMS);
        Ok(())
    }
}

impl QueryId for WithAnswer<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for WithAnswer<'_> {
    type SqlType = Bool;
}

/// What `idempotency_answer_refused` says before its reason.
const REFUSED: &str = "idempotency answer not recorded: ";

/// What a key holds (`held_columns!`).
#[derive(QueryableByName)]
pub(crate) struct HeldRow {
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

impl HeldRow {
    /// What the key holds for a request whose body hashes to `request_sha256`.
    pub(crate) fn verdict(self, request_sha256: &[u8; 32]) -> IdempotencyLook {
        match (self.reusable, self.request_sha256, self.state) {
            (false, Some(hash), Some(state)) => verdict(
                request_sha256,
                &hash,
                &state,
                self.response_status,
                self.response_body,
            ),
            _ => IdempotencyLook::Free,
        }
    }
}

/// What a key holds, for a request that did not get to write it.
fn verdict(
    request_sha256: &[u8; 32],
    stored_hash: &[u8],
    state: &str,
    status: Option<i32>,
    body: Option<String>,
) -> IdempotencyLook {
    match (status, body) {
        _ if stored_hash != request_sha256 => IdempotencyLook::BodyMismatch,
        (Some(status), Some(body)) if state == "completed" => {
            IdempotencyLook::Replay(StoredResponse {
                status: u16::try_from(status).unwrap_or(500),
                body,
            })
        }
        _ => IdempotencyLook::InFlight,
    }
}

/// Records `answer` on `conn` (in its transaction, if any), in one statement with `write`
/// when there is one: `InFlight` or `Superseded` when it stored nothing, and the
/// statement then failed, which undoes `write` and aborts a transaction.
pub(crate) async fn record_answer(
    conn: &AsyncPgConnection,
    write: Option<&(dyn QueryFragment<Pg> + Send + Sync)>,
    answer: &Answer<'_>,
) -> Result<RecordOutcome, StoreError> {
    let recorded: QueryResult<bool> = Prepared(WithAnswer { write, answer })
        .get_result(&mut &*conn)
        .await;
    match recorded {
        Ok(_) => Ok(RecordOutcome::Recorded),
        Err(e) => refusal(&e).ok_or_else(|| map_diesel_error(e)),
    }
}

/// What the recording statement failing says: `InFlight` or `Superseded`, or `None` for any other
/// failure.
fn refusal(e: &diesel::result::Error) -> Option<RecordOutcome> {
    let diesel::result::Error::DatabaseError(_, info) = e else {
        return None;
    };
    match info.message().strip_prefix(REFUSED)? {
        "in_flight" => Some(RecordOutcome::InFlight),
        "superseded" => Some(RecordOutcome::Superseded),
        _ => None,
    }
}

#[async_trait]
impl IdempotencyStore for PgStore {
    async fn lookup(
        &self,
        scope: &IdempotencyScope,
        request_sha256: [u8; 32],
        stale_after_secs: i64,
    ) -> Result<IdempotencyLook, StoreError> {
        let conn = self.shared_conn().await?;
        let row: HeldRow = Prepared(scoped_query!(
            LOOKUP_SQL,
            scope,
            request_sha256,
            stale_after_secs
        ))
        .get_result(&mut &*conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(row.verdict(&request_sha256))
    }

    async fn record(
        &self,
        scope: &IdempotencyScope,
        request_sha256: [u8; 32],
        response: &StoredResponse,
        stale_after_secs: i64,
    ) -> Result<RecordOutcome, StoreError> {
        let conn = self.shared_conn().await?;
        let answer = Answer::new(scope, request_sha256, response, stale_after_secs);
        record_answer(&conn, None, &answer).await
    }
}
