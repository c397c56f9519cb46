//! The settlement store against a real PostgreSQL: every write re-checks, under the
//! session row lock, the state the domain decided from (D17), so racing writers settle a
//! session exactly once; two relayer keys keep one relay per session.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::{RelayRecords, SenderLedger, SentRelays};
use stablepay_domain::rules::ledger::{payment_entries, MoneyIn};
use std::time::Duration;

use chrono::Utc;
use stablepay_domain::ports::*;
use stablepay_domain::*;
use stablepay_postgres::testing::{
    execute_sql, fresh_store, new_merchant, query_strings, stored_session,
};
use stablepay_postgres::PgStore;

fn at(secs: i64) -> Timestamp {
    Timestamp::new(Utc::now() + chrono::Duration::seconds(secs))
}

async fn open_session(store: &PgStore) -> CheckoutSession {
    let merchant = new_merchant(store, "M").await;
    stored_session(store, merchant, None).await
}

fn payment(s: &CheckoutSession, status: PaymentStatus, block: u64) -> Payment {
    Payment {
        id: PaymentId::generate(),
        merchant_id: s.merchant_id,
        mode: s.mode,
        status,
        charge_type: ChargeType::OneTime,
        subscription: None,
        customer: None,
        checkout_session: Some(s.id),
        customer_reference: None,
        amount: s.amount,
        currency: s.currency,
        fee_micros: s.fee_micros,
        merchant_micros: s.net_micros,
        refunded_micros: 0,
        overpaid_micros: 0,
        underpaid_micros: 0,
        reversed: false,
        review: None,
        wallet_address: Address::from_bytes([3; 20]),
        chain: s.chain,
        token_address: s.token_address,
        tx_hash: Some(TxHash::from_bytes([9; 32])),
        log_index: Some(2),
        block_number: Some(block),
        period_key: None,
        block_hash: Some(BlockHash::from_bytes([block as u8; 32])),
        metadata: "{}".into(),
        created_at: at(0),
    }
}

fn event(s: &CheckoutSession, event_type: EventType) -> EventDraft {
    EventDraft {
        merchant_id: s.merchant_id,
        mode: s.mode,
        event_type,
        object_json: "{}".into(),
        created_at: at(0),
    }
}

