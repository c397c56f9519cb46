//! The unit of work an API request gets: its key check and how it holds its connection.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::*;
use stablepay_domain::rules::api_keys;
use stablepay_domain::*;
use stablepay_postgres::testing::store_with_merchant;

/// A unit opened with a key's claim makes its reads on condition that the key stands as
/// claimed: the claim holds only when such a read found its row, and a read never serves
/// the row otherwise. `Read` units share one connection while it is in use; an
/// `AtomicWrite` unit gets one of its own.
#[tokio::test]
async fn a_claimed_read_holds_only_for_a_standing_key_with_its_row() {
    use stablepay_postgres::testing::{fixtures, unit_backend_pid};
    let (store, m) = store_with_merchant().await;
    let key = store.create_api_key(m, Mode::Test, None).await.unwrap();
    let hash = api_keys::hash(&key.secret);
    let guess = store
        .authenticate(hash, None)
        .await
        .unwrap()
        .unwrap()
        .context;
    let payment = fixtures::payment(&store, m, false, "confirmed", None, None).await;
    let claim = |key_sha256| {
        Some(KeyClaim {
            key_sha256,
            claimed: guess.clone(),
        })
    };
    let read = |key_sha256, id: PaymentId| {
        let (store, claim) = (store.clone(), claim(key_sha256));
        async move {
            let unit = store.open(Access::Read, claim).await.unwrap();
            let found = unit.ports().reader().payment(m, Mode::Test, id).await;
            (unit.claim_held(), found.unwrap())
        }
    };

    let (held, found) = read(hash, payment).await;
    assert!(held);
    assert_eq!(found.unwrap().id, payment);
    // A row that is not there holds nothing (the caller authenticates to tell 401 from 404).
    assert_eq!(read(hash, PaymentId::generate()).await, (false, None));
    // Another key's hash (a guess gone stale) reads nothing.
    assert_eq!(read([7; 32], payment).await, (false, None));
    // A page with a row holds; an empty one does not.
    let page = |filter: PaymentFilter| {
        let (store, claim) = (store.clone(), claim(hash));
        async move {
            let unit = store.open(Access::List, claim).await.unwrap();
            let rows = unit
                .ports()
                .reader()
                .payments(m, Mode::Test, &filter, &PageRequest::first(20))
                .await
                .unwrap();
            (unit.claim_held(), rows.data.len())
        }
    };
    assert_eq!(page(PaymentFilter::default()).await, (true, 1));
    let refunded = PaymentFilter {
        status: Some(PaymentStatus::Refunded),
        ..PaymentFilter::default()
    };
    assert_eq!(page(refunded).await, (false, 0));
    // Revoked: the very next read neither holds nor sees the row, nor does a page.
    store.revoke_api_key(key.id).await.unwrap();
    assert_eq!(read(hash, payment).await, (false, None));
    assert_eq!(page(PaymentFilter::default()).await, (false, 0));

    // A read opened while another holds the shared connection uses it too; an atomic
    // write's unit gets a connection of its own, so the reads never run inside it.
    let (first, first_pid) = unit_backend_pid(&store, Access::Read).await;
    let (_second, second_pid) = unit_backend_pid(&store, Access::Read).await;
    let (_write, write_pid) = unit_backend_pid(&store, Access::AtomicWrite).await;
    assert_eq!(
        first_pid, second_pid,
        "concurrent reads share one connection"
    );
    assert_ne!(
        first_pid, write_pid,
        "an atomic write has a connection of its own"
    );
    drop(first);
}

/// A wallet is the merchant's in both modes: a read of it checks the key's claim to the
/// merchant alone, holds while the key stands, and sees nothing once it is revoked.
#[tokio::test]
async fn a_claimed_wallet_read_checks_the_key_without_a_mode() {
    let (store, m) = store_with_merchant().await;
    let key = store.create_api_key(m, Mode::Live, None).await.unwrap();
    let hash = api_keys::hash(&key.secret);
    let claimed = store
        .authenticate(hash, None)
        .await
        .unwrap()
        .unwrap()
        .context;
    let now = SystemClock.now();
    let wallet = Wallet {
        id: WalletId::generate(),
        merchant_id: m,
        address: Address::from_bytes([0x42; 20]),
        chain: ChainId::BaseSepolia,
        status: WalletStatus::Pending,
        verified_at: None,
        verified_mode: None,
        revoked_at: None,
        revoked_mode: None,
        created_at: now,
    };
    let challenge = WalletChallenge {
        wallet_id: wallet.id,
        nonce: "00".repeat(16),
        message: "sign".into(),
        expires_at: now.plus_seconds(600),
        used_at: None,
        created_at: now,
    };
    store
        .insert_with_challenge(&wallet, &challenge)
        .await
        .unwrap();
    let read = || {
        let claim = Some(KeyClaim {
            key_sha256: hash,
            claimed: claimed.clone(),
        });
        let store = store.clone();
        async move {
            let unit = store.open(Access::Read, claim).await.unwrap();
            let one = unit.ports().wallets().get(m, wallet.id).await.unwrap();
            let page = unit
                .ports()
                .wallets()
                .list(m, &PageRequest::first(20))
                .await
                .unwrap();
            (unit.claim_held(), one.is_some(), page.data.len())
        }
    };
    assert_eq!(read().await, (true, true, 1));
    store.revoke_api_key(key.id).await.unwrap();
    assert_eq!(read().await, (false, false, 0));
}

/// Every pooled connection ends a transaction left idle (a frozen process) after a
/// minute, so its locks do not outlive it.
#[tokio::test]
async fn pooled_connections_end_a_transaction_left_idle() {
    let (store, _) = store_with_merchant().await;
    let seen = stablepay_postgres::testing::query_strings(
        &store,
        "SELECT current_setting('idle_in_transaction_session_timeout') AS value",
    )
    .await
    .unwrap();
    assert_eq!(seen, ["1min"]);
}
