//! The assumptions `src/diesel_internals.rs` makes about diesel, each checked against a
//! real PostgreSQL on a one-connection pool (so every call below uses the same backend
//! unless that connection was thrown away). A diesel or diesel-async bump that breaks one
//! fails here first.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use stablepay_domain::ports::*;
use stablepay_domain::services::create_api_key;
use stablepay_domain::{FeeTier, MerchantId, Mode};
use stablepay_postgres::testing::{
    atomic_unit_backend_pid, backend_pid, execute_sql, fresh_database, idempotency_scope,
};
use stablepay_postgres::{PgStore, PoolConfig, SecretCipher};
use stablepay_request_store::RequestStore;

async fn one_connection_store() -> PgStore {
    one_connection_store_on(&fresh_database().await)
}

fn one_connection_store_on(url: &str) -> PgStore {
    let config = PoolConfig {
        max_connections: 1,
        acquire_timeout: Duration::from_secs(5),
        shards: 1,
    };
    PgStore::connect(url, &config, SecretCipher::new(&[7u8; 32]).unwrap()).unwrap()
}

async fn rows(store: &PgStore, sql: &str) -> usize {
    execute_sql(store, sql).await.unwrap()
}

/// `Prepared`: a raw statement diesel would not cache is prepared once per connection
/// and reused; the same statement without it is never prepared.
#[tokio::test]
async fn a_prepared_raw_statement_is_cached_per_connection_and_a_plain_one_is_not() {
    let store = one_connection_store().await;
    let scope = idempotency_scope(MerchantId::generate(), "cached");
    for _ in 0..3 {
        // `lookup` is a `Prepared` `sql_query`.
        let seen = store.lookup(&scope, [1; 32], 60).await.unwrap();
        assert_eq!(seen, IdempotencyLook::Free);
        rows(&store, "SELECT 1 AS plain_statement_marker").await;
    }
    let prepared = |marker: &str| {
        format!("SELECT 1 FROM pg_prepared_statements WHERE statement LIKE '%{marker}%' AND statement NOT LIKE '%pg_prepared_statements%'")
    };
    assert_eq!(rows(&store, &prepared("(SELECT 1) AS one")).await, 1);
    assert_eq!(rows(&store, &prepared("plain_statement_marker")).await, 0);
}

/// `open_transaction` / `send_begin` / `end_transaction`: what the unit writes after `begin` is inside
/// one transaction (a rollback undoes it, a commit keeps it), and a unit dropped with its
/// transaction open never hands that connection to the next request.
#[tokio::test]
async fn a_units_transaction_commits_or_rolls_back_and_an_abandoned_one_is_discarded() {
    let store = one_connection_store().await;
    let merchant = MerchantId::generate();
    let response = StoredResponse {
        status: 201,
        body: "{}".into(),
    };
    for (key, commit) in [("rolled-back", false), ("committed", true)] {
        let scope = idempotency_scope(merchant, key);
        let unit = store.open_atomic().await.unwrap();
        let (begun, looked) = futures_util::future::join(
            unit.begin().unwrap(),
            unit.ports().idempotency().lookup(&scope, [1; 32], 60),
        )
        .await;
        begun.unwrap();
        assert_eq!(looked.unwrap(), IdempotencyLook::Free);
        let recorded = unit
            .ports()
            .idempotency()
            .record(&scope, [1; 32], &response, 60)
            .await
            .unwrap();
        assert_eq!(recorded, RecordOutcome::Recorded);
        unit.finish(commit).await.unwrap();
        drop(unit);
        let stored = rows(
            &store,
            &format!("SELECT 1 FROM idempotency_keys WHERE key = '{key}'"),
        )
        .await;
        assert_eq!(stored, usize::from(commit), "{key}");
    }
    // A second begin is refused (a request transaction never nests).
    let unit = store.open_atomic().await.unwrap();
    unit.begin().unwrap().await.unwrap();
    assert!(unit.begin().is_err());
    unit.finish(false).await.unwrap();
    drop(unit);

    // Abandoned mid-transaction (a client that went away): the pool drops the connection.
    let (unit, abandoned) = atomic_unit_backend_pid(&store).await;
    unit.begin().unwrap().await.unwrap();
    drop(unit);
    let next = backend_pid(&store).await;
    assert_ne!(
        next, abandoned,
        "a connection left in a transaction was reused"
    );
}

async fn commit(
    unit: &dyn stablepay_request_store::AtomicUnit,
    scope: &IdempotencyScope,
    hash: [u8; 32],
    body: &str,
) -> Result<RecordOutcome, StoreError> {
    let response = StoredResponse {
        status: 201,
        body: body.into(),
    };
    unit.commit_with_answer(scope, hash, &response, 60).await
}

