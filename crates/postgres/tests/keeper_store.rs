//! The sender's store for the keeper's transactions (D19, D26): every attempt at a nonce
//! is kept, the charge names its newest, a replacement of a settled charge stores nothing,
//! and a charge is closed by whichever of its attempts was mined. (Relays and sweeps are
//! tested with their own stores, in repositories.rs and deposit_store.rs.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::{AttemptFees, WorkKind as SenderWork};
use stablepay_domain::ports::{BillingWrite, ChargeAttempt, SubscriptionStore};
use stablepay_domain::ports::{SenderLedger, SentAttempts, SentRelays};
use stablepay_domain::{Address, ChainId, Timestamp, TxHash};
use stablepay_postgres::testing::{fixtures, fresh_store, new_merchant, revert_last_migration};

fn tx(n: u8) -> TxHash {
    TxHash::from_bytes([n; 32])
}

fn fees(max_fee_wei: u128, sent_block: u64) -> AttemptFees {
    AttemptFees {
        max_fee_wei,
        priority_fee_wei: max_fee_wei / 10,
        sent_block,
    }
}

#[tokio::test]
async fn replacements_are_attempts_at_the_nonce_and_any_mined_one_closes_the_charge() {
    let (store, _) = fresh_store().await;
    let m = new_merchant(&store, "M").await;
    let sub = fixtures::subscription(&store, m, "active", 0xa1).await;
    let keeper = Address::from_bytes([0x4e; 20]);
    let now = Timestamp::new(chrono::Utc::now());
    let stored = store
        .store_keeper_charge(
            ChainId::Base,
            keeper,
            5,
            sub,
            now,
            now,
            fees(1_000, 40),
            &|nonce: u64| {
                assert_eq!(nonce, 5, "never below the chain's count");
                Ok::<_, String>(stablepay_domain::ports::SignedTx {
                    hash: tx(1),
                    raw: vec![1],
                })
            },
        )
        .await
        .unwrap();
    assert_eq!(stored.hash, tx(1));
    let open = store
        .open_keeper_charges(ChainId::Base, Some(keeper))
        .await
        .unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].work.sent_block, 40);
    assert_eq!(
        open[0].work.attempts,
        [ChargeAttempt {
            tx_hash: tx(1),
            fill: false
        }]
    );

    // A replacement at higher fees, then a fill: newest first, the charge names the fill.
    for (n, fill, block) in [(2, false, 43), (3, true, 46)] {
        let stored = stablepay_postgres::testing::replace_attempt(
            &store,
            SenderWork::Charge,
            ChainId::Base,
            keeper,
            5,
            &tx(n - 1),
            (&tx(n), &[n]),
            fees(1_000 + u128::from(n) * 200, block),
            fill,
            now,
        )
        .await
        .unwrap();
        assert!(stored);
    }
    // Another worker's replacement of an attempt that is no longer the newest stores nothing.
    let stale = stablepay_postgres::testing::replace_attempt(
        &store,
        SenderWork::Charge,
        ChainId::Base,
        keeper,
        5,
        &tx(1),
        (&tx(7), &[7]),
        fees(9_000, 47),
        false,
        now,
    )
    .await
    .unwrap();
    assert!(!stale);
    assert!(store.attempt(tx(7)).await.unwrap().is_none());
    let open = store
        .open_keeper_charges(ChainId::Base, Some(keeper))
        .await
        .unwrap();
    assert_eq!((open[0].work.tx_hash, open[0].work.sent_block), (tx(3), 46));
    let hashes: Vec<(TxHash, bool)> = open[0]
        .work
        .attempts
        .iter()
        .map(|a| (a.tx_hash, a.fill))
        .collect();
    assert_eq!(hashes, [(tx(3), true), (tx(2), false), (tx(1), false)]);
    let newest = store.attempt(tx(3)).await.unwrap().unwrap();
    assert_eq!(
        (newest.nonce, newest.fill, newest.raw.as_slice()),
        (5, true, &[3u8][..])
    );
    assert_eq!(newest.fees, fees(1_600, 46));

    // The first attempt was the one mined: the charge is closed all the same.
    let rec = store.subscription_public(sub).await.unwrap().unwrap();
    store
        .record_billing(&BillingWrite {
            settles_charge_tx: Some(tx(1)),
            ..BillingWrite::state_only(rec)
        })
        .await
        .unwrap();
    assert!(store
        .open_keeper_charges(ChainId::Base, Some(keeper))
        .await
        .unwrap()
        .is_empty());
    // A replacement of a settled charge stores nothing (and is not to be broadcast).
    let late = stablepay_postgres::testing::replace_attempt(
        &store,
        SenderWork::Charge,
        ChainId::Base,
        keeper,
        5,
        &tx(3),
        (&tx(4), &[4]),
        fees(2_000, 50),
        false,
        now,
    )
    .await
    .unwrap();
    assert!(!late);
    assert!(store.attempt(tx(4)).await.unwrap().is_none());
}

