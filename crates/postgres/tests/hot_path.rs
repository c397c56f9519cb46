//! The unit of work, the shared rate budget and retention against a real PostgreSQL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::*;
use stablepay_domain::rules::api_keys;
use stablepay_domain::services::{purge_expired_records, RetentionPolicy};
use stablepay_domain::*;
use stablepay_postgres::testing::{execute_sql, idempotency_scope, store_with_merchant};
use stablepay_postgres::PgStore;

async fn count(store: &PgStore, sql: &str) -> usize {
    execute_sql(store, sql).await.unwrap()
}

/// Runs `work` in the transaction of an atomic-write unit of work, then commits it or not.
async fn in_transaction<T>(
    store: &PgStore,
    commit: bool,
    work: impl AsyncFnOnce(&dyn Storage) -> T,
) -> T {
    let unit = store.open(Access::AtomicWrite, None).await.unwrap();
    unit.begin().unwrap().await.unwrap();
    let out = work(unit.ports()).await;
    unit.finish(commit).await.unwrap();
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_transaction_keeps_or_drops_its_claim_and_never_blocks_a_duplicate() {
    let (store, m) = store_with_merchant().await;
    let other = store.clone();
    let (s, dup) = (idempotency_scope(m, "k1"), idempotency_scope(m, "k1"));
    in_transaction(&store, false, async |tx| {
        assert_eq!(
            tx.idempotency().claim(&s, [1; 32], 60).await.unwrap(),
            IdempotencyClaim::Acquired
        );
        // A duplicate on another task (its own connection) is told "in flight" at once,
        // not queued behind this uncommitted claim.
        let seen = tokio::spawn(async move { other.claim(&dup, [1; 32], 60).await.unwrap() })
            .await
            .unwrap();
        assert_eq!(seen, IdempotencyClaim::InFlight);
    })
    .await;
    assert_eq!(
        count(&store, "SELECT 1 FROM idempotency_keys").await,
        0,
        "rolled back"
    );

    let response = StoredResponse {
        status: 201,
        body: "{}".into(),
    };
    in_transaction(&store, true, async |tx| {
        assert_eq!(
            tx.idempotency().claim(&s, [1; 32], 60).await.unwrap(),
            IdempotencyClaim::Acquired
        );
        tx.idempotency().complete(&s, &response).await.unwrap();
    })
    .await;
    assert_eq!(
        store.claim(&s, [1; 32], 60).await.unwrap(),
        IdempotencyClaim::Replay(response)
    );
}

/// One request transaction that finds the key free, answers and commits.
async fn look_and_record(store: &PgStore, scope: &IdempotencyScope, response: &StoredResponse) {
    assert_eq!(
        store.lookup(scope, [1; 32], 60).await.unwrap(),
        IdempotencyClaim::Acquired
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
        IdempotencyClaim::Replay(response.clone())
    );
    assert_eq!(
        store.lookup(&s, [2; 32], 60).await.unwrap(),
        IdempotencyClaim::BodyMismatch
    );
    // Also through the per-statement claim: the same row answers it.
    assert_eq!(
        store.claim(&s, [1; 32], 60).await.unwrap(),
        IdempotencyClaim::Replay(response.clone())
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
    let unit = store.open(Access::AtomicWrite, None).await.unwrap();
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
        IdempotencyClaim::InFlight
    );
    assert_eq!(
        store.lookup(&stale, [2; 32], 60).await.unwrap(),
        IdempotencyClaim::BodyMismatch
    );
    look_and_record(&store, &stale, &response).await;
    assert_eq!(
        store.lookup(&stale, [1; 32], 60).await.unwrap(),
        IdempotencyClaim::Replay(response)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn leases_share_one_budget_per_key_and_a_revoked_key_gets_nothing() {
    let (store, m) = store_with_merchant().await;
    let key = store.create_api_key(m, Mode::Test, Some(3)).await.unwrap();
    let hash = api_keys::hash(&key.secret);
    let lease = |tokens| {
        Some(RateLease {
            tokens,
            default_per_min: 120,
        })
    };
    let granted = |a: Option<Authenticated>| a.unwrap().lease;
    // A budget of 3 a minute (the key's own), taken by two stores as two processes would.
    let second = store.clone();
    assert_eq!(
        granted(store.authenticate(hash, lease(2)).await.unwrap()),
        LeaseOutcome::Granted(2)
    );
    assert_eq!(
        granted(second.authenticate(hash, lease(2)).await.unwrap()),
        LeaseOutcome::Granted(1)
    );
    match granted(store.authenticate(hash, lease(1)).await.unwrap()) {
        LeaseOutcome::Exhausted { retry_after_ms } => {
            assert!((1..=20_000).contains(&retry_after_ms), "{retry_after_ms}")
        }
        other => panic!("expected exhausted, got {other:?}"),
    }
    // Authentication alone takes nothing and still works while the budget is spent.
    assert_eq!(
        granted(store.authenticate(hash, None).await.unwrap()),
        LeaseOutcome::NotAsked
    );
    execute_sql(&store, "UPDATE api_keys SET revoked_at = now()")
        .await
        .unwrap();
    assert!(store.authenticate(hash, lease(1)).await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn retention_deletes_only_what_fell_out_of_it_in_batches() {
    let (store, m) = store_with_merchant().await;
    let mid = m.uuid();
    let old = "now() - interval '31 days'";
    let sql = format!(
        "INSERT INTO idempotency_keys (merchant_id, livemode, route, key, request_sha256, state, locked_at, expires_at) VALUES
           ('{mid}', false, 'POST /x', 'expired1', '\\x00', 'completed', now(), now() - interval '1 second'),
           ('{mid}', false, 'POST /x', 'expired2', '\\x00', 'completed', now(), now() - interval '1 hour'),
           ('{mid}', false, 'POST /x', 'live', '\\x00', 'completed', now(), now() + interval '1 hour');
         INSERT INTO wallets (id, merchant_id, address, chain_id, status, created_at) VALUES
           ('018f0000-0000-7000-8000-000000000001', '{mid}', '0x{zeros}', 84532, 'pending', now());
         INSERT INTO wallet_challenges (id, wallet_id, nonce, message, expires_at, used_at, created_at) VALUES
           (gen_random_uuid(), '018f0000-0000-7000-8000-000000000001', 'n1', 'm', {old}, {old}, {old}),
           (gen_random_uuid(), '018f0000-0000-7000-8000-000000000001', 'n2', 'm', {old}, NULL, {old}),
           (gen_random_uuid(), '018f0000-0000-7000-8000-000000000001', 'n3', 'm', now(), now(), now());
         INSERT INTO webhook_endpoints (id, merchant_id, livemode, url, status, secret_ciphertext, created_at) VALUES
           ('018f0000-0000-7000-8000-0000000000e1', '{mid}', false, 'https://example.com', 'enabled', '\\x00', now());
         INSERT INTO webhook_events (id, merchant_id, livemode, type, endpoint_id, status, payload, created_at, resend_of) VALUES
           ('018f0000-0000-7000-8000-0000000000a1', '{mid}', false, 't', '018f0000-0000-7000-8000-0000000000e1', 'succeeded', '{{}}', {old}, NULL),
           ('018f0000-0000-7000-8000-0000000000a2', '{mid}', false, 't', '018f0000-0000-7000-8000-0000000000e1', 'failed', '{{}}', {old}, NULL),
           ('018f0000-0000-7000-8000-0000000000a3', '{mid}', false, 't', '018f0000-0000-7000-8000-0000000000e1', 'succeeded', '{{}}', {old}, '018f0000-0000-7000-8000-0000000000a1'),
           ('{recent}', '{mid}', false, 't', '018f0000-0000-7000-8000-0000000000e1', 'succeeded', '{{}}', now(), NULL);",
        zeros = "0".repeat(40),
        recent = uuid::Uuid::now_v7(),
    );
    for statement in sql.split(";\n") {
        execute_sql(&store, statement).await.unwrap();
    }
    let policy = RetentionPolicy {
        window_secs: 30 * 86_400,
        batch: 1,
        max_batches: 10,
    };
    let report = purge_expired_records(&store, &SystemClock, &policy)
        .await
        .unwrap();
    assert_eq!(
        report.deleted,
        vec![
            (Purge::ExpiredIdempotencyKeys, 2),
            (Purge::SpentWalletChallenges, 2),
            (Purge::DeliveredWebhookEvents, 2),
        ]
    );
    assert_eq!(
        count(&store, "SELECT 1 FROM idempotency_keys WHERE key = 'live'").await,
        1
    );
    assert_eq!(
        count(&store, "SELECT 1 FROM wallet_challenges WHERE nonce = 'n3'").await,
        1
    );
    // The failed delivery stays (a merchant may still replay it); so does the recent one.
    assert_eq!(count(&store, "SELECT 1 FROM webhook_events").await, 2);
    assert_eq!(
        count(
            &store,
            "SELECT 1 FROM webhook_events WHERE status = 'failed'"
        )
        .await,
        1
    );
    // A second run finds nothing left to delete.
    let again = purge_expired_records(&store, &SystemClock, &policy)
        .await
        .unwrap();
    assert!(again.deleted.iter().all(|(_, n)| *n == 0), "{again:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn merchants_can_be_neither_deleted_nor_re_keyed() {
    // Rows on the hot path name their merchant without a foreign key; this is what keeps
    // them from ever being orphaned.
    let (store, m) = store_with_merchant().await;
    let mid = m.uuid();
    for sql in [
        format!("DELETE FROM merchants WHERE id = '{mid}'"),
        format!("UPDATE merchants SET id = gen_random_uuid() WHERE id = '{mid}'"),
        "TRUNCATE merchants CASCADE".to_owned(),
    ] {
        let refused = execute_sql(&store, &sql).await;
        assert!(refused.is_err(), "{sql} went through");
    }
    assert_eq!(
        count(
            &store,
            &format!("SELECT 1 FROM merchants WHERE id = '{mid}'")
        )
        .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_burst_of_deliveries_is_announced_as_one_and_tidying_refreshes_the_statistics() {
    let (store, url) = stablepay_postgres::testing::fresh_store().await;
    let queue = stablepay_postgres::PgDeliveryQueue::new(store.clone(), &url);
    // The first wait starts listening and asks for a search (nothing was heard before).
    assert!(queue.wait_for_work(100).await.search);
    let (mid, endpoint) = (uuid::Uuid::now_v7(), uuid::Uuid::now_v7());
    execute_sql(
        &store,
        &format!(
        "INSERT INTO merchants (id, name, fee_tier, fee_bps) VALUES ('{mid}', 'M', 'standard', 100)"
    ),
    )
    .await
    .unwrap();
    execute_sql(&store, &format!(
        "INSERT INTO webhook_endpoints (id, merchant_id, livemode, url, status, secret_ciphertext, created_at)
         VALUES ('{endpoint}', '{mid}', false, 'https://example.com/hooks', 'enabled', '\\x00', now())"
    )).await.unwrap();
    let deliveries = |n: u32| {
        format!(
            "INSERT INTO webhook_events (id, merchant_id, livemode, type, endpoint_id, status, attempts, next_attempt_at, payload, created_at)
             SELECT gen_random_uuid(), '{mid}', false, 'payment.succeeded', '{endpoint}', 'pending', 0, now(), '{{}}', now()
             FROM generate_series(1, {n})"
        )
    };
    // Too many to name in one announcement: a burst, which calls for a search.
    execute_sql(&store, &deliveries(250)).await.unwrap();
    let wakeup = queue.wait_for_work(5_000).await;
    assert!(
        wakeup.burst && wakeup.search && wakeup.announced.is_empty(),
        "{wakeup:?}"
    );
    // A few are named, and are no burst.
    execute_sql(&store, &deliveries(3)).await.unwrap();
    let wakeup = queue.wait_for_work(5_000).await;
    assert_eq!(
        (wakeup.announced.len(), wakeup.burst),
        (3, false),
        "{wakeup:?}"
    );
    // Tidying analyzes the queue: the planner then knows its 253 rows.
    assert_eq!(
        count(
            &store,
            "SELECT 1 FROM pg_stats WHERE tablename = 'webhook_queue'"
        )
        .await,
        0
    );
    queue.tidy().await.unwrap();
    assert!(
        count(
            &store,
            "SELECT 1 FROM pg_stats WHERE tablename = 'webhook_queue'"
        )
        .await
            > 0
    );
    assert_eq!(
        count(
            &store,
            "SELECT 1 FROM pg_class WHERE relname = 'webhook_queue' AND reltuples = 253"
        )
        .await,
        1
    );
}
