//! The subscription store after a manager rotation (issue 29): ids are unique per
//! (chain, manager), and the watcher learns which managers still hold live subscriptions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::SubscriptionStore;
use stablepay_domain::{Address, ChainId};
use stablepay_postgres::testing::{fixtures, fresh_store, new_merchant};

fn manager(byte: u8) -> Address {
    Address::parse(&format!("0x{}", format!("{byte:02x}").repeat(20))).unwrap()
}

#[tokio::test]
async fn each_manager_numbers_its_own_subscriptions() {
    let (store, _) = fresh_store().await;
    let m = new_merchant(&store, "M").await;
    fixtures::subscription_on(&store, m, "active", 0xa1, 0x01, "1")
        .await
        .unwrap();
    // The new manager's first subscription is id 1 too.
    fixtures::subscription_on(&store, m, "active", 0xa2, 0x02, "1")
        .await
        .unwrap();
    let twice = fixtures::subscription_on(&store, m, "active", 0xa3, 0x02, "1").await;
    assert!(
        twice.is_err_and(|e| e.contains("subscriptions_one_per_manager_id")),
        "one manager's id is one subscription"
    );
    let on_old = store
        .subscription_by_chain_id(ChainId::Base, manager(0x01), 1)
        .await
        .unwrap()
        .unwrap();
    let on_new = store
        .subscription_by_chain_id(ChainId::Base, manager(0x02), 1)
        .await
        .unwrap()
        .unwrap();
    assert_ne!(on_old.subscription.id, on_new.subscription.id);
    assert_eq!(
        (on_old.manager, on_new.manager),
        (manager(0x01), manager(0x02))
    );
}

#[tokio::test]
async fn managers_in_use_are_those_holding_recorded_subscriptions_on_the_chain() {
    let (store, _) = fresh_store().await;
    let m = new_merchant(&store, "M").await;
    assert_eq!(store.managers_in_use(ChainId::Base).await.unwrap(), []);
    let mut id = 0;
    let mut add = |status: &'static str, manager: u8| {
        id += 1;
        let store = &store;
        let chain_id = id.to_string();
        async move {
            fixtures::subscription_on(store, m, status, 0xa1, manager, &chain_id)
                .await
                .unwrap();
        }
    };
    for status in ["active", "past_due", "paused", "pending"] {
        add(status, 0x01).await;
    }
    add("active", 0x03).await;
    add("paused", 0x03).await;
    add("past_due", 0x02).await;
    // A manager whose subscriptions all ended is still read: a charge in flight at the
    // cancel may be mined and must be booked.
    add("canceled", 0x04).await;
    add("expired", 0x04).await;
    assert_eq!(
        store.managers_in_use(ChainId::Base).await.unwrap(),
        [manager(0x01), manager(0x02), manager(0x03), manager(0x04)]
    );
    // The fixtures' subscriptions are all on Base.
    assert_eq!(
        store.managers_in_use(ChainId::BaseSepolia).await.unwrap(),
        []
    );
}