#[tokio::test]
async fn a_charge_in_flight_across_the_upgrade_gets_its_one_attempt() {
    let (store, url) = fresh_store().await;
    let m = new_merchant(&store, "M").await;
    let sub = fixtures::subscription(&store, m, "active", 0xa1).await;
    let keeper = Address::from_bytes([0x4e; 20]);
    let now = Timestamp::new(chrono::Utc::now());
    // Written by the release before attempts were kept: the charge row alone.
    // Every migration back to (and including) the one that added attempts, whatever came
    // after it.
    let mut reverted = Vec::new();
    while reverted.last().map(String::as_str) != Some("20261126000011") {
        assert!(reverted.len() < 50, "never reached 000011: {reverted:?}");
        reverted.push(revert_last_migration(&url).await);
    }
    assert!(reverted.contains(&"20261127000012".to_owned()));
    store
        .store_keeper_charge(
            ChainId::Base,
            keeper,
            0,
            sub,
            now,
            now,
            fees(1, 1),
            &|_: u64| {
                Ok::<_, String>(stablepay_domain::ports::SignedTx {
                    hash: tx(9),
                    raw: vec![9],
                })
            },
        )
        .await
        .expect_err("no attempts table before the upgrade");
    old_release_charge(&url, sub).await;
    stablepay_postgres::run_migrations(&url).await.unwrap();
    let open = store
        .open_keeper_charges(ChainId::Base, Some(keeper))
        .await
        .unwrap();
    assert_eq!(
        (open.len(), open[0].work.sent_block),
        (1, 0),
        "due for replacement at once"
    );
    let attempt = store.attempt(tx(9)).await.unwrap().unwrap();
    assert_eq!(
        (attempt.nonce, attempt.raw.as_slice(), attempt.fill),
        (3, &[9u8][..], false)
    );
    assert_eq!(
        attempt.fees,
        fees(0, 0),
        "fees unknown: any raise is the chain's price"
    );
    // A relayed payment in flight across the upgrade (000012) gets its one attempt too.
    let relayed = store.attempt(tx(10)).await.unwrap().unwrap();
    assert_eq!((relayed.nonce, relayed.fees), (4, fees(0, 0)));
    // And a sweep.
    let swept = store.attempt(tx(11)).await.unwrap().unwrap();
    assert_eq!((swept.nonce, swept.fees), (6, fees(0, 0)));
}

/// A relay an older api wrote after the upgrade, without its attempt (a rolling deploy):
/// listed with its own hash, due at once, and replaceable from its own row.
#[tokio::test]
async fn work_written_without_an_attempt_is_its_own_attempt() {
    let (store, url) = fresh_store().await;
    old_release_relay(&url, 4, tx(10)).await;
    let sent = store.sent_relays(ChainId::Base).await.unwrap();
    assert_eq!(
        (sent.len(), sent[0].sent_block, sent[0].attempts.as_slice()),
        (
            1,
            0,
            &[ChargeAttempt {
                tx_hash: tx(10),
                fill: false
            }][..]
        )
    );
    let newest = store
        .newest_attempt(SenderWork::Relay, tx(10))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (newest.nonce, newest.raw.as_slice(), newest.fees),
        (4, &[10u8][..], fees(0, 0))
    );
    let keeper = Address::from_bytes([0x4e; 20]);
    let now = Timestamp::new(chrono::Utc::now());
    let replaced = stablepay_postgres::testing::replace_attempt(
        &store,
        SenderWork::Relay,
        ChainId::Base,
        keeper,
        4,
        &tx(10),
        (&tx(12), &[12]),
        fees(5, 9),
        false,
        now,
    )
    .await
    .unwrap();
    assert!(replaced);
    let sent = store.sent_relays(ChainId::Base).await.unwrap();
    assert_eq!((sent[0].tx_hash, sent[0].sent_block), (tx(12), 9));
    assert!(store
        .newest_attempt(SenderWork::Relay, tx(99))
        .await
        .unwrap()
        .is_none());
}

