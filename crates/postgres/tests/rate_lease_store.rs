//! The shared rate budget (leases per API key) against a real PostgreSQL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::*;
use stablepay_domain::rules::api_keys;
use stablepay_domain::*;
use stablepay_postgres::testing::{execute_sql, store_with_merchant};

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
