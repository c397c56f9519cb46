//! Retention against a real PostgreSQL: what falls out of it is deleted in batches; merchants
//! are never deleted or re-keyed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::*;
use stablepay_domain::services::{purge_expired_records, RetentionPolicy};
use stablepay_postgres::testing::{execute_sql, store_with_merchant};
use stablepay_postgres::PgStore;

async fn count(store: &PgStore, sql: &str) -> usize {
    execute_sql(store, sql).await.unwrap()
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