/// `commit_behind`: the answer and the `COMMIT` travel together; a refused answer leaves
/// the transaction aborted, so the `COMMIT` rolls back what the unit wrote. The first
/// refusal runs on a connection that has never prepared the statement (prepared under the
/// statement cache's lock, which the `COMMIT` waits for): were the `COMMIT` to overtake
/// it, the unit's write would stay committed.
#[tokio::test]
async fn an_answer_commits_with_the_unit_or_rolls_it_back_when_refused() {
    let url = fresh_database().await;
    let (store, other) = (one_connection_store_on(&url), one_connection_store_on(&url));
    let merchant = MerchantId::generate();
    let answer = |body: &str| StoredResponse {
        status: 201,
        body: body.into(),
    };
    let stored_body = |key: &'static str| {
        let store = &store;
        async move {
            stablepay_postgres::testing::query_strings(
                store,
                &format!("SELECT response_body AS value FROM idempotency_keys WHERE key = '{key}'"),
            )
            .await
            .unwrap()
        }
    };
    // Another connection commits the first answer under "taken".
    let first = other.open_atomic().await.unwrap();
    first.begin().unwrap().await.unwrap();
    let taken = idempotency_scope(merchant, "taken");
    let outcome = commit(&*first, &taken, [1; 32], "first").await;
    assert_eq!(outcome.unwrap(), RecordOutcome::Recorded);
    first.finish(false).await.unwrap();
    drop(first);

    // This connection writes a row (an API key: nothing that records an answer, so the
    // answer's statement is still unprepared here), then answers under the taken key:
    // refused, rolled back.
    let owner = other
        .create_merchant("Owner", FeeTier::Standard)
        .await
        .unwrap();
    let unit = store.open_atomic().await.unwrap();
    unit.begin().unwrap().await.unwrap();
    let by = stablepay_domain::Changer::OPERATOR;
    let keys = unit.ports().key_manager();
    let key = create_api_key(owner.id, Mode::Test, None, &by, keys, &SystemClock).await;
    key.unwrap();
    let outcome = commit(&*unit, &taken, [1; 32], "second").await;
    assert_eq!(outcome.unwrap(), RecordOutcome::Superseded);
    unit.finish(true).await.unwrap();
    drop(unit);
    let owned_keys = format!(
        "SELECT id::text AS value FROM api_keys WHERE merchant_id = '{}'",
        owner.id.uuid()
    );
    let kept = stablepay_postgres::testing::query_strings(&store, &owned_keys).await;
    assert!(kept.unwrap().is_empty(), "rolled back");
    assert_eq!(stored_body("taken").await, ["first"]);

    let written = idempotency_scope(merchant, "written");

    // A key whose answer another transaction holds right now: in flight, rolled back.
    let holder = other.open_atomic().await.unwrap();
    holder.begin().unwrap().await.unwrap();
    let held = idempotency_scope(merchant, "held");
    let ports = holder.ports().idempotency();
    let recorded = ports.record(&held, [3; 32], &answer("holder"), 60).await;
    assert_eq!(recorded.unwrap(), RecordOutcome::Recorded);
    let unit = store.open_atomic().await.unwrap();
    unit.begin().unwrap().await.unwrap();
    let ports = unit.ports().idempotency();
    let recorded = ports.record(&written, [2; 32], &answer("w"), 60).await;
    assert_eq!(recorded.unwrap(), RecordOutcome::Recorded);
    let outcome = commit(&*unit, &held, [3; 32], "late").await;
    assert_eq!(outcome.unwrap(), RecordOutcome::InFlight);
    drop(unit);
    holder.finish(true).await.unwrap();
    drop(holder);
    assert!(stored_body("written").await.is_empty(), "rolled back");
    assert_eq!(stored_body("held").await, ["holder"]);

    // Stored: the unit's write and the answer commit together, and the connection is
    // reused (no transaction left open on it).
    let pid = backend_pid(&store).await;
    let unit = store.open_atomic().await.unwrap();
    unit.begin().unwrap().await.unwrap();
    let ports = unit.ports().idempotency();
    let recorded = ports.record(&written, [2; 32], &answer("w"), 60).await;
    assert_eq!(recorded.unwrap(), RecordOutcome::Recorded);
    let fresh = idempotency_scope(merchant, "fresh");
    let outcome = commit(&*unit, &fresh, [4; 32], "new").await;
    assert_eq!(outcome.unwrap(), RecordOutcome::Recorded);
    assert!(commit(&*unit, &fresh, [4; 32], "again").await.is_err());
    drop(unit);
    assert_eq!(stored_body("written").await, ["w"]);
    assert_eq!(stored_body("fresh").await, ["new"]);
    assert_eq!(
        backend_pid(&store).await,
        pid,
        "the connection was thrown away"
    );
}