fn write(
    p: &Payment,
    replaces: Option<PaymentStatus>,
    completes: Option<&CheckoutSession>,
) -> CheckoutSettlement {
    CheckoutSettlement {
        payment: p.clone(),
        replaces,
        completed_session: completes.map(|s| CheckoutSession {
            status: SessionStatus::Completed,
            tx_hash: p.tx_hash,
            completed_at: Some(at(0)),
            ..s.clone()
        }),
        events: completes
            .map(|s| vec![event(s, EventType::CheckoutSessionCompleted)])
            .unwrap_or_default(),
        ledger: if p.status == PaymentStatus::Confirmed {
            payment_entries(p, MoneyIn::Payment, at(0), at(0)).unwrap()
        } else {
            Vec::new()
        },
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn racing_writers_settle_a_session_once_and_pending_payments_move_fail_and_revive() {
    let (store, _) = fresh_store().await;
    let s = open_session(&store).await;

    // Two writers both decided "new payment" (different ids): the second is stale.
    let first = payment(&s, PaymentStatus::Pending, 100);
    let second = payment(&s, PaymentStatus::Pending, 100);
    assert_eq!(
        store
            .record_checkout_settlement(&write(&first, None, None))
            .await
            .unwrap(),
        SettlementWrite::Written
    );
    assert_eq!(
        store
            .record_checkout_settlement(&write(&second, None, None))
            .await
            .unwrap(),
        SettlementWrite::Stale
    );
    let found = store
        .payment_for_session_tx(s.chain, first.tx_hash.unwrap(), s.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((found.id, found.block_hash), (first.id, first.block_hash));

    // Receipt misses are remembered for pending payments; a move resets them.
    store.record_receipt_miss(first.id, 2, 104).await.unwrap();
    let listed = store.pending_payments(s.chain, None, 10).await.unwrap();
    assert_eq!(
        (
            listed.len(),
            listed[0].receipt_misses,
            listed[0].last_miss_head
        ),
        (1, 2, Some(104))
    );
    let moved = Payment {
        block_number: Some(101),
        block_hash: Some(BlockHash::from_bytes([101; 32])),
        log_index: Some(7),
        ..first.clone()
    };
    assert_eq!(
        store
            .record_checkout_settlement(&write(&moved, Some(PaymentStatus::Pending), None))
            .await
            .unwrap(),
        SettlementWrite::Written
    );
    let listed = store.pending_payments(s.chain, None, 10).await.unwrap();
    assert_eq!(
        (
            listed[0].payment.block_number,
            listed[0].payment.log_index,
            listed[0].receipt_misses
        ),
        (Some(101), Some(7), 0)
    );

    // A write expecting another state is stale.
    assert_eq!(
        store
            .record_checkout_settlement(&write(&moved, Some(PaymentStatus::Failed), None))
            .await
            .unwrap(),
        SettlementWrite::Stale
    );

    // Failing needs the record as it was read: a snapshot with other misses changes
    // nothing; the current one fails it once; no longer listed as pending.
    let read = store
        .pending_payments(s.chain, None, 10)
        .await
        .unwrap()
        .remove(0);
    let stale = PendingPayment {
        receipt_misses: read.receipt_misses + 1,
        ..read.clone()
    };
    assert!(!store.fail_pending_payment(&stale).await.unwrap());
    assert!(store.fail_pending_payment(&read).await.unwrap());
    assert!(!store.fail_pending_payment(&read).await.unwrap());
    assert!(store
        .pending_payments(s.chain, None, 10)
        .await
        .unwrap()
        .is_empty());

    // Revived at depth: confirmed, the session completes, its event is written.
    let confirmed = Payment {
        status: PaymentStatus::Confirmed,
        ..moved.clone()
    };
    assert_eq!(
        store
            .record_checkout_settlement(&write(&confirmed, Some(PaymentStatus::Failed), Some(&s)))
            .await
            .unwrap(),
        SettlementWrite::Written
    );
    let session = SessionRepository::get_public(&store, s.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(session.status, SessionStatus::Completed);

    // Completing an already completed session is stale, even for a "new" payment.
    let other = Payment {
        tx_hash: Some(TxHash::from_bytes([8; 32])),
        status: PaymentStatus::Confirmed,
        ..payment(&s, PaymentStatus::Confirmed, 120)
    };
    assert_eq!(
        store
            .record_checkout_settlement(&write(&other, None, Some(&s)))
            .await
            .unwrap(),
        SettlementWrite::Stale
    );
    assert!(store
        .payment_for_session_tx(s.chain, other.tx_hash.unwrap(), s.id)
        .await
        .unwrap()
        .is_none());

    // The ledger (D32) holds the one confirmation, with its block, and nothing of the
    // pending writes or the stale one; it refuses edits and deletes.
    let ledger = "SELECT concat_ws(' ', type, payment_id, amount_micros, fee_micros, \
                  block_number) AS value FROM balance_transactions ORDER BY id";
    let entries = query_strings(&store, ledger).await.unwrap();
    assert_eq!(
        entries,
        [format!(
            "payment {} {} {} 101",
            confirmed.id.uuid(),
            confirmed.amount.micros(),
            confirmed.fee_micros
        )]
    );
    for edit in [
        "UPDATE balance_transactions SET amount_micros = 0",
        "DELETE FROM balance_transactions",
    ] {
        let refused = execute_sql(&store, edit).await.unwrap_err();
        assert!(refused.contains("append-only"), "{edit}: {refused}");
    }
    assert_eq!(query_strings(&store, ledger).await.unwrap(), entries);
}

/// Two relayer keys store a relay for one session (two payers') at the same moment: both look and find
/// no live relay, the session's unique index keeps one insert, and the other call answers
/// with that one's transaction (`Existing`), its own rolled back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_relayer_keys_racing_for_one_session_keep_one_relay() {
    use stablepay_domain::ports::{AttemptFees, RelayFor, StoredRelay};
    let (store, _) = fresh_store().await;
    let chain = ChainId::BaseSepolia;
    let now = at(0);
    let relay = RelayFor {
        session: CheckoutSessionId::generate(),
        payer: Address::from_bytes([0xa1; 20]),
        valid_before: u64::try_from(now.unix_seconds()).unwrap() + 600,
        nonce: [0x31; 32],
        terms: None,
        token: Address::from_bytes([0x70; 20]),
        value: 10_000_000,
        payer_balance: 10_000_000,
        code_hash: None,
        fill: None,
    };
    let fees = AttemptFees {
        max_fee_wei: 2_000,
        priority_fee_wei: 200,
        sent_block: 1,
    };
    // Each signs only once both have looked, so neither saw the other's row. A call that
    // never gets there (the two serialised) fails the test after 10 s instead of hanging.
    let looked = std::sync::Arc::new((std::sync::Mutex::new(0u8), std::sync::Condvar::new()));
    let store_by = |key: u8| {
        let (store, looked, relay) = (store.clone(), looked.clone(), relay.clone());
        tokio::spawn(async move {
            let sign = move |n: u64| {
                let (count, both) = &*looked;
                let mut count = count.lock().unwrap();
                *count += 1;
                both.notify_all();
                let (count, waited) = tokio::task::block_in_place(|| {
                    both.wait_timeout_while(count, Duration::from_secs(10), |c| *c < 2)
                        .unwrap()
                });
                if waited.timed_out() {
                    return Err(format!("only {count} of 2 calls looked before signing"));
                }
                Ok::<_, String>(stablepay_domain::ports::SignedTx {
                    hash: TxHash::from_bytes([key; 32]),
                    raw: vec![n as u8],
                })
            };
            let sender = Address::from_bytes([key; 20]);
            // Two payers of the session (one payer's relays are judged one at a time,
            // whichever key sends them, so only two payers can race to the index).
            let relay = RelayFor {
                payer: Address::from_bytes([key; 20]),
                ..relay
            };
            store
                .store_relayed_payment(chain, sender, 0, relay, now, fees, &sign)
                .await
                .unwrap()
        })
    };
    let (a, b) = tokio::join!(store_by(0x51), store_by(0x52));
    let outcomes = [a.unwrap(), b.unwrap()];
    let kept = store
        .relayed_for_session(relay.session)
        .await
        .unwrap()
        .expect("one live relay");
    let new = outcomes
        .iter()
        .filter(|o| matches!(o, StoredRelay::New(s) if s.hash == kept))
        .count();
    assert_eq!(new, 1, "{outcomes:?}");
    assert!(
        outcomes.contains(&StoredRelay::Existing(kept)),
        "{outcomes:?}"
    );
    assert_eq!(store.sent_relays(chain).await.unwrap().len(), 1);
}

/// The ledger export (D32) reads every selected entry in keyset batches, oldest first:
/// 2,500 entries come back whole, in order, in three batches, without the other mode's.
#[tokio::test(flavor = "multi_thread")]
async fn the_ledger_export_streams_every_entry_in_batches_oldest_first() {
    use futures_util::StreamExt;
    let (store, _) = fresh_store().await;
    let s = open_session(&store).await;
    let p = payment(&s, PaymentStatus::Confirmed, 101);
    store
        .record_checkout_settlement(&write(&p, None, Some(&s)))
        .await
        .unwrap();
    // 2,499 more entries like the first, a second apart, and 7 of the other mode.
    let copies = "INSERT INTO balance_transactions \
        SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, merchant_id, \
               CASE WHEN g > 2499 THEN NOT livemode ELSE livemode END, type, payment_id, \
               refund_id, amount_micros, fee_micros, net_micros, currency, chain_id, \
               token_address, tx_hash, log_index, block_number, block_time, \
               created_at - g * interval '1 second' \
        FROM balance_transactions, generate_series(1, 2506) g";
    assert_eq!(execute_sql(&store, copies).await.unwrap(), 2506);

    let export = |filter: BalanceTransactionFilter| {
        let store = store.clone();
        async move {
            store
                .balance_transaction_export(s.merchant_id, s.mode, &filter)
                .await
                .unwrap()
                .map(Result::unwrap)
                .collect::<Vec<_>>()
                .await
        }
    };
    let batches = export(BalanceTransactionFilter::default()).await;
    let sizes: Vec<usize> = batches.iter().map(Vec::len).collect();
    assert_eq!(sizes, [1000, 1000, 500]);
    let entries: Vec<BalanceTransaction> = batches.into_iter().flatten().collect();
    assert!(entries.windows(2).all(|w| w[0].id.uuid() < w[1].id.uuid()));
    assert!(entries.iter().all(|e| e.mode == s.mode));
    let total: i64 = entries.iter().map(|e| e.net_micros).sum();
    assert_eq!(total, 2500 * p.merchant_micros as i64);

    // The list's filters: booked before the first entry, only the 2,499 older copies.
    let older = export(BalanceTransactionFilter {
        created_lt: Some(entries.last().unwrap().created_at),
        ..Default::default()
    })
    .await;
    assert_eq!(older.iter().map(Vec::len).sum::<usize>(), 2499);
    // Nothing selected: an empty stream, not an empty batch.
    let none = export(BalanceTransactionFilter {
        kind: Some(BalanceType::Refund),
        ..Default::default()
    })
    .await;
    assert!(none.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_booked_payment_is_listed_by_block_and_rebooked_only_as_it_was_read() {
    use stablepay_domain::rules::ledger::{rebooking_of_payment, reversal_of_payment, MinedAt};
    let (store, _) = fresh_store().await;
    let s = open_session(&store).await;
    let p = payment(&s, PaymentStatus::Confirmed, 120);
    store
        .record_checkout_settlement(&write(&p, None, Some(&s)))
        .await
        .unwrap();
    // A pending payment of another session is not booked.
    let other = stored_session(&store, s.merchant_id, None).await;
    let pending = payment(&other, PaymentStatus::Pending, 121);
    store
        .record_checkout_settlement(&write(&pending, None, None))
        .await
        .unwrap();

    let listed = store.booked_payments(s.chain, 100, None, 10).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!((listed[0].payment.id, listed[0].block_number), (p.id, 120));
    assert!(store
        .booked_payments(s.chain, 121, None, 10)
        .await
        .unwrap()
        .is_empty());
    assert!(store
        .booked_payments(s.chain, 100, Some((120, p.id)), 10)
        .await
        .unwrap()
        .is_empty());

    // Reversed: failed, flagged, its entry taken back; a write from a stale read is refused.
    let history = store.payment_history(&p).await.unwrap();
    assert_eq!(history.len(), 1);
    let reversal = Rebooking {
        payment: Payment {
            status: PaymentStatus::Failed,
            reversed: true,
            ..p.clone()
        },
        replaces: (PaymentStatus::Confirmed, p.block_hash.unwrap(), false),
        ledger: reversal_of_payment(&history, at(1)),
    };
    assert_eq!(
        store.rebook_payment(&reversal).await.unwrap(),
        SettlementWrite::Written
    );
    assert_eq!(
        store.rebook_payment(&reversal).await.unwrap(),
        SettlementWrite::Stale
    );
    let listed = store.booked_payments(s.chain, 100, None, 10).await.unwrap();
    assert_eq!(
        (listed[0].payment.status, listed[0].payment.reversed),
        (PaymentStatus::Failed, true),
        "a reversed payment stays watched"
    );

    // Booked again at block 125: confirmed, its history payment, reversal, payment.
    let history = store.payment_history(&p).await.unwrap();
    let at_new = MinedAt {
        block_number: 125,
        block_time: at(2),
        log_index: 4,
    };
    let again = Rebooking {
        payment: Payment {
            block_number: Some(125),
            block_hash: Some(BlockHash::from_bytes([125; 32])),
            log_index: Some(4),
            ..p.clone()
        },
        replaces: (PaymentStatus::Failed, p.block_hash.unwrap(), true),
        ledger: rebooking_of_payment(&history, at_new, at(3)),
    };
    assert_eq!(
        store.rebook_payment(&again).await.unwrap(),
        SettlementWrite::Written
    );
    let history = store.payment_history(&p).await.unwrap();
    let kinds: Vec<_> = history.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            BalanceType::Payment,
            BalanceType::Reversal,
            BalanceType::Payment
        ]
    );
    let net: i64 = history.iter().map(|e| e.net_micros).sum();
    assert_eq!(net, p.merchant_micros as i64);
    let listed = store.booked_payments(s.chain, 100, None, 10).await.unwrap();
    assert_eq!(
        (
            listed[0].block_number,
            listed[0].payment.status,
            listed[0].payment.reversed
        ),
        (125, PaymentStatus::Confirmed, false)
    );
}
