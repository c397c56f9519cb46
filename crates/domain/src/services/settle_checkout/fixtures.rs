//! Fixtures shared by the settlement use-case tests (`settle_checkout`,
//! `recheck_pending_payment`, `scan_chain`): one chain at depth 2, one 10 USDC session, a
//! receipt paying it with both Transfer legs, and store/chain mock helpers.

use crate::ports::MockDepositStore;
use std::sync::{Arc, Mutex};

use chrono::{TimeZone, Utc};
use futures_executor::block_on;

use crate::model::{
    Address, Amount, BlockHash, ChainId, ChargeType, CheckoutSession, CheckoutSessionId, Currency,
    CustomerId, EventType, MerchantId, Mode, Payment, PaymentId, PaymentStatus, SessionMode,
    SessionStatus, Timestamp, TxHash,
};
use crate::ports::{
    ChainError, ChainReceipt, CheckoutPaid, CheckoutSettlement, MockChainReader, MockClock,
    MockSettlementStore, MockSubscriptionStore, PendingPayment, SettlementWrite, TokenTransfer,
};
use crate::rules::eip712::session_ref;
use crate::services::{
    settle_receipt, ChainContracts, ChainDirectory, SettleDeps, SettleError, SettleOutcome,
};

pub(super) const CHAIN: ChainId = ChainId::BaseSepolia;
/// The configured depth: a payment in block B is confirmed from head B + 1.
pub(super) const DEPTH: u64 = 2;
pub(super) const BLOCK: u64 = 100;
pub(super) const NET: u64 = 9_900_000;
pub(super) const FEE: u64 = 100_000;

pub(super) fn addr(n: u8) -> Address {
    Address::from_bytes([n; 20])
}
pub(super) fn router() -> Address {
    addr(0x10)
}
pub(super) fn treasury() -> Address {
    addr(0x11)
}
pub(super) fn token() -> Address {
    addr(0x12)
}
pub(super) fn payee() -> Address {
    addr(0x13)
}
pub(super) fn payer() -> Address {
    addr(0x14)
}
pub(super) fn tx(n: u8) -> TxHash {
    TxHash::from_bytes([n; 32])
}
pub(super) fn bhash(n: u8) -> BlockHash {
    BlockHash::from_bytes([n; 32])
}
pub(super) fn customer() -> CustomerId {
    CustomerId::from_uuid(uuid::Uuid::from_u128(42))
}
pub(super) fn now() -> Timestamp {
    Timestamp::new(Utc.timestamp_opt(1_700_000_000, 0).unwrap())
}

/// One chain (`CHAIN`) with the router, the treasury and a depth of 2.
pub(super) fn directory() -> ChainDirectory {
    ChainDirectory::new(vec![ChainContracts {
        chain: CHAIN,
        checkout_router: router(),
        treasury: treasury(),
        subscription_manager: None,
        deposit_factory: None,
        confirmations: DEPTH,
    }])
}

pub(super) fn clock() -> MockClock {
    let mut clock = MockClock::new();
    clock.expect_now().return_const(now());
    clock
}

/// An open session of 10 USDC (9.9 net, 0.1 fee) on `CHAIN`.
pub(super) fn session() -> CheckoutSession {
    CheckoutSession {
        id: CheckoutSessionId::generate(),
        merchant_id: MerchantId::generate(),
        mode: Mode::Test,
        session_mode: SessionMode::Payment,
        status: SessionStatus::Open,
        title: "Coffee".into(),
        description: None,
        amount: Amount::from_micros(NET + FEE).unwrap(),
        currency: Currency::Usdc,
        fee_bps: 100,
        fee_micros: FEE,
        net_micros: NET,
        fee_tier: "standard".into(),
        chain: CHAIN,
        token_address: token(),
        interval_seconds: None,
        chain_plan_id: None,
        recipient_address: payee(),
        customer: None,
        subscription: None,
        customer_reference: Some("cust-42".into()),
        success_url: None,
        cancel_url: None,
        wallet_address: None,
        tx_hash: None,
        metadata: r#"{"order":"A-1"}"#.into(),
        expires_at: now().plus_seconds(600),
        completed_at: None,
        created_at: now().plus_seconds(-60),
        deposit_address: None,
        amount_received_micros: 0,
    }
}

/// The router's CheckoutPaid log paying `s` exactly.
pub(super) fn paid(s: &CheckoutSession) -> CheckoutPaid {
    CheckoutPaid {
        router: router(),
        reference: session_ref(&s.id),
        payer: payer(),
        recipient: s.recipient_address,
        token: s.token_address,
        net_amount: u128::from(s.net_micros),
        fee_amount: u128::from(s.fee_micros),
        log_index: 2,
    }
}

