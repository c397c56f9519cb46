//! Idempotency keys (D14) as the store keeps them.

use super::*;

/// The one protocol (D14), each call on its own: look, then record once; a stored answer
/// replays, another body is refused, a second record is superseded; a row left
/// `processing` (by the claim protocol this replaced, or a crash) is in flight until
/// stale; an expired key starts over.
#[tokio::test(flavor = "multi_thread")]
async fn idempotency_keys_follow_d14() {
    let (store, url) = fresh_store().await;
    let m = new_merchant(&store, "M").await;
    let s = idempotency_scope(m, "k1");
    assert_eq!(
        store.lookup(&s, [1; 32], 60).await.unwrap(),
        IdempotencyLook::Free
    );
    let response = StoredResponse {
        status: 201,
        body: "{\"id\":1}".into(),
    };
    assert_eq!(
        store.record(&s, [1; 32], &response, 60).await.unwrap(),
        RecordOutcome::Recorded
    );
    assert_eq!(
        store.lookup(&s, [1; 32], 60).await.unwrap(),
        IdempotencyLook::Replay(response.clone())
    );
    assert_eq!(
        store.lookup(&s, [2; 32], 60).await.unwrap(),
        IdempotencyLook::BodyMismatch
    );
    let other = StoredResponse {
        status: 201,
        body: "{\"id\":2}".into(),
    };
    assert_eq!(
        store.record(&s, [1; 32], &other, 60).await.unwrap(),
        RecordOutcome::Superseded
    );
    assert_eq!(
        store.lookup(&s, [1; 32], 60).await.unwrap(),
        IdempotencyLook::Replay(response)
    );

    // A key left processing is in flight, and taken over once stale.
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    diesel::sql_query(format!(
        "INSERT INTO idempotency_keys (merchant_id, livemode, route, key, request_sha256, state, locked_at, expires_at)
         VALUES ('{}', false, '{}', 'k2', '\\x{}', 'processing', now(), now() + interval '24 hours')",
        m.uuid(),
        idempotency_scope(m, "k2").route,
        "01".repeat(32)
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let s2 = idempotency_scope(m, "k2");
    assert_eq!(
        store.lookup(&s2, [1; 32], 60).await.unwrap(),
        IdempotencyLook::InFlight
    );
    diesel::sql_query(
        "UPDATE idempotency_keys SET locked_at = now() - interval '61 seconds' WHERE key = 'k2'",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    assert_eq!(
        store.lookup(&s2, [1; 32], 60).await.unwrap(),
        IdempotencyLook::Free
    );
    let taken = StoredResponse {
        status: 200,
        body: "{}".into(),
    };
    assert_eq!(
        store.record(&s2, [1; 32], &taken, 60).await.unwrap(),
        RecordOutcome::Recorded
    );
    // Expired keys (24 h) start over, even with another body.
    diesel::sql_query(
        "UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'k1'",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    assert_eq!(
        store.lookup(&s, [9; 32], 60).await.unwrap(),
        IdempotencyLook::Free
    );
}
