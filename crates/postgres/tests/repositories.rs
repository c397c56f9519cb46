//! Repository behaviour against a real PostgreSQL (fresh database per test).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use stablepay_domain::ports::*;
use stablepay_domain::ports::{RelayRecords, SenderLedger, SentRelays};
use stablepay_domain::services::register_wallet;
use stablepay_domain::*;
use stablepay_postgres::testing::{fresh_store, idempotency_scope};

/// The one protocol (D14), each call on its own: look, then record once; a stored answer
/// replays, another body is refused, a second record is superseded; a row left
/// `processing` (by the claim protocol this replaced, or a crash) is in flight until
/// stale; an expired key starts over.
#[tokio::test(flavor = "multi_thread")]
async fn idempotency_keys_follow_d14() {
    let (store, url) = fresh_store().await;
    let m = store
        .create_merchant("M", FeeTier::Standard)
        .await
        .unwrap()
        .id;
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

#[tokio::test(flavor = "multi_thread")]
async fn webhook_secrets_are_encrypted_at_rest() {
    let (store, url) = fresh_store().await;
    let m = store
        .create_merchant("M", FeeTier::Standard)
        .await
        .unwrap()
        .id;
    let endpoint = WebhookEndpoint {
        id: WebhookEndpointId::generate(),
        merchant_id: m,
        mode: Mode::Test,
        url: WebhookUrl::parse("https://m.example/h").unwrap(),
        enabled_events: vec![],
        status: EndpointStatus::Enabled,
        description: None,
        created_at: Timestamp::new(chrono::Utc::now()),
        disabled_reason: None,
    };
    WebhookEndpointRepository::insert(
        &store,
        &endpoint,
        "whsec_plaintextsecret",
        &stablepay_postgres::testing::operator_audit(
            endpoint.merchant_id,
            stablepay_domain::AuditAction::WebhookEndpointCreated,
            endpoint.id,
        ),
    )
    .await
    .unwrap();
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    use stablepay_postgres::schema::webhook_endpoints as we;
    let sealed: Vec<u8> = we::table
        .select(we::secret_ciphertext)
        .first(&mut conn)
        .await
        .unwrap();
    assert!(
        !sealed.windows(9).any(|w| w == b"plaintext"),
        "secret must not be stored in clear"
    );
    assert_eq!(
        store.decrypt_secret(endpoint.id.uuid(), &sealed).unwrap(),
        "whsec_plaintextsecret"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_challenge_can_be_used_once_even_under_a_race() {
    let (store, m) = stablepay_postgres::testing::store_with_merchant().await;
    let ctx = stablepay_postgres::testing::api_key_context(m, Mode::Test);
    let address = Address::from_bytes([5; 20]);
    let by = stablepay_domain::Changer::OPERATOR;
    let reg = register_wallet(&ctx, address, ChainId::Base, &by, &store, &SystemClock)
        .await
        .unwrap();
    let nonce = reg.challenge.as_ref().unwrap().nonce.clone();
    let now = Timestamp::new(chrono::Utc::now());
    let verified_audit = stablepay_postgres::testing::operator_audit(
        m,
        stablepay_domain::AuditAction::WalletVerified,
        reg.wallet.id,
    );
    let (a, b) = tokio::join!(
        store.mark_verified(reg.wallet.id, &nonce, now, Mode::Live, &verified_audit),
        store.mark_verified(reg.wallet.id, &nonce, now, Mode::Live, &verified_audit)
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    let won = |u: &ChallengeUse| matches!(u, ChallengeUse::Consumed(_));
    assert_eq!(
        [won(&a), won(&b)].iter().filter(|w| **w).count(),
        1,
        "exactly one wins: {a:?} {b:?}"
    );
    let loser = if won(&a) { b } else { a };
    assert_eq!(loser, ChallengeUse::NotUsable);
    // The registration and the one verification are in the audit log; the loser wrote
    // nothing.
    let log = stablepay_domain::ports::AuditLog::audit_events(
        &store,
        m,
        Mode::Live,
        &stablepay_domain::PageRequest::first(10),
    )
    .await
    .unwrap();
    let actions: Vec<_> = log.data.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(
        actions,
        ["wallet.verified"],
        "test-mode entries are not live's"
    );
    let log = stablepay_domain::ports::AuditLog::audit_events(
        &store,
        m,
        Mode::Test,
        &stablepay_domain::PageRequest::first(10),
    )
    .await
    .unwrap();
    let actions: Vec<_> = log.data.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["wallet.verified", "wallet.registered"]);
    assert_eq!(
        WalletRepository::get(&store, m, reg.wallet.id)
            .await
            .unwrap()
            .unwrap()
            .status,
        WalletStatus::Verified
    );
}

/// An endpoint's id, secret ciphertext and previous secret ciphertext.
type SealedRow = (uuid::Uuid, Vec<u8>, Option<Vec<u8>>);

async fn sealed_rows(conn: &mut AsyncPgConnection) -> Vec<SealedRow> {
    use stablepay_postgres::schema::webhook_endpoints as we;
    we::table
        .select((
            we::id,
            we::secret_ciphertext,
            we::previous_secret_ciphertext,
        ))
        .load(conn)
        .await
        .unwrap()
}

/// Rotating `STABLEPAY_SECRETS_KEY`: with the old key as `STABLEPAY_SECRETS_KEY_PREVIOUS`,
/// every secret still opens; one re-sealing pass rewrites them (both of a rotating
/// endpoint's secrets, TOTP seeds and pre-key-id rows) under the new key, after which the
/// old key is not needed. A ciphertext moved onto another endpoint's row does not open.
#[tokio::test(flavor = "multi_thread")]
async fn the_secrets_key_rotates_without_downtime() {
    use stablepay_postgres::{PgStore, PoolConfig, SecretCipher};
    let (old_store, url) = fresh_store().await; // sealed with [7; 32]
    let m = old_store
        .create_merchant("M", FeeTier::Standard)
        .await
        .unwrap()
        .id;
    let ctx = stablepay_postgres::testing::api_key_context(m, Mode::Test);
    let new_endpoint = || stablepay_domain::services::NewEndpoint {
        url: WebhookUrl::parse("https://m.example/h").unwrap(),
        enabled_events: vec![],
        description: None,
    };
    let (a, secret_a) = stablepay_domain::services::create_webhook_endpoint(
        &ctx,
        new_endpoint(),
        &stablepay_domain::Changer::OPERATOR,
        &old_store,
        &SystemClock,
    )
    .await
    .unwrap();
    let (b, _) = stablepay_domain::services::create_webhook_endpoint(
        &ctx,
        new_endpoint(),
        &stablepay_domain::Changer::OPERATOR,
        &old_store,
        &SystemClock,
    )
    .await
    .unwrap();
    let rotated_secret = WebhookEndpointRepository::rotate_secret(
        &old_store,
        m,
        Mode::Test,
        b.id,
        "whsec_rotated",
        3600,
        &stablepay_postgres::testing::operator_audit(
            m,
            stablepay_domain::AuditAction::WebhookEndpointSecretRotated,
            b.id,
        ),
    )
    .await
    .unwrap();
    assert_eq!(rotated_secret.id, b.id);
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    let sealed_of = |rows: &[SealedRow], id: WebhookEndpointId| {
        rows.iter().find(|r| r.0 == id.uuid()).cloned().unwrap()
    };
    let before = sealed_rows(&mut conn).await;
    // Bound to its row: A's ciphertext does not open as B's.
    assert!(old_store
        .decrypt_secret(b.id.uuid(), &sealed_of(&before, a.id).1)
        .is_err());

    let key = |k: u8| [k; 32];
    let rotating = PgStore::connect(
        &url,
        &PoolConfig::default(),
        SecretCipher::new(&key(8))
            .unwrap()
            .with_previous(&key(7))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        rotating
            .decrypt_secret(a.id.uuid(), &sealed_of(&before, a.id).1)
            .unwrap(),
        secret_a
    );
    let report = rotating.reseal_secrets().await.unwrap();
    assert_eq!((report.resealed, report.unreadable), (2, 0));
    assert_eq!(
        rotating.reseal_secrets().await.unwrap().resealed,
        0,
        "a second pass finds nothing to do"
    );

    let after = sealed_rows(&mut conn).await;
    let new_only = PgStore::connect(
        &url,
        &PoolConfig::default(),
        SecretCipher::new(&key(8)).unwrap(),
    )
    .unwrap();
    let (_, a_sealed, _) = sealed_of(&after, a.id);
    assert_ne!(a_sealed, sealed_of(&before, a.id).1);
    assert_eq!(
        new_only.decrypt_secret(a.id.uuid(), &a_sealed).unwrap(),
        secret_a
    );
    let (_, b_sealed, b_previous) = sealed_of(&after, b.id);
    assert_eq!(
        new_only.decrypt_secret(b.id.uuid(), &b_sealed).unwrap(),
        "whsec_rotated"
    );
    assert!(new_only
        .decrypt_secret(b.id.uuid(), &b_previous.unwrap())
        .unwrap()
        .starts_with("whsec_"));
    assert!(old_store.decrypt_secret(a.id.uuid(), &a_sealed).is_err());
}

/// One live relayed transaction per session; a reverted or dropped one leaves the session
/// payable again, with the next nonce of the sender's sequence.
#[tokio::test(flavor = "multi_thread")]
async fn a_session_has_one_live_relayed_transaction() {
    use stablepay_domain::ports::{RelayFor, StoredRelay};
    let (store, _) = fresh_store().await;
    let (chain, sender) = (ChainId::BaseSepolia, Address::from_bytes([0x51; 20]));
    let session = CheckoutSessionId::generate();
    let now = Timestamp::new(chrono::Utc::now());
    let signed = |n: u64| {
        Ok::<_, String>(stablepay_domain::ports::SignedTx {
            hash: TxHash::from_bytes([n as u8 + 1; 32]),
            raw: vec![n as u8],
        })
    };
    let fees = stablepay_domain::ports::AttemptFees {
        max_fee_wei: 2_000,
        priority_fee_wei: 200,
        sent_block: 11,
    };
    // The one relay in flight; its newest attempt first.
    let in_flight = || async {
        let mut sent = store.sent_relays(chain).await.unwrap();
        assert_eq!(sent.len(), 1);
        let relay = sent.remove(0);
        assert_eq!(relay.attempts[0].tx_hash, relay.tx_hash);
        assert_eq!(relay.session, Some(session));
        relay
    };
    let (payer, other) = (
        Address::from_bytes([0xa1; 20]),
        Address::from_bytes([0xb2; 20]),
    );
    let valid_before = now.unix_seconds() as u64 + 600;
    let signed_nonce = [0x31u8; 32];
    let relay_signed = |payer: Address, nonce: [u8; 32], at: Timestamp, chain_nonce: u64| {
        let store = store.clone();
        let relay = RelayFor {
            session,
            payer,
            valid_before,
            nonce,
            terms: Some([0x5e; 32]),
            token: Address::from_bytes([0x70; 20]),
            value: 10_000_000,
            payer_balance: 10_000_000,
            code_hash: None,
            fill: Some((Address::from_bytes([0x10; 20]), vec![0xca, 0x11])),
        };
        async move {
            store
                .store_relayed_payment(chain, sender, chain_nonce, relay, at, fees, &signed)
                .await
                .unwrap()
        }
    };
    let relay_by = |payer: Address, at: Timestamp, chain_nonce: u64| {
        relay_signed(payer, signed_nonce, at, chain_nonce)
    };
    let relay = |chain_nonce: u64| relay_by(payer, now, chain_nonce);
    let first = relay(7).await;
    assert_eq!(
        first,
        StoredRelay::New(stablepay_domain::ports::SignedTx {
            hash: TxHash::from_bytes([8; 32]),
            raw: vec![7]
        })
    );
    // Again (another request, another api process): the same transaction, nothing signed.
    assert_eq!(
        relay(0).await,
        StoredRelay::Existing(TxHash::from_bytes([8; 32]))
    );
    assert_eq!(
        store.relayed_for_session(session).await.unwrap(),
        Some(TxHash::from_bytes([8; 32]))
    );
    let carried = store.relayed_authorization(session).await.unwrap().unwrap();
    assert_eq!(
        (carried.payer, carried.nonce, carried.terms),
        (Some(payer), Some(signed_nonce), Some([0x5e; 32]))
    );
    assert_eq!(in_flight().await.sent_block, 11);
    // Its fill (the router's cancel of the ref) is stored with it, found by its nonce.
    assert_eq!(
        store.relay_fill_call(chain, sender, 7).await.unwrap(),
        Some((Address::from_bytes([0x10; 20]), vec![0xca, 0x11]))
    );
    assert_eq!(store.relay_fill_call(chain, sender, 8).await.unwrap(), None);
    // Replaced at higher fees: the session's transaction is the replacement, both are
    // attempts; a replacement of an attempt that is no longer the newest stores nothing.
    let (replacement, raised) = (TxHash::from_bytes([0x77; 32]), {
        let mut f = fees;
        f.max_fee_wei = 2_250;
        f.sent_block = 14;
        f
    });
    for (replaces, stored) in [([8; 32], true), ([8; 32], false)] {
        let done = stablepay_postgres::testing::replace_attempt(
            &store,
            stablepay_domain::ports::WorkKind::Relay,
            chain,
            sender,
            7,
            &TxHash::from_bytes(replaces),
            (&replacement, &[0x77]),
            raised,
            false,
            now,
        )
        .await
        .unwrap();
        assert_eq!(done, stored);
    }
    assert_eq!(
        store.relayed_for_session(session).await.unwrap(),
        Some(replacement)
    );
    let replaced = in_flight().await;
    assert_eq!((replaced.attempts.len(), replaced.sent_block), (2, 14));
    // The first attempt is the one mined (reverted): the session is payable again, with
    // the next nonce.
    store
        .relay_mined(
            &replaced,
            TxHash::from_bytes([8; 32]),
            stablepay_postgres::testing::gas_receipt(false, 90_000, 900000),
            now,
        )
        .await
        .unwrap();
    assert_eq!(store.relayed_for_session(session).await.unwrap(), None);
    let recorded = stablepay_postgres::testing::query_strings(
        &store,
        "SELECT tx_hash AS value FROM relayed_transactions WHERE status = 'reverted'",
    )
    .await
    .unwrap();
    assert_eq!(
        recorded,
        [TxHash::from_bytes([8; 32]).to_string()],
        "the mined attempt is the one on record"
    );
    // Its payer paid nothing and cost the relayer gas: refused for the cool-down. Another
    // payer of the session is not held up by it.
    let StoredRelay::PayerCoolingDown { until } = relay(0).await else {
        panic!("a payer whose relay reverted is refused")
    };
    let cooled = now.plus_seconds(stablepay_postgres::REVERT_COOLDOWN_SECS);
    assert!((until.unix_seconds() - cooled.unix_seconds()).abs() <= 1);
    assert_eq!(
        relay_by(other, now, 0).await,
        StoredRelay::New(stablepay_domain::ports::SignedTx {
            hash: TxHash::from_bytes([9; 32]),
            raw: vec![8]
        })
    );
    // Dropped (its nonce went to another transaction): payable again too, by anyone who
    // is not cooling down (another nonce of the same wallet included: a replay of the
    // dropped authorization is refused by the router's spent ref or booked at the deposit
    // address, never paid twice).
    store.relay_dropped(&in_flight().await).await.unwrap();
    assert_eq!(store.relayed_for_session(session).await.unwrap(), None);
    assert!(store.sent_relays(chain).await.unwrap().is_empty());
    assert!(matches!(
        relay_signed(other, [0x32; 32], now, 0).await,
        StoredRelay::New(_)
    ));
    // Past the cool-down the first payer may be relayed again.
    store.relay_dropped(&in_flight().await).await.unwrap();
    let later = now.plus_seconds(stablepay_postgres::REVERT_COOLDOWN_SECS + 1);
    assert!(matches!(
        relay_by(payer, later, 0).await,
        StoredRelay::New(_)
    ));
}

/// D30: a payer's unmined relays of a token never promise more than its balance, and a
/// contract payer's revert cools down every wallet with the same code.
#[tokio::test(flavor = "multi_thread")]
async fn a_payers_relays_never_promise_more_than_its_balance() {
    use stablepay_domain::ports::{RelayFor, StoredRelay};
    let (store, _) = fresh_store().await;
    let chain = ChainId::BaseSepolia;
    let sender = Address::from_bytes([0x5e; 20]);
    let now = Timestamp::new(chrono::Utc::now());
    let fees = stablepay_domain::ports::AttemptFees {
        max_fee_wei: 2_000,
        priority_fee_wei: 200,
        sent_block: 11,
    };
    let usdc = Address::from_bytes([0x70; 20]);
    let relay = |payer: u8, token: Address, balance: u128, code: Option<[u8; 32]>| {
        let store = store.clone();
        let relay = RelayFor {
            session: CheckoutSessionId::generate(),
            payer: Address::from_bytes([payer; 20]),
            valid_before: now.unix_seconds() as u64 + 600,
            nonce: [payer; 32],
            terms: None,
            token,
            value: 12_500_000,
            payer_balance: balance,
            code_hash: code,
            fill: None,
        };
        async move {
            let signed = |n: u64| {
                Ok::<_, String>(stablepay_domain::ports::SignedTx {
                    hash: TxHash::from_bytes([n as u8 + 0x40; 32]),
                    raw: vec![n as u8],
                })
            };
            store
                .store_relayed_payment(chain, sender, 0, relay, now, fees, &signed)
                .await
                .unwrap()
        }
    };
    // Exactly one gross, two sessions: the first is sent, the second refused.
    assert!(matches!(
        relay(0xa1, usdc, 12_500_000, None).await,
        StoredRelay::New(_)
    ));
    assert_eq!(
        relay(0xa1, usdc, 12_500_000, None).await,
        StoredRelay::PayerOvercommitted {
            promised: 12_500_000
        }
    );
    // Enough for both; another token's relays promise nothing of this one.
    assert!(matches!(
        relay(0xa1, usdc, 25_000_000, None).await,
        StoredRelay::New(_)
    ));
    assert!(matches!(
        relay(0xa1, Address::from_bytes([0x71; 20]), 12_500_000, None).await,
        StoredRelay::New(_)
    ));
    // A contract payer's relay reverts: another address with the same code is refused.
    let code = Some([0xcc; 32]);
    assert!(matches!(
        relay(0xb1, usdc, 12_500_000, code).await,
        StoredRelay::New(_)
    ));
    let reverted = store
        .sent_relays(chain)
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.nonce == 3)
        .unwrap();
    store
        .relay_mined(
            &reverted,
            reverted.tx_hash,
            stablepay_postgres::testing::gas_receipt(false, 150_000, 150000),
            now,
        )
        .await
        .unwrap();
    assert!(matches!(
        relay(0xb2, usdc, 12_500_000, code).await,
        StoredRelay::PayerCoolingDown { .. }
    ));
    assert!(matches!(
        relay(0xb3, usdc, 12_500_000, Some([0xdd; 32])).await,
        StoredRelay::New(_)
    ));
}

/// A wallet verified (by a live key, say) after a registration read it as pending stays
/// verified: the restart changes nothing and stores no challenge.
#[tokio::test(flavor = "multi_thread")]
async fn a_wallet_verified_meanwhile_is_not_restarted() {
    let (store, m) = stablepay_postgres::testing::store_with_merchant().await;
    let ctx = stablepay_postgres::testing::api_key_context(m, Mode::Test);
    let reg = register_wallet(
        &ctx,
        Address::from_bytes([6; 20]),
        ChainId::Base,
        &stablepay_domain::Changer::OPERATOR,
        &store,
        &SystemClock,
    )
    .await
    .unwrap();
    let nonce = reg.challenge.as_ref().unwrap().nonce.clone();
    let now = Timestamp::new(chrono::Utc::now());
    let verified_audit = stablepay_postgres::testing::operator_audit(
        m,
        stablepay_domain::AuditAction::WalletVerified,
        reg.wallet.id,
    );
    let stale = reg.wallet.clone();
    assert!(matches!(
        store
            .mark_verified(reg.wallet.id, &nonce, now, Mode::Live, &verified_audit)
            .await
            .unwrap(),
        ChallengeUse::Consumed(_)
    ));
    let challenge = WalletChallenge {
        nonce: "ff".into(),
        ..reg.challenge.clone().unwrap()
    };
    let after = store
        .restart_verification(&stale, &challenge, &verified_audit)
        .await
        .unwrap();
    assert_eq!(
        (after.status, after.verified_mode),
        (WalletStatus::Verified, Some(Mode::Live))
    );
    assert_eq!(
        store
            .latest_challenge(reg.wallet.id)
            .await
            .unwrap()
            .unwrap()
            .nonce,
        nonce,
        "no new challenge"
    );
}

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