/// The old release's write: a charge row without an attempt.
async fn old_release_charge(url: &str, sub: stablepay_domain::SubscriptionId) {
    use diesel::sql_types::{Bytea, Text, Uuid};
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    let mut conn = AsyncPgConnection::establish(url).await.unwrap();
    diesel::sql_query(
        "INSERT INTO keeper_transactions (chain_id, keeper_address, nonce, subscription_id, \
         period_key, tx_hash, raw_tx, status, created_at, last_broadcast_at) \
         VALUES (8453, $1, 3, $2, now(), $3, $4, 'sent', now(), now())",
    )
    .bind::<Text, _>(format!("0x{}", "4e".repeat(20)))
    .bind::<Uuid, _>(sub.uuid())
    .bind::<Text, _>(tx(9).to_string())
    .bind::<Bytea, _>(vec![9u8])
    .execute(&mut conn)
    .await
    .unwrap();
    old_release_relay(url, 4, tx(10)).await;
    diesel::sql_query(
        "INSERT INTO deposit_sweeps (chain_id, sender_address, nonce, tx_hash, raw_tx, \
         entries, status, created_at, last_broadcast_at) \
         VALUES (8453, $1, 6, $2, $3, 1, 'sent', now(), now())",
    )
    .bind::<Text, _>(format!("0x{}", "4e".repeat(20)))
    .bind::<Text, _>(tx(11).to_string())
    .bind::<Bytea, _>(vec![11u8])
    .execute(&mut conn)
    .await
    .unwrap();
}

/// An older release's relayed payment: the row alone, without an attempt.
async fn old_release_relay(url: &str, nonce: i64, hash: TxHash) {
    use diesel::sql_types::{BigInt, Bytea, Text};
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    let mut conn = AsyncPgConnection::establish(url).await.unwrap();
    diesel::sql_query(
        "INSERT INTO relayed_transactions (chain_id, sender_address, nonce, \
         checkout_session_id, tx_hash, raw_tx, status, created_at, last_broadcast_at) \
         VALUES (8453, $1, $2, gen_random_uuid(), $3, $4, 'sent', now(), now())",
    )
    .bind::<Text, _>(format!("0x{}", "4e".repeat(20)))
    .bind::<BigInt, _>(nonce)
    .bind::<Text, _>(hash.to_string())
    .bind::<Bytea, _>(hash.as_bytes()[..1].to_vec())
    .execute(&mut conn)
    .await
    .unwrap();
}

/// A rotated keeper key's charge still in flight is listed for the follower, with its own
/// attempts, beside the current key's.
#[tokio::test]
async fn every_keys_charges_in_flight_are_listed() {
    let (store, _) = fresh_store().await;
    let m = new_merchant(&store, "M").await;
    let (old, new) = (
        Address::from_bytes([0x4e; 20]),
        Address::from_bytes([0x5f; 20]),
    );
    let now = Timestamp::new(chrono::Utc::now());
    for (keeper, n, byte) in [(old, 7, 0xa1), (new, 2, 0xa2)] {
        let sub = fixtures::subscription(&store, m, "active", byte).await;
        store
            .store_keeper_charge(
                ChainId::Base,
                keeper,
                n,
                sub,
                now,
                now,
                fees(10, 3),
                &|_: u64| {
                    Ok::<_, String>(stablepay_domain::ports::SignedTx {
                        hash: tx(byte),
                        raw: vec![byte],
                    })
                },
            )
            .await
            .unwrap();
    }
    let all = store
        .open_keeper_charges(ChainId::Base, None)
        .await
        .unwrap();
    let listed: Vec<(TxHash, Vec<TxHash>)> = all
        .iter()
        .map(|c| {
            (
                c.work.tx_hash,
                c.work.attempts.iter().map(|a| a.tx_hash).collect(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [(tx(0xa1), vec![tx(0xa1)]), (tx(0xa2), vec![tx(0xa2)])]
    );
    let mine = store
        .open_keeper_charges(ChainId::Base, Some(new))
        .await
        .unwrap();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0].work.tx_hash, tx(0xa2));
}
