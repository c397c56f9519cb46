//! Idempotency records in a request's transaction, against a real PostgreSQL: a record kept
//! or dropped with its transaction, a duplicate in flight while the first commits.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::*;
use stablepay_postgres::testing::{execute_sql, idempotency_scope, store_with_merchant};
use stablepay_postgres::PgStore;
use stablepay_request_store::RequestStore;

async fn count(store: &PgStore, sql: &str) -> usize {
    execute_sql(store, sql).await.unwrap()
}

async fn in_transaction<T>(
    store: &PgStore,
    commit: bool,
    work: impl AsyncFnOnce(&dyn Storage) -> T,
) -> T {
    let unit = store.open_atomic().await.unwrap();
    unit.begin().unwrap().await.unwrap();
    let out = work(unit.ports()).await;
    unit.finish(commit).await.unwrap();
    out
}

/// One request transaction that finds the key free, answers and commits.
async fn look_and_record(store: &PgStore, scope: &IdempotencyScope, response: &StoredResponse) {
    assert_eq!(
        store.lookup(scope, [1; 32], 60).await.unwrap(),
        IdempotencyLook::Free
    );
    in_transaction(store, true, async |tx| {
        assert_eq!(
            tx.idempotency()
                .record(scope, [1; 32], response, 60)
                .await
                .unwrap(),
            RecordOutcome::Recorded
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_key_is_recorded_once_and_a_duplicate_is_in_flight_while_it_commits_then_superseded() {
    let (store, m) = store_with_merchant().await;
    let s = idempotency_scope(m, "r1");
    let response = StoredResponse {
        status: 201,
        body: r#"{"id":"cs_1"}"#.into(),
    };
    // A rolled-back record leaves nothing.
    in_transaction(&store, false, async |tx| {
        assert_eq!(
            tx.idempotency()
                .record(&s, [1; 32], &response, 60)
                .await
                .unwrap(),
            RecordOutcome::Recorded
        );
    })
    .await;
    assert_eq!(count(&store, "SELECT 1 FROM idempotency_keys").await, 0);

    // Look, answer, commit: one completed row, which replays; another body is refused.
    look_and_record(&store, &s, &response).await;
    assert_eq!(
        count(
            &store,
            "SELECT 1 FROM idempotency_keys WHERE key = 'r1' AND state = 'completed' AND response_status = 201"
        )
        .await,
        1
    );
    assert_eq!(
        store.lookup(&s, [1; 32], 60).await.unwrap(),
        IdempotencyLook::Replay(response.clone())
    );
    assert_eq!(
        store.lookup(&s, [2; 32], 60).await.unwrap(),
        IdempotencyLook::BodyMismatch
    );

    // Two requests past the look at once: while the first's answer is uncommitted the
    // second is told "in flight" at once (never queued); after the commit a third finds
    // the answer there, overwrites nothing, and says so.
    let late = idempotency_scope(m, "r2");
    let winner = StoredResponse {
        status: 201,
        body: "winner".into(),
    };
    let loser = StoredResponse {
        status: 201,
        body: "loser".into(),
    };
    let unit = store.open_atomic().await.unwrap();
    unit.begin().unwrap().await.unwrap();
    assert_eq!(
        unit.ports()
            .idempotency()
            .record(&late, [1; 32], &winner, 60)
            .await
            .unwrap(),
        RecordOutcome::Recorded
    );
    let during = in_transaction(&store, false, async |tx| {
        tx.idempotency()
            .record(&late, [1; 32], &loser, 60)
            .await
            .unwrap()
    })
    .await;
    assert_eq!(during, RecordOutcome::InFlight);
    unit.finish(true).await.unwrap();
    drop(unit);
    let after = in_transaction(&store, false, async |tx| {
        tx.idempotency()
            .record(&late, [1; 32], &loser, 60)
            .await
            .unwrap()
    })
    .await;
    assert_eq!(after, RecordOutcome::Superseded);
    assert_eq!(
        count(
            &store,
            "SELECT 1 FROM idempotency_keys WHERE key = 'r2' AND response_body = 'winner'"
        )
        .await,
        1
    );

    // A row left processing: taken over after the stale period with the same body only.
    let mid = m.uuid();
    execute_sql(&store, &format!(
        "INSERT INTO idempotency_keys (merchant_id, livemode, route, key, request_sha256, state, locked_at, expires_at) VALUES
           ('{mid}', false, 'POST /api/v1/checkout/sessions', 'stale', '\\x0101010101010101010101010101010101010101010101010101010101010101', 'processing', now() - interval '2 minutes', now() + interval '1 day'),
           ('{mid}', false, 'POST /api/v1/checkout/sessions', 'fresh', '\\x0101010101010101010101010101010101010101010101010101010101010101', 'processing', now(), now() + interval '1 day')"
    )).await.unwrap();
    let (stale, fresh) = (idempotency_scope(m, "stale"), idempotency_scope(m, "fresh"));
    assert_eq!(
        store.lookup(&fresh, [1; 32], 60).await.unwrap(),
        IdempotencyLook::InFlight
    );
    assert_eq!(
        store.lookup(&stale, [2; 32], 60).await.unwrap(),
        IdempotencyLook::BodyMismatch
    );
    look_and_record(&store, &stale, &response).await;
    assert_eq!(
        store.lookup(&stale, [1; 32], 60).await.unwrap(),
        IdempotencyLook::Replay(response)
    );
}

/// `authenticate_and_look`: the key's check and its `Idempotency-Key`'s look are one
/// statement, scoped by the key's own merchant and mode, with or without a lease; an
/// unknown or revoked key gets neither.
#[tokio::test(flavor = "multi_thread")]
async fn a_key_is_checked_and_its_idempotency_key_looked_at_in_one_statement() {
    use stablepay_domain::rules::api_keys;
    use stablepay_domain::Mode;
    let (store, m) = store_with_merchant().await;
    let test_key = store.create_api_key(m, Mode::Test, None).await.unwrap();
    let live_key = store.create_api_key(m, Mode::Live, None).await.unwrap();
    let (test_hash, live_hash) = (
        api_keys::hash(&test_key.secret),
        api_keys::hash(&live_key.secret),
    );
    let scope = idempotency_scope(m, "asked");
    let ask = |request_sha256| IdempotencyAsk {
        route: scope.route.clone(),
        key: scope.key.clone(),
        request_sha256,
        stale_after_secs: 60,
    };
    let lease = Some(RateLease {
        tokens: 2,
        default_per_min: 120,
    });
    let look = |hash, lease, asked: IdempotencyAsk| {
        let store = store.clone();
        async move {
            let (found, looked) = store
                .authenticate_and_look(hash, lease, &asked)
                .await
                .unwrap()
                .expect("the key stands");
            (
                found.context.merchant_id,
                found.context.mode,
                found.lease,
                looked,
            )
        }
    };
    let (merchant, mode, leased, looked) = look(test_hash, None, ask([1; 32])).await;
    assert_eq!(
        (merchant, mode, leased),
        (m, Mode::Test, LeaseOutcome::NotAsked)
    );
    assert_eq!(looked, IdempotencyLook::Free);

    let response = StoredResponse {
        status: 201,
        body: r#"{"id":"cs_1"}"#.into(),
    };
    look_and_record(&store, &scope, &response).await;
    let (.., looked) = look(test_hash, None, ask([1; 32])).await;
    assert_eq!(looked, IdempotencyLook::Replay(response.clone()));
    let (_, _, leased, looked) = look(test_hash, lease, ask([2; 32])).await;
    assert_eq!(leased, LeaseOutcome::Granted(2));
    assert_eq!(looked, IdempotencyLook::BodyMismatch);
    // The same route and key under the live key: another scope, nothing held.
    let (_, mode, _, looked) = look(live_hash, lease, ask([1; 32])).await;
    assert_eq!((mode, looked), (Mode::Live, IdempotencyLook::Free));

    // A revoked key, or one that never was, gets no look.
    execute_sql(
        &store,
        &format!(
            "UPDATE api_keys SET revoked_at = now() WHERE id = '{}'",
            test_key.id.uuid()
        ),
    )
    .await
    .unwrap();
    for hash in [test_hash, [9; 32]] {
        for lease in [None, lease] {
            let found = store
                .authenticate_and_look(hash, lease, &ask([1; 32]))
                .await;
            assert!(found.unwrap().is_none());
        }
    }
}
