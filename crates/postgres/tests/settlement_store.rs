//! The settlement store against a real PostgreSQL: every write re-checks, under the
//! session row lock, the state the domain decided from (D17), so racing writers settle a
//! session exactly once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use chrono::Utc;
use stablepay_domain::ports::*;
use stablepay_domain::*;
use stablepay_postgres::testing::{fresh_store, stored_session};
use stablepay_postgres::PgStore;

fn at(secs: i64) -> Timestamp {
    Timestamp::new(Utc::now() + chrono::Duration::seconds(secs))
}

async fn open_session(store: &PgStore) -> CheckoutSession {
    let merchant = store
        .create_merchant("M", FeeTier::Standard)
        .await
        .unwrap()
        .id;
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
}
