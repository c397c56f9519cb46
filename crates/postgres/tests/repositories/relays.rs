//! Relayed payments: one live transaction per session, and never more promised than a
//! payer holds.

use super::*;

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
