//! Deposit transfers and sweeps against a real PostgreSQL (D24): the deposit write
//! re-checks the session's confirmed total under its row lock, a confirmed transfer is
//! final, and a sweep's rows come back when it is dropped (at once) or when its entry
//! failed (after a delay), so one failing session never blocks the others.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use chrono::Utc;
use stablepay_domain::ports::*;
use stablepay_domain::ports::{DepositSweeps, SenderLedger};
use stablepay_domain::rules::eip712::session_ref;
use stablepay_domain::*;
use stablepay_postgres::testing::{
    execute_sql, fresh_store, new_merchant, store_wallet, stored_session,
};
use stablepay_postgres::PgStore;

fn at(secs: i64) -> Timestamp {
    Timestamp::new(Utc::now() + chrono::Duration::seconds(secs))
}

async fn deposit_session(store: &PgStore, merchant: MerchantId, n: u8) -> CheckoutSession {
    stored_session(store, merchant, Some(Address::from_bytes([0x40 + n; 20]))).await
}

/// The sessions' recipient (`stored_session`'s 0x0202…) as the merchant's wallet, verified
/// in test mode: only such recipients' deposits are swept (D30).
async fn verified_recipient(store: &PgStore, merchant: MerchantId) {
    store_wallet(
        store,
        merchant,
        Address::from_bytes([2; 20]),
        WalletStatus::Verified,
    )
    .await;
}

fn transfer(s: &CheckoutSession, tx: u8, micros: u64, confirmed: bool) -> DepositTransfer {
    DepositTransfer {
        chain: s.chain,
        tx_hash: TxHash::from_bytes([tx; 32]),
        session: s.id,
        token: s.token_address,
        from: Address::from_bytes([3; 20]),
        amount_micros: micros,
        log_index: 1,
        block_number: 10,
        block_hash: BlockHash::from_bytes([tx; 32]),
        confirmed,
        payment: None,
        arrived_at: at(0),
        swept_by: None,
    }
}

fn write(s: &CheckoutSession, before: u64, after: u64, t: DepositTransfer) -> DepositWrite {
    DepositWrite {
        session: s.id,
        received_before: before,
        received_after: after,
        transfer: Some(t),
        payments: Vec::new(),
        completed_session: None,
        events: Vec::new(),
        ledger: Vec::new(),
    }
}

#[tokio::test]
async fn a_deposit_write_re_checks_the_confirmed_total_and_a_confirmed_transfer_is_final() {
    let (store, _) = fresh_store().await;
    let merchant = new_merchant(&store, "M").await;
    let s = deposit_session(&store, merchant, 1).await;
    let pending = transfer(&s, 7, 4_000_000, false);
    assert_eq!(
        store
            .record_deposit(&write(&s, 0, 0, pending.clone()))
            .await
            .unwrap(),
        SettlementWrite::Written
    );
    let confirmed = transfer(&s, 7, 4_000_000, true);
    assert_eq!(
        store
            .record_deposit(&write(&s, 0, 4_000_000, confirmed.clone()))
            .await
            .unwrap(),
        SettlementWrite::Written
    );
    // A writer that decided from the old total loses, and writes nothing.
    let other = transfer(&s, 8, 1_000_000, true);
    assert_eq!(
        store
            .record_deposit(&write(&s, 0, 1_000_000, other))
            .await
            .unwrap(),
        SettlementWrite::Stale
    );
    // A stale log cannot move a confirmed transfer back to pending.
    assert_eq!(
        store
            .record_deposit(&write(&s, 4_000_000, 4_000_000, pending))
            .await
            .unwrap(),
        SettlementWrite::Stale
    );
    let rows = DepositStore::deposit_transfers(&store, s.id).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert!(rows[0].confirmed);
    assert_eq!(
        store
            .deposit_session(s.id)
            .await
            .unwrap()
            .unwrap()
            .amount_received_micros,
        4_000_000
    );
    // A pending row is dropped only as it was read.
    let p = transfer(&s, 9, 1_000_000, false);
    store
        .record_deposit(&write(&s, 4_000_000, 4_000_000, p.clone()))
        .await
        .unwrap();
    let moved = DepositTransfer {
        block_hash: BlockHash::from_bytes([0xee; 32]),
        ..p.clone()
    };
    assert!(!store.drop_pending_deposit(&moved).await.unwrap());
    assert!(store.drop_pending_deposit(&p).await.unwrap());
    assert!(
        !store.drop_pending_deposit(&confirmed).await.unwrap(),
        "confirmed is final"
    );
}

