//! A create's verified wallets (`WalletRepository::verified` in an atomic unit whose key
//! was checked) come from this process's last read while the merchant's wallets version
//! stands, and any write of a wallet, by any path, draws a new one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::*;
use stablepay_domain::*;
use stablepay_postgres::testing::{
    execute_sql, key_of, new_merchant, operator_audit, query_strings, store_wallet,
    store_with_merchant,
};
use stablepay_postgres::PgStore;
use stablepay_request_store::{AtomicUnit, RequestStore};

/// An atomic unit that checked the key `hash`, as a create's does first.
async fn checked_unit(store: &PgStore, hash: [u8; 32]) -> Box<dyn AtomicUnit> {
    let unit = store.open_atomic().await.unwrap();
    let key = unit.ports().keys().authenticate(hash, None).await.unwrap();
    key.expect("the key stands");
    unit
}

/// The verified wallets of `merchant` as an atomic unit sees them after checking the key
/// `hash`.
async fn verified_in_unit(store: &PgStore, hash: [u8; 32], merchant: MerchantId) -> Vec<Address> {
    let unit = checked_unit(store, hash).await;
    let wallets = unit.ports().wallets().verified(merchant).await.unwrap();
    wallets.into_iter().map(|w| w.address).collect()
}

/// The merchant's wallets version, as the key check reads it.
async fn wallets_version(store: &PgStore, merchant: MerchantId) -> String {
    let sql = format!(
        "SELECT wallets_version::text AS value FROM merchants WHERE id = '{}'",
        merchant.uuid()
    );
    query_strings(store, &sql).await.unwrap().remove(0)
}

#[tokio::test]
async fn every_write_of_a_wallet_reaches_the_next_create() {
    let (store, m) = store_with_merchant().await;
    let (_, hash, _) = key_of(&store, m, Mode::Test).await;
    let other = new_merchant(&store, "Other").await;
    let (a, b) = (
        Address::from_bytes([0xa1; 20]),
        Address::from_bytes([0xb2; 20]),
    );
    assert!(verified_in_unit(&store, hash, m).await.is_empty());

    // Written by plain SQL, as an operator would: a new version all the same.
    store_wallet(&store, m, a, WalletStatus::Verified).await;
    assert_eq!(verified_in_unit(&store, hash, m).await, vec![a]);
    store_wallet(&store, m, b, WalletStatus::Pending).await;
    assert_eq!(verified_in_unit(&store, hash, m).await, vec![a]);
    let verify_b = format!(
        "UPDATE wallets SET status = 'verified', verified_mode = 'test' WHERE address = '{}'",
        b.to_lower_hex()
    );
    execute_sql(&store, &verify_b).await.unwrap();
    let mut both = verified_in_unit(&store, hash, m).await;
    both.sort_by_key(|w| w.to_lower_hex());
    assert_eq!(both, vec![a, b]);

    // Revoked through the repository.
    let verified = WalletRepository::verified(&store, m).await.unwrap();
    let wallet_b = verified
        .into_iter()
        .find(|w| w.address == b)
        .expect("b is verified");
    revoke(&store, m, wallet_b.id).await;
    assert_eq!(verified_in_unit(&store, hash, m).await, vec![a]);

    // Deleted.
    let before = wallets_version(&store, m).await;
    execute_sql(
        &store,
        &format!("DELETE FROM wallets WHERE address = '{}'", a.to_lower_hex()),
    )
    .await
    .unwrap();
    assert_ne!(wallets_version(&store, m).await, before);
    assert!(verified_in_unit(&store, hash, m).await.is_empty());

    // Another merchant's wallet draws only its own version.
    let before = wallets_version(&store, m).await;
    store_wallet(&store, other, a, WalletStatus::Verified).await;
    assert_eq!(wallets_version(&store, m).await, before);
    assert!(verified_in_unit(&store, hash, m).await.is_empty());

    // Truncated (row triggers do not fire on TRUNCATE; a statement trigger draws anew).
    let c = Address::from_bytes([0xc3; 20]);
    store_wallet(&store, m, c, WalletStatus::Verified).await;
    assert_eq!(verified_in_unit(&store, hash, m).await, vec![c]);
    execute_sql(&store, "TRUNCATE wallets CASCADE")
        .await
        .unwrap();
    assert!(verified_in_unit(&store, hash, m).await.is_empty());
}

/// While the version stands a checked unit answers from memory: a change made with the
/// trigger off (which nothing but this test does) is not seen by it, while a store not
/// bound to a checked request, and a unit that wrote a wallet itself, read the row.
#[tokio::test]
async fn while_the_version_stands_a_checked_unit_answers_from_memory() {
    let (store, m) = store_with_merchant().await;
    let (_, hash, _) = key_of(&store, m, Mode::Test).await;
    let a = Address::from_bytes([0xa1; 20]);
    store_wallet(&store, m, a, WalletStatus::Verified).await;
    assert_eq!(verified_in_unit(&store, hash, m).await, vec![a]);

    execute_sql(
        &store,
        "ALTER TABLE wallets DISABLE TRIGGER wallets_changed",
    )
    .await
    .unwrap();
    execute_sql(&store, "UPDATE wallets SET status = 'revoked'")
        .await
        .unwrap();
    assert_eq!(verified_in_unit(&store, hash, m).await, vec![a]);
    let unbound = WalletRepository::verified(&store, m).await.unwrap();
    assert!(
        unbound.is_empty(),
        "a store not bound to a checked unit reads"
    );

    // A unit that writes a wallet (here with the version held still) reads them from then on.
    let id = WalletRepository::list(&store, m, &PageRequest::first(10))
        .await
        .unwrap()
        .data[0]
        .id;
    let unit = checked_unit(&store, hash).await;
    let ports = unit.ports();
    assert_eq!(
        ports.wallets().verified(m).await.unwrap().len(),
        1,
        "from memory"
    );
    let audit = operator_audit(m, AuditAction::WalletRevoked, id);
    let now = Timestamp::new(chrono::Utc::now());
    let revoked = ports.wallets().revoke(m, id, now, Mode::Live, &audit).await;
    assert!(matches!(revoked, Ok(WalletRevocation::Revoked(_))));
    assert!(
        ports.wallets().verified(m).await.unwrap().is_empty(),
        "read"
    );
}

/// Revokes `merchant`'s wallet `id` with a live key, through the repository.
async fn revoke(store: &PgStore, merchant: MerchantId, id: WalletId) {
    let audit = operator_audit(merchant, AuditAction::WalletRevoked, id);
    let now = Timestamp::new(chrono::Utc::now());
    WalletRepository::revoke(store, merchant, id, now, Mode::Live, &audit)
        .await
        .unwrap();
}