pub(super) fn transfer(to: Address, value: u64, log_index: u64) -> TokenTransfer {
    TokenTransfer {
        token: token(),
        from: payer(),
        to,
        value: u128::from(value),
        log_index,
    }
}

/// The successful receipt of `tx(1)` in `BLOCK` (hash `bhash(1)`) paying `s` through the
/// router, with both Transfer legs.
pub(super) fn receipt(s: &CheckoutSession) -> ChainReceipt {
    ChainReceipt {
        tx_hash: tx(1),
        block_number: BLOCK,
        block_hash: bhash(1),
        succeeded: true,
        transfers: vec![
            transfer(s.recipient_address, s.net_micros, 0),
            transfer(treasury(), s.fee_micros, 1),
        ],
        checkout_paid: vec![paid(s)],
        subscription_events: vec![],
    }
}

/// The payment a settlement recorded for the first CheckoutPaid log of `r`.
pub(super) fn recorded(s: &CheckoutSession, r: &ChainReceipt, status: PaymentStatus) -> Payment {
    Payment {
        id: PaymentId::generate(),
        merchant_id: s.merchant_id,
        mode: s.mode,
        status,
        charge_type: ChargeType::OneTime,
        subscription: None,
        customer: Some(customer()),
        checkout_session: Some(s.id),
        customer_reference: s.customer_reference.clone(),
        amount: s.amount,
        currency: s.currency,
        fee_micros: s.fee_micros,
        merchant_micros: s.net_micros,
        refunded_micros: 0,
        overpaid_micros: 0,
        wallet_address: payer(),
        chain: s.chain,
        token_address: s.token_address,
        tx_hash: Some(r.tx_hash),
        log_index: Some(r.checkout_paid[0].log_index),
        block_number: Some(r.block_number),
        period_key: None,
        block_hash: Some(r.block_hash),
        metadata: s.metadata.clone(),
        created_at: now().plus_seconds(-3600),
    }
}

/// A store that knows `sessions` by reference and gives `payer()` the customer
/// `customer()`. It reads no payment and writes nothing unless a test says so.
pub(super) fn store_with_sessions(sessions: Vec<CheckoutSession>) -> MockSettlementStore {
    let mut store = MockSettlementStore::new();
    store
        .expect_session_by_ref()
        .returning(move |r| Ok(sessions.iter().find(|s| session_ref(&s.id) == r).cloned()));
    store
        .expect_customer_for()
        .withf(|_, _, who| *who == payer())
        .returning(|_, _, _| Ok(customer()));
    store
}

/// `store_with_sessions` that also knows `payments` by (chain, tx, session).
pub(super) fn store_of(
    sessions: Vec<CheckoutSession>,
    payments: Vec<Payment>,
) -> MockSettlementStore {
    let mut store = store_with_sessions(sessions);
    store
        .expect_payment_for_session_tx()
        .returning(move |chain, tx, session| {
            Ok(payments
                .iter()
                .find(|p| {
                    p.chain == chain && p.tx_hash == Some(tx) && p.checkout_session == Some(session)
                })
                .cloned())
        });
    store
}

/// Every write of the settlement store is refused.
pub(super) fn no_writes(store: &mut MockSettlementStore) {
    store.expect_record_checkout_settlement().never();
    store.expect_record_receipt_miss().never();
    store.expect_fail_pending_payment().never();
    store.expect_set_chain_cursor().never();
}

pub(super) type Written = Arc<Mutex<Vec<CheckoutSettlement>>>;

/// Expects exactly `answers.len()` settlement writes, each satisfying `check`, answered in
/// order; returns what was written.
pub(super) fn expect_writes(
    store: &mut MockSettlementStore,
    answers: Vec<SettlementWrite>,
    check: impl Fn(&CheckoutSettlement) -> bool + Send + 'static,
) -> Written {
    let written = Written::default();
    let sink = written.clone();
    store
        .expect_record_checkout_settlement()
        .times(answers.len())
        .withf(check)
        .returning(move |s| {
            let mut seen = sink.lock().unwrap();
            seen.push(s.clone());
            Ok(answers[seen.len() - 1])
        });
    written
}

/// Expects exactly one settlement write, satisfying `check`; returns it once written.
pub(super) fn expect_write(
    store: &mut MockSettlementStore,
    check: impl Fn(&CheckoutSettlement) -> bool + Send + 'static,
) -> Written {
    expect_writes(store, vec![SettlementWrite::Written], check)
}