#[tokio::test]
async fn a_failed_entry_waits_while_the_others_are_swept_and_a_dropped_sweep_gives_everything_back()
{
    let (store, _) = fresh_store().await;
    let merchant = new_merchant(&store, "M").await;
    verified_recipient(&store, merchant).await;
    let a = deposit_session(&store, merchant, 1).await;
    let b = deposit_session(&store, merchant, 2).await;
    for (s, tx) in [(&a, 1u8), (&b, 2u8)] {
        let t = transfer(s, tx, 10_000_000, true);
        store
            .record_deposit(&write(s, 0, 10_000_000, t))
            .await
            .unwrap();
    }
    // Another token sent to `a` in the same transaction as its own: an entry of its own.
    let other_token = Address::from_bytes([9; 20]);
    let other = DepositTransfer {
        token: other_token,
        ..transfer(&a, 1, 3_000_000, true)
    };
    store
        .record_deposit(&write(&a, 10_000_000, 10_000_000, other))
        .await
        .unwrap();
    let chain = ChainId::BaseSepolia;
    let sender = Address::from_bytes([5; 20]);
    let now = at(0);
    let entries = |v: Vec<(CheckoutSession, Address)>| {
        let mut e: Vec<_> = v.into_iter().map(|(s, t)| (s.id, t)).collect();
        e.sort_by_key(|(i, t)| (i.uuid(), *t));
        e
    };
    let mut all = vec![
        (a.id, a.token_address),
        (a.id, other_token),
        (b.id, b.token_address),
    ];
    all.sort_by_key(|(i, t)| (i.uuid(), *t));
    assert_eq!(
        entries(store.unswept_deposits(chain, now, 50).await.unwrap()),
        all
    );
    let sign = |byte: u8| {
        move |_nonce: u64| {
            Ok::<_, String>(stablepay_domain::ports::SignedTx {
                hash: TxHash::from_bytes([byte; 32]),
                raw: vec![byte],
            })
        }
    };
    let fees = || stablepay_domain::ports::AttemptFees {
        max_fee_wei: 3_000,
        priority_fee_wei: 300,
        sent_block: 20,
    };
    // The one sweep in flight; its newest attempt first.
    let in_flight = || async {
        let mut sent = store.sent_sweeps(chain).await.unwrap();
        assert_eq!(sent.len(), 1);
        let sweep = sent.remove(0);
        assert_eq!(sweep.attempts[0].tx_hash, sweep.tx_hash);
        assert_eq!(sweep.session, None);
        sweep
    };
    let sweep = store
        .store_deposit_sweep(chain, sender, 0, &all, now, fees(), &sign(0x51))
        .await
        .unwrap()
        .expect("signed")
        .hash;
    assert!(store
        .unswept_deposits(chain, now, 50)
        .await
        .unwrap()
        .is_empty());
    // Nothing left to take: nothing is signed.
    assert!(store
        .store_deposit_sweep(chain, sender, 0, &all, now, fees(), &sign(0x52))
        .await
        .unwrap()
        .is_none());

    // Mined, with `a`'s own-token entry failed: `b` and `a`'s other token stay swept,
    // `a`'s own token comes back after its delay.
    store
        .sweep_mined(
            &in_flight().await,
            &mined(sweep, vec![(session_ref(&a.id), a.token_address)]),
            now,
        )
        .await
        .unwrap();
    assert!(store
        .unswept_deposits(chain, now, 50)
        .await
        .unwrap()
        .is_empty());
    assert_eq!(
        entries(store.unswept_deposits(chain, at(31), 50).await.unwrap()),
        vec![(a.id, a.token_address)]
    );
    let swept = DepositStore::deposit_transfers(&store, b.id).await.unwrap();
    assert_eq!(swept[0].swept_by, Some(sweep));
    let a_rows = DepositStore::deposit_transfers(&store, a.id).await.unwrap();
    let by_token = |t: Address| a_rows.iter().find(|r| r.token == t).unwrap().swept_by;
    assert_eq!(by_token(other_token), Some(sweep));
    assert_eq!(by_token(a.token_address), None);

    // A dropped sweep gives its rows back at once.
    let again = store
        .store_deposit_sweep(
            chain,
            sender,
            0,
            &[(a.id, a.token_address)],
            at(31),
            fees(),
            &sign(0x53),
        )
        .await
        .unwrap()
        .expect("signed")
        .hash;
    let dropped = in_flight().await;
    assert_eq!(dropped.tx_hash, again);
    store.sweep_dropped(&dropped, at(31)).await.unwrap();
    assert_eq!(
        entries(store.unswept_deposits(chain, at(31), 50).await.unwrap()),
        vec![(a.id, a.token_address)]
    );
    assert_eq!(store.sent_sweeps(chain).await.unwrap().len(), 0);

    // New money for `a` while its failed row still waits out its delay: a sweep takes the
    // new row only; the waiting one is not pulled back in early.
    store
        .record_deposit(&write(
            &a,
            10_000_000,
            11_000_000,
            transfer(&a, 5, 1_000_000, true),
        ))
        .await
        .unwrap();
    let early = store
        .store_deposit_sweep(
            chain,
            sender,
            0,
            &[(a.id, a.token_address)],
            now,
            fees(),
            &sign(0x54),
        )
        .await
        .unwrap()
        .expect("the new row is due")
        .hash;
    let rows = DepositStore::deposit_transfers(&store, a.id).await.unwrap();
    let own = |tx: u8| {
        rows.iter()
            .find(|r| r.token == a.token_address && r.tx_hash == TxHash::from_bytes([tx; 32]))
            .unwrap()
            .swept_by
    };
    assert_eq!(own(5), Some(early));
    assert_eq!(own(1), None, "still waiting out its retry delay");

    // Replaced at higher fees: the sweep and its rows name the replacement.
    let sweep = in_flight().await;
    let replacement = TxHash::from_bytes([0x55; 32]);
    let raised = stablepay_domain::ports::AttemptFees {
        max_fee_wei: 3_375,
        priority_fee_wei: 338,
        sent_block: 23,
    };
    let replace = |replaces: TxHash| {
        let store = store.clone();
        async move {
            stablepay_postgres::testing::replace_attempt(
                &store,
                stablepay_domain::ports::WorkKind::Sweep,
                chain,
                sender,
                sweep.nonce,
                &replaces,
                (&replacement, &[0x55]),
                raised,
                false,
                now,
            )
            .await
            .unwrap()
        }
    };
    assert!(replace(early).await);
    assert!(!replace(early).await, "only over the newest attempt");
    let swept_by = |rows: Vec<DepositTransfer>| {
        rows.iter()
            .find(|r| r.token == a.token_address && r.tx_hash == TxHash::from_bytes([5; 32]))
            .unwrap()
            .swept_by
    };
    let rows = DepositStore::deposit_transfers(&store, a.id).await.unwrap();
    assert_eq!(swept_by(rows), Some(replacement));
    let sweep = in_flight().await;
    assert_eq!((sweep.attempts.len(), sweep.sent_block), (2, 23));
    // The first attempt is the one mined: the sweep and its rows name it again.
    store
        .sweep_mined(&sweep, &mined(early, vec![]), now)
        .await
        .unwrap();
    let rows = DepositStore::deposit_transfers(&store, a.id).await.unwrap();
    assert_eq!(swept_by(rows), Some(early));
    assert!(store.sent_sweeps(chain).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_revoked_recipients_deposits_are_booked_but_not_swept() {
    let (store, _) = fresh_store().await;
    let merchant = new_merchant(&store, "M").await;
    let s = deposit_session(&store, merchant, 1).await;
    store
        .record_deposit(&write(&s, 0, 10_000_000, transfer(&s, 1, 10_000_000, true)))
        .await
        .unwrap();
    let chain = ChainId::BaseSepolia;
    let due = |store: PgStore| async move {
        store
            .unswept_deposits(chain, at(0), 50)
            .await
            .unwrap()
            .into_iter()
            .map(|(s, _)| s.id)
            .collect::<Vec<_>>()
    };
    // No wallet of the merchant at the recipient: booked (the transfer row), not swept.
    assert!(due(store.clone()).await.is_empty());
    assert_eq!(
        DepositStore::deposit_transfers(&store, s.id)
            .await
            .unwrap()
            .len(),
        1
    );
    verified_recipient(&store, merchant).await;
    assert_eq!(due(store.clone()).await, vec![s.id]);
    // Revoked: left where it is again.
    execute_sql(
        &store,
        "UPDATE wallets SET status = 'revoked', revoked_mode = 'live'",
    )
    .await
    .unwrap();
    assert!(due(store.clone()).await.is_empty());
}

/// `tx` mined and succeeded, with the `failed` (session ref, token) entries.
fn mined(tx: TxHash, failed: Vec<([u8; 32], Address)>) -> stablepay_domain::ports::MinedSweep {
    stablepay_domain::ports::MinedSweep {
        attempt: stablepay_domain::ports::ChargeAttempt {
            tx_hash: tx,
            fill: false,
        },
        gas: stablepay_postgres::testing::gas_receipt(true, 100_000, 1_000),
        failed,
    }
}
