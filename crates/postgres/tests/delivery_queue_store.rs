//! The delivery queue's announcements against a real PostgreSQL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::DeliveryQueue;
use stablepay_postgres::testing::execute_sql;
use stablepay_postgres::PgStore;

async fn count(store: &PgStore, sql: &str) -> usize {
    execute_sql(store, sql).await.unwrap()
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
