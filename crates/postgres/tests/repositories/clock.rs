//! The store stamps rows with its own clock.

use super::*;

/// The store stamps what it writes on its own with its clock (the `Clock` port), never
/// the wall clock behind it.
#[tokio::test(flavor = "multi_thread")]
async fn the_store_stamps_rows_with_its_clock() {
    let (store, _) = fresh_store().await;
    let clock = std::sync::Arc::new(AdjustableClock::default());
    clock.advance(std::time::Duration::from_secs(400 * 86_400));
    let store = store.with_clock(clock.clone());
    let merchant = store
        .create_merchant("Later", FeeTier::Standard)
        .await
        .unwrap();
    let stored = stablepay_postgres::testing::query_strings(
        &store,
        &format!(
            "SELECT floor(extract(epoch FROM created_at))::bigint::text AS value FROM merchants \
             WHERE id = '{}'",
            merchant.id.uuid()
        ),
    )
    .await
    .unwrap();
    let stored: i64 = stored[0].parse().unwrap();
    let expected = clock.now().unix_seconds();
    assert!(
        (expected - 5..=expected).contains(&stored),
        "stamped {stored}, the clock says {expected}"
    );
    assert!(stored > chrono::Utc::now().timestamp() + 399 * 86_400);
}
