//! Idempotency keys (D14). One statement claims a key: insert it, or take over a key
//! that expired or was left `processing` by a crashed request.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Bytea, Int8, Text, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use stablepay_domain::ports::{
    IdempotencyClaim, IdempotencyScope, IdempotencyStore, StoreError, StoredResponse,
};

use crate::error::map_diesel_error;
use crate::prepared::Prepared;
use crate::schema::idempotency_keys as ik;
use crate::PgStore;

#[derive(QueryableByName)]
struct Claimed {
    #[diesel(sql_type = Bool)]
    #[allow(dead_code)]
    claimed: bool,
}

/// A claim first takes a transaction-scoped advisory lock on the key without waiting:
/// a concurrent duplicate whose claim is still uncommitted (the create and its claim
/// share one transaction) is then answered "in flight" at once instead of queueing
/// behind it.
const CLAIM_SQL: &str = "
WITH lock AS (
    SELECT pg_try_advisory_xact_lock(hashtextextended($1::text || $2::text || $3 || ' ' || $4, 0)) AS got
)
INSERT INTO idempotency_keys AS k
    (merchant_id, livemode, route, key, request_sha256, state, locked_at, expires_at)
SELECT $1, $2, $3, $4, $5, 'processing', now(), now() + interval '24 hours' FROM lock WHERE lock.got
ON CONFLICT (merchant_id, livemode, route, key) DO UPDATE
    SET request_sha256 = EXCLUDED.request_sha256, state = 'processing', response_status = NULL,
        response_body = NULL, locked_at = now(), expires_at = EXCLUDED.expires_at
    WHERE k.expires_at <= now()
       OR (k.state = 'processing' AND k.locked_at < now() - make_interval(secs => $6)
           AND k.request_sha256 = EXCLUDED.request_sha256)
RETURNING true AS claimed";

#[async_trait]
impl IdempotencyStore for PgStore {
    async fn claim(
        &self,
        scope: &IdempotencyScope,
        request_sha256: [u8; 32],
        stale_after_secs: i64,
    ) -> Result<IdempotencyClaim, StoreError> {
        let conn = self.shared_conn().await?;
        let claimed = Prepared(
            diesel::sql_query(CLAIM_SQL)
                .bind::<SqlUuid, _>(scope.merchant_id.uuid())
                .bind::<Bool, _>(scope.mode.is_live())
                .bind::<Text, _>(&scope.route)
                .bind::<Text, _>(&scope.key)
                .bind::<Bytea, _>(request_sha256.to_vec())
                .bind::<Int8, _>(stale_after_secs),
        )
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
            Some((hash, _, _, _)) if hash != request_sha256 => IdempotencyClaim::BodyMismatch,
            Some((_, state, Some(status), Some(body))) if state == "completed" => {
                IdempotencyClaim::Replay(StoredResponse {
                    status: u16::try_from(status).unwrap_or(500),
                    body,
                })
            }
            Some(_) => IdempotencyClaim::InFlight,
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
}
