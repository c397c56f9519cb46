//! What an API request opens from the store (`RequestStore`): where its key is checked,
//! what its reads see, and how it holds its connection.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::*;
use stablepay_domain::*;
use stablepay_postgres::testing::{key_of, store_with_merchant, stored_session};
use stablepay_request_store::{KeyClaim, ReadShape, RequestStore};

/// Reads opened with a key's claim are made on condition that the key stands as claimed:
/// each answer says the key stood only when it found its row so, and a read never serves
/// the row otherwise. One-resource reads share one connection while it is in use; an
/// atomic write's unit gets one of its own.
#[tokio::test]
async fn a_claimed_read_says_the_key_stood_only_with_its_row() {
    use stablepay_postgres::testing::{atomic_unit_backend_pid, fixtures, read_unit_backend_pid};
    let (store, m) = store_with_merchant().await;
    let (key, hash, guess) = key_of(&store, m, Mode::Test).await;
    let payment = fixtures::payment(&store, m, false, "confirmed", None, None).await;
    let claim = |key_sha256| {
        Some(KeyClaim {
            key_sha256,
            claimed: guess.clone(),
        })
    };
    let read = |key_sha256, id: PaymentId| {
        let (store, claim, scope) = (store.clone(), claim(key_sha256), guess.clone());
        async move {
            let unit = store
                .open_reads(&scope, claim, ReadShape::One)
                .await
                .unwrap();
            let found = unit.reads().payment(id).await.unwrap();
            (found.key_stood(), found.into_value().map(|p| p.id))
        }
    };

    assert_eq!(read(hash, payment).await, (true, Some(payment)));
    // A row that is not there says nothing (the caller authenticates to tell 401 from 404).
    assert_eq!(read(hash, PaymentId::generate()).await, (false, None));
    // Another key's hash (a guess gone stale) reads nothing.
    assert_eq!(read([7; 32], payment).await, (false, None));
    // A page with a row says the key stood; an empty one does not.
    let page = |filter: PaymentFilter| {
        let (store, claim, scope) = (store.clone(), claim(hash), guess.clone());
        async move {
            let unit = store
                .open_reads(&scope, claim, ReadShape::Page)
                .await
                .unwrap();
            let rows = unit
                .reads()
                .payments(&filter, &PageRequest::first(20))
                .await
                .unwrap();
            (rows.key_stood(), rows.into_value().data.len())
        }
    };
    assert_eq!(page(PaymentFilter::default()).await, (true, 1));
    let refunded = PaymentFilter {
        status: Some(PaymentStatus::Refunded),
        ..PaymentFilter::default()
    };
    assert_eq!(page(refunded).await, (false, 0));
    // Without a claim the same read finds its row and says nothing of any key.
    let unit = store
        .open_reads(&guess, None, ReadShape::One)
        .await
        .unwrap();
    let unclaimed = unit.reads().payment(payment).await.unwrap();
    assert!(!unclaimed.key_stood() && unclaimed.value().is_some());
    drop(unit);
    // Revoked: the very next read neither stands nor sees the row, nor does a page.
    store.revoke_api_key(key).await.unwrap();
    assert_eq!(read(hash, payment).await, (false, None));
    assert_eq!(page(PaymentFilter::default()).await, (false, 0));

    // A read opened while another holds the shared connection uses it too; an atomic
    // write's unit gets a connection of its own, so the reads never run inside it.
    let (first, first_pid) = read_unit_backend_pid(&store).await;
    let (_second, second_pid) = read_unit_backend_pid(&store).await;
    let (_write, write_pid) = atomic_unit_backend_pid(&store).await;
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
/// merchant alone, stands while the key stands, and sees nothing once it is revoked.
#[tokio::test]
async fn a_claimed_wallet_read_checks_the_key_without_a_mode() {
    let (store, m) = store_with_merchant().await;
    let (key, hash, claimed) = key_of(&store, m, Mode::Live).await;
    let now = SystemClock.now();
    let wallet = Wallet::registered(
        m,
        Address::from_bytes([0x42; 20]),
        ChainId::BaseSepolia,
        now,
    );
    let challenge = WalletChallenge {
        wallet_id: wallet.id,
        nonce: "00".repeat(16),
        message: "sign".into(),
        expires_at: now.plus_seconds(600),
        used_at: None,
        created_at: now,
    };
    store
        .insert_with_challenge(
            &wallet,
            &challenge,
            &stablepay_postgres::testing::operator_audit(
                m,
                stablepay_domain::AuditAction::WalletRegistered,
                wallet.id,
            ),
        )
        .await
        .unwrap();
    let read = || {
        let claim = Some(KeyClaim {
            key_sha256: hash,
            claimed: claimed.clone(),
        });
        let (store, scope) = (store.clone(), claimed.clone());
        async move {
            let unit = store
                .open_reads(&scope, claim, ReadShape::One)
                .await
                .unwrap();
            let one = unit.reads().wallet(wallet.id).await.unwrap();
            let page = unit.reads().wallets(&PageRequest::first(20)).await.unwrap();
            (
                one.key_stood() && page.key_stood(),
                one.into_value().is_some(),
                page.into_value().data.len(),
            )
        }
    };
    assert_eq!(read().await, (true, true, 1));
    store.revoke_api_key(key).await.unwrap();
    assert_eq!(read().await, (false, false, 0));
}

/// A read never writes: an open session past its expiry reads and lists as `expired`
/// (and not under `status=open`), while its stored row stays as it was.
#[tokio::test]
async fn an_expired_session_reads_as_expired_without_a_write() {
    let (store, m) = store_with_merchant().await;
    let (_, _, scope) = key_of(&store, m, Mode::Test).await;
    let session = stored_session(&store, m, None).await;
    let fresh = stored_session(&store, m, None).await;
    let later = session.expires_at.plus_seconds(1);
    let unit = store
        .open_reads(&scope, None, ReadShape::Page)
        .await
        .unwrap();
    let listed = |status| {
        let unit = &unit;
        async move {
            let filter = SessionFilter {
                status,
                customer_reference: None,
                payment_link: None,
            };
            let page = unit
                .reads()
                .sessions(&filter, &PageRequest::first(20), later)
                .await
                .unwrap()
                .into_value();
            page.data.iter().map(|s| s.id).collect::<Vec<_>>()
        }
    };
    // Both were created open with the same expiry: at `later` both are past it.
    assert_eq!(
        listed(Some(SessionStatus::Open)).await,
        Vec::<CheckoutSessionId>::new()
    );
    let mut expired = listed(Some(SessionStatus::Expired)).await;
    expired.sort();
    let mut both = vec![session.id, fresh.id];
    both.sort();
    assert_eq!(expired, both);
    // Before the expiry they list as open, and nothing was written meanwhile.
    let before = session.expires_at.plus_seconds(-10);
    let filter = SessionFilter {
        status: Some(SessionStatus::Open),
        customer_reference: None,
        payment_link: None,
    };
    let open = unit
        .reads()
        .sessions(&filter, &PageRequest::first(20), before)
        .await
        .unwrap()
        .into_value();
    assert_eq!(open.data.len(), 2);
    let stored = SessionRepository::get(&store, m, Mode::Test, session.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, SessionStatus::Open);
}

/// Every pooled connection ends a transaction left idle (a frozen process) after a
/// minute, so its locks do not outlive it, and runs its queries in one process, never
/// JIT-compiled (`pool.rs`, `establish`).
#[tokio::test]
async fn pooled_connections_end_idle_transactions_and_plan_in_one_process() {
    let (store, _) = store_with_merchant().await;
    let seen = stablepay_postgres::testing::query_strings(
        &store,
        "SELECT concat_ws(' ', current_setting('idle_in_transaction_session_timeout'), \
         current_setting('max_parallel_workers_per_gather'), current_setting('jit')) AS value",
    )
    .await
    .unwrap();
    assert_eq!(seen, ["1min 0 off"]);
}

/// An atomic unit begun as one statement (`one_statement.rs`): its plain read runs alone
/// (the backend is not in a transaction after it), its insert is held until the answer
/// and then commits with it, or not at all when the answer is refused; anything more
/// begins a real transaction with the held insert in it.
#[tokio::test]
async fn a_held_insert_commits_with_its_answer_or_not_at_all() {
    use stablepay_postgres::testing::{
        atomic_unit_backend_pid, idempotency_scope, new_session, query_strings,
    };
    let (store, m) = store_with_merchant().await;
    let stored = |id: CheckoutSessionId| {
        let store = store.clone();
        async move {
            let sql = format!(
                "SELECT id::text AS value FROM checkout_sessions WHERE id = '{}'",
                id.uuid()
            );
            query_strings(&store, &sql).await.unwrap().len()
        }
    };
    // A backend reports its state just before it tells its client it is ready, except
    // after an error, which reaches the client first: polled until it settles (2 s at most).
    let backend_state = |pid: i32| {
        let store = store.clone();
        async move {
            let sql = format!("SELECT state AS value FROM pg_stat_activity WHERE pid = {pid}");
            let mut state = String::new();
            for _ in 0..200 {
                state = query_strings(&store, &sql).await.unwrap().concat();
                if state != "active" {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            state
        }
    };
    let answer = |body: &str| StoredResponse {
        status: 201,
        body: body.into(),
    };
    let scope = idempotency_scope(m, "one");

    // Read alone, insert held, then the insert and the answer as one statement.
    let (unit, pid) = atomic_unit_backend_pid(&store).await;
    unit.begin_as_one_statement().unwrap();
    assert!(unit.begin().is_err(), "begun twice");
    assert!(unit.ports().wallets().verified(m).await.unwrap().is_empty());
    assert_eq!(backend_state(pid).await, "idle", "a plain read runs alone");
    let first = new_session(m, None);
    unit.ports().sessions().insert(&first).await.unwrap();
    assert_eq!(stored(first.id).await, 0, "held until the answer");
    assert_eq!(
        backend_state(pid).await,
        "idle",
        "nothing sent: no transaction begun"
    );
    let outcome = unit
        .commit_with_answer(&scope, [1; 32], &answer("first"), 60)
        .await;
    assert_eq!(outcome.unwrap(), RecordOutcome::Recorded);
    unit.finish(false).await.unwrap();
    drop(unit);
    assert_eq!(stored(first.id).await, 1);

    // The same key with another body: superseded, and the held insert is undone with it.
    let (unit, pid) = atomic_unit_backend_pid(&store).await;
    unit.begin_as_one_statement().unwrap();
    let second = new_session(m, None);
    unit.ports().sessions().insert(&second).await.unwrap();
    let outcome = unit
        .commit_with_answer(&scope, [2; 32], &answer("second"), 60)
        .await;
    assert_eq!(outcome.unwrap(), RecordOutcome::Superseded);
    unit.finish(true).await.unwrap();
    assert_eq!(backend_state(pid).await, "idle", "no transaction left open");
    drop(unit);
    assert_eq!(stored(second.id).await, 0, "undone with its answer");

    // A read after the held insert begins the transaction with the insert in it: the read
    // sees it, and a rollback undoes it.
    let (unit, pid) = atomic_unit_backend_pid(&store).await;
    unit.begin_as_one_statement().unwrap();
    let third = new_session(m, None);
    unit.ports().sessions().insert(&third).await.unwrap();
    let seen = unit.ports().sessions().get(m, Mode::Test, third.id).await;
    assert_eq!(seen.unwrap().map(|s| s.id), Some(third.id));
    assert_eq!(backend_state(pid).await, "idle in transaction");
    unit.finish(false).await.unwrap();
    drop(unit);
    assert_eq!(stored(third.id).await, 0, "rolled back");

    // A second insert does too, and the answer then commits both with a `COMMIT`.
    let unit = store.open_atomic().await.unwrap();
    unit.begin_as_one_statement().unwrap();
    let (fourth, fifth) = (new_session(m, None), new_session(m, None));
    unit.ports().sessions().insert(&fourth).await.unwrap();
    unit.ports().sessions().insert(&fifth).await.unwrap();
    let both = idempotency_scope(m, "both");
    let outcome = unit
        .commit_with_answer(&both, [3; 32], &answer("both"), 60)
        .await;
    assert_eq!(outcome.unwrap(), RecordOutcome::Recorded);
    drop(unit);
    assert_eq!((stored(fourth.id).await, stored(fifth.id).await), (1, 1));

    // A statement beside a plain read begins the transaction once the read is done.
    let unit = store.open_atomic().await.unwrap();
    unit.begin_as_one_statement().unwrap();
    let ports = unit.ports();
    let (read, got) = futures_util::future::join(
        ports.wallets().verified(m),
        ports.sessions().get(m, Mode::Test, first.id),
    )
    .await;
    assert!(read.unwrap().is_empty());
    assert_eq!(got.unwrap().map(|s| s.id), Some(first.id));
    unit.finish(false).await.unwrap();
    drop(unit);

    // Ended without an answer: a held insert is never sent.
    let unit = store.open_atomic().await.unwrap();
    unit.begin_as_one_statement().unwrap();
    let sixth = new_session(m, None);
    unit.ports().sessions().insert(&sixth).await.unwrap();
    unit.finish(false).await.unwrap();
    drop(unit);
    assert_eq!(stored(sixth.id).await, 0);
}