/// A store that must not even be asked for a session, let alone write.
pub(super) fn untouched_store() -> MockSettlementStore {
    let mut store = MockSettlementStore::new();
    store.expect_session_by_ref().never();
    no_writes(&mut store);
    store
}

pub(super) fn written(w: &Written) -> Vec<CheckoutSettlement> {
    w.lock().unwrap().clone()
}

pub(super) fn event_types(s: &CheckoutSettlement) -> Vec<EventType> {
    s.events.iter().map(|e| e.event_type).collect()
}

/// A pending write: no events, no completed session.
pub(super) fn is_pending_write(s: &CheckoutSettlement) -> bool {
    s.payment.status == PaymentStatus::Pending
        && s.events.is_empty()
        && s.completed_session.is_none()
}

/// A confirming write that completes the session: two events, completion first.
pub(super) fn is_completing_write(s: &CheckoutSettlement) -> bool {
    s.payment.status == PaymentStatus::Confirmed
        && s.completed_session.as_ref().map(|c| c.status) == Some(SessionStatus::Completed)
        && event_types(s)
            == [
                EventType::CheckoutSessionCompleted,
                EventType::PaymentSucceeded,
            ]
}

pub(super) struct Harness {
    pub(super) chain: MockChainReader,
    pub(super) store: MockSettlementStore,
    /// No expectations: no chain here has a deposit factory.
    pub(super) deposits: MockDepositStore,
    /// No expectations: checkout receipts never reach the subscription store.
    pub(super) subscriptions: MockSubscriptionStore,
    pub(super) clock: MockClock,
    pub(super) chains: ChainDirectory,
    pub(super) tokens: crate::services::TokenDirectory,
}

impl Harness {
    pub(super) fn new(chain: MockChainReader, store: MockSettlementStore) -> Self {
        Self {
            chain,
            store,
            deposits: MockDepositStore::new(),
            subscriptions: MockSubscriptionStore::new(),
            clock: clock(),
            chains: directory(),
            tokens: crate::services::TokenDirectory::new().with(CHAIN, Currency::Usdc, token()),
        }
    }

    pub(super) fn deps(&self) -> SettleDeps<'_> {
        SettleDeps {
            chain: &self.chain,
            store: &self.store,
            deposits: &self.deposits,
            subscriptions: &self.subscriptions,
            clock: &self.clock,
            chains: &self.chains,
            tokens: &self.tokens,
        }
    }

    pub(super) fn settle(
        &self,
        r: &ChainReceipt,
        head: u64,
    ) -> Result<Vec<SettleOutcome>, SettleError> {
        block_on(settle_receipt(CHAIN, r, head, &self.deps()))
    }

    /// Settles `r` at `head` and returns its only outcome.
    pub(super) fn settle_one(&self, r: &ChainReceipt, head: u64) -> SettleOutcome {
        match self.settle(r, head).unwrap().as_slice() {
            [outcome] => outcome.clone(),
            outcomes => panic!("expected one outcome, got {outcomes:?}"),
        }
    }
}

pub(super) fn unavailable() -> ChainError {
    ChainError::Unavailable("timeout".into())
}

/// `s`'s pending payment recorded from `r`, with what earlier re-checks learnt.
pub(super) fn pending(
    s: &CheckoutSession,
    r: &ChainReceipt,
    receipt_misses: u32,
    last_miss_head: Option<u64>,
) -> PendingPayment {
    PendingPayment {
        payment: recorded(s, r, PaymentStatus::Pending),
        tx_hash: r.tx_hash,
        block_number: r.block_number,
        receipt_misses,
        last_miss_head,
    }
}

/// Expects exactly one receipt read of `tx` on `CHAIN`, answered with `answer`.
pub(super) fn expect_receipt(
    chain: &mut MockChainReader,
    tx: TxHash,
    answer: Result<Option<ChainReceipt>, ChainError>,
) {
    chain
        .expect_receipt()
        .withf(move |c, t| *c == CHAIN && *t == tx)
        .times(1)
        .return_const(answer);
}

/// Expects exactly one read of the canonical hash at `number` on `CHAIN`.
pub(super) fn expect_block_hash(
    chain: &mut MockChainReader,
    number: u64,
    answer: Result<Option<BlockHash>, ChainError>,
) {
    chain
        .expect_block_hash()
        .withf(move |c, n| *c == CHAIN && *n == number)
        .times(1)
        .return_const(answer);
}
