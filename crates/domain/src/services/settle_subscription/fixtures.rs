//! Fixtures shared by the subscription use-case tests (`settle_subscription`,
//! `bill_subscriptions`, `portal_cancel`), each of which compiles this file as its own
//! `fixtures` module: one chain at depth 2 with a `SubscriptionManager`, a 10 USDC plan
//! every 30 days, its subscription record and payments, the manager's logs, a receipt
//! carrying one charge with both Transfer legs, and a harness holding every mocked port.
// Each including test module uses a subset.
#![allow(dead_code)]

use crate::ports::MockDepositStore;
use std::sync::{Arc, Mutex};

use crate::model::{
    Address, Amount, AttemptStatus, BlockHash, ChainId, ChargeType, CheckoutSession,
    CheckoutSessionId, Currency, CustomerId, EventType, MerchantId, Mode, Payment, PaymentAttempt,
    PaymentAttemptId, PaymentId, PaymentStatus, SessionMode, SessionStatus, Subscription,
    SubscriptionId, SubscriptionStatus, Timestamp, TxHash,
};
use crate::ports::{
    BillingWrite, ChainReceipt, EventDraft, MockChainReader, MockChargeKeeper, MockClock,
    MockSettlementStore, MockSubscriptionStore, SettlementWrite, SubscriptionEvent,
    SubscriptionLog, SubscriptionRecord, TokenTransfer,
};
use crate::rules::dunning::{DunningPolicy, FailureCode};
use crate::rules::eip712::session_ref;
use crate::services::{BillingDeps, ChainContracts, ChainDirectory, SettleDeps};

pub(super) const CHAIN: ChainId = ChainId::BaseSepolia;
pub(super) const BLOCK: u64 = 100;
/// A head at which `BLOCK` has the configured two confirmations.
pub(super) const DEEP: u64 = BLOCK + 1;
pub(super) const NET: u64 = 9_900_000;
pub(super) const FEE: u64 = 100_000;
pub(super) const SUB: u128 = 7;
pub(super) const PLAN: u128 = 3;
pub(super) const INTERVAL: u64 = 30 * 86_400;
pub(super) const NOW: i64 = 1_700_000_000;
/// The chain's next due date after the receipt's charge: its period began 10 s ago.
pub(super) const NEXT_CHARGE_AT: u64 = NOW as u64 + INTERVAL - 10;

pub(super) fn addr(n: u8) -> Address {
    Address::from_bytes([n; 20])
}
pub(super) fn manager() -> Address {
    addr(0x15)
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
pub(super) fn subscriber() -> Address {
    addr(0x14)
}
pub(super) fn tx(n: u8) -> TxHash {
    TxHash::from_bytes([n; 32])
}
pub(super) fn bhash() -> BlockHash {
    BlockHash::from_bytes([1; 32])
}
pub(super) fn customer() -> CustomerId {
    CustomerId::from_uuid(uuid::Uuid::from_u128(42))
}
pub(super) fn at(secs: i64) -> Timestamp {
    Timestamp::from_unix_seconds(secs).unwrap()
}
pub(super) fn now() -> Timestamp {
    at(NOW)
}
/// The period the receipt's charge pays, and the next due date after it.
pub(super) fn period() -> Timestamp {
    at(NOW - 10)
}
pub(super) fn next_due() -> Timestamp {
    at(NEXT_CHARGE_AT as i64)
}

/// A subscription checkout of 10 USDC (9.9 net, 0.1 fee) every 30 days on plan `PLAN`.
pub(super) fn session() -> CheckoutSession {
    CheckoutSession {
        id: CheckoutSessionId::generate(),
        merchant_id: MerchantId::generate(),
        mode: Mode::Test,
        session_mode: SessionMode::Subscription,
        status: SessionStatus::Open,
        title: "Pro plan".into(),
        description: None,
        amount: Amount::from_micros(NET + FEE).unwrap(),
        currency: Currency::Usdc,
        fee_bps: 100,
        fee_micros: FEE,
        net_micros: NET,
        fee_tier: "standard".into(),
        chain: CHAIN,
        token_address: token(),
        interval_seconds: Some(INTERVAL),
        chain_plan_id: Some(PLAN.to_string()),
        recipient_address: payee(),
        customer: None,
        subscription: None,
        customer_reference: Some("cust-42".into()),
        success_url: None,
        cancel_url: None,
        wallet_address: None,
        tx_hash: None,
        metadata: r#"{"tier":"pro"}"#.into(),
        expires_at: now().plus_seconds(600),
        completed_at: None,
        created_at: now().plus_seconds(-60),
        deposit_address: None,
        amount_received_micros: 0,
    }
}

/// The subscription `SUB` that the start of `s` records, in `status`, due at the
/// receipt's period, at version 5.
pub(super) fn record_of(s: &CheckoutSession, status: SubscriptionStatus) -> SubscriptionRecord {
    SubscriptionRecord {
        subscription: Subscription {
            id: SubscriptionId::generate(),
            merchant_id: s.merchant_id,
            mode: s.mode,
            status,
            title: s.title.clone(),
            customer: customer(),
            wallet_address: subscriber(),
            chain: CHAIN,
            chain_subscription_id: SUB.to_string(),
            chain_plan_id: PLAN.to_string(),
            amount: s.amount,
            interval_seconds: INTERVAL,
            next_payment_at: Some(period()),
            canceled_at: None,
            retry_count: 0,
            next_retry_at: None,
            last_failure_code: None,
            created_at: now().plus_seconds(-(INTERVAL as i64)),
        },
        manager: manager(),
        recipient: payee(),
        token: token(),
        fee_micros: FEE,
        checkout_session: Some(s.id),
        customer_reference: s.customer_reference.clone(),
        metadata: s.metadata.clone(),
        version: 5,
    }
}

pub(super) fn record(status: SubscriptionStatus) -> SubscriptionRecord {
    record_of(&session(), status)
}

/// `rec`'s payment for the receipt's period: mined by the receipt's charge, or `failed`
/// with nothing on chain.
pub(super) fn payment(rec: &SubscriptionRecord, status: PaymentStatus) -> Payment {
    let sub = &rec.subscription;
    let mined = status != PaymentStatus::Failed;
    Payment {
        id: PaymentId::generate(),
        merchant_id: sub.merchant_id,
        mode: sub.mode,
        status,
        charge_type: ChargeType::Recurring,
        subscription: Some(sub.id),
        customer: Some(customer()),
        checkout_session: None,
        customer_reference: rec.customer_reference.clone(),
        amount: sub.amount,
        currency: Currency::Usdc,
        fee_micros: FEE,
        merchant_micros: NET,
        refunded_micros: 0,
        overpaid_micros: 0,
        wallet_address: subscriber(),
        chain: CHAIN,
        token_address: token(),
        tx_hash: mined.then(|| tx(1)),
        log_index: mined.then_some(4),
        block_number: mined.then_some(BLOCK),
        block_hash: mined.then(bhash),
        period_key: Some(period()),
        metadata: rec.metadata.clone(),
        created_at: now(),
    }
}

/// The succeeded attempt `n` of `sub` for the receipt's charge (its id from the write).
pub(super) fn succeeded(
    id: PaymentAttemptId,
    sub: &Subscription,
    payment: PaymentId,
    n: u32,
) -> PaymentAttempt {
    PaymentAttempt {
        id,
        merchant_id: sub.merchant_id,
        mode: sub.mode,
        subscription: sub.id,
        payment: Some(payment),
        status: AttemptStatus::Succeeded,
        attempt_number: n,
        period_key: period(),
        failure_code: None,
        failure_reason: None,
        tx_hash: Some(tx(1)),
        created_at: now(),
    }
}

/// The failed attempt `n` of `rec` for `period()` with `code` (its id from the write).
pub(super) fn failed_attempt(
    id: PaymentAttemptId,
    rec: &SubscriptionRecord,
    payment: Option<PaymentId>,
    n: u32,
    code: FailureCode,
    tx: Option<TxHash>,
) -> PaymentAttempt {
    let sub = &rec.subscription;
    PaymentAttempt {
        id,
        merchant_id: sub.merchant_id,
        mode: sub.mode,
        subscription: sub.id,
        payment,
        status: AttemptStatus::Failed,
        attempt_number: n,
        period_key: period(),
        failure_code: Some(code.as_str().to_owned()),
        failure_reason: Some(code.reason().to_owned()),
        tx_hash: tx,
        created_at: now(),
    }
}

pub(super) fn log(log_index: u64, event: SubscriptionEvent) -> SubscriptionLog {
    SubscriptionLog {
        manager: manager(),
        log_index,
        event,
    }
}
pub(super) fn subscribed(s: &CheckoutSession) -> SubscriptionLog {
    log(
        3,
        SubscriptionEvent::Subscribed {
            subscription_id: SUB,
            plan_id: PLAN,
            subscriber: subscriber(),
            reference: session_ref(&s.id),
            fee_amount: u128::from(FEE),
        },
    )
}
pub(super) fn charged() -> SubscriptionLog {
    log(
        4,
        SubscriptionEvent::Charged {
            subscription_id: SUB,
            plan_id: PLAN,
            subscriber: subscriber(),
            net_amount: u128::from(NET),
            fee_amount: u128::from(FEE),
            next_charge_at: NEXT_CHARGE_AT,
        },
    )
}
pub(super) fn canceled() -> SubscriptionLog {
    log(
        5,
        SubscriptionEvent::Canceled {
            subscription_id: SUB,
            by: subscriber(),
        },
    )
}

/// The successful receipt of `tx(1)` in `BLOCK` with `events` and both Transfer legs of
/// one charge (net to the payee, fee to the treasury).
pub(super) fn receipt(events: Vec<SubscriptionLog>) -> ChainReceipt {
    let leg = |to, value, log_index| TokenTransfer {
        token: token(),
        from: subscriber(),
        to,
        value: u128::from(value),
        log_index,
    };
    ChainReceipt {
        tx_hash: tx(1),
        block_number: BLOCK,
        block_hash: bhash(),
        succeeded: true,
        transfers: vec![leg(payee(), NET, 0), leg(treasury(), FEE, 1)],
        checkout_paid: vec![],
        subscription_events: events,
    }
}

/// A settlement store that is never asked: charges and cancels need no session.
pub(super) fn no_sessions() -> MockSettlementStore {
    let mut store = MockSettlementStore::new();
    store.expect_session_by_ref().never();
    store.expect_customer_for().never();
    store
}

pub(super) fn no_writes(subs: &mut MockSubscriptionStore) {
    subs.expect_record_subscription_start().never();
    subs.expect_record_billing().never();
}

pub(super) type Seen<T> = Arc<Mutex<Vec<T>>>;

/// Expects exactly one billing write, answered `Written`; returns what was written.
pub(super) fn expect_billing(subs: &mut MockSubscriptionStore) -> Seen<BillingWrite> {
    expect_billings(subs, vec![SettlementWrite::Written])
}

/// Expects exactly `answers.len()` billing writes, answered in order; returns them.
pub(super) fn expect_billings(
    subs: &mut MockSubscriptionStore,
    answers: Vec<SettlementWrite>,
) -> Seen<BillingWrite> {
    let seen = Seen::default();
    let sink = Arc::clone(&seen);
    subs.expect_record_billing()
        .times(answers.len())
        .returning(move |w| {
            let mut written = sink.lock().unwrap();
            written.push(w.clone());
            Ok(answers[written.len() - 1])
        });
    seen
}

/// What was written so far.
pub(super) fn written<T: Clone>(seen: &Seen<T>) -> Vec<T> {
    seen.lock().unwrap().clone()
}

pub(super) fn event_types(events: &[EventDraft]) -> Vec<EventType> {
    events.iter().map(|e| e.event_type).collect()
}

pub(super) fn json(e: &EventDraft) -> serde_json::Value {
    serde_json::from_str(&e.object_json).unwrap()
}

/// Every port of the settlement and billing use cases, mocked; the clock says `now()`
/// and the directory holds `CHAIN` with `manager()` at depth 2 (`DEEP` confirms `BLOCK`).
pub(super) struct Harness {
    pub(super) chain: MockChainReader,
    pub(super) store: MockSettlementStore,
    /// No expectations: no chain here has a deposit factory.
    pub(super) deposits: MockDepositStore,
    pub(super) subscriptions: MockSubscriptionStore,
    pub(super) keeper: MockChargeKeeper,
    pub(super) clock: MockClock,
    pub(super) chains: ChainDirectory,
    pub(super) tokens: crate::services::TokenDirectory,
    pub(super) policy: DunningPolicy,
}

impl Harness {
    pub(super) fn new(store: MockSettlementStore, subscriptions: MockSubscriptionStore) -> Self {
        let mut clock = MockClock::new();
        clock.expect_now().return_const(now());
        Self {
            chain: MockChainReader::new(),
            store,
            deposits: MockDepositStore::new(),
            subscriptions,
            keeper: MockChargeKeeper::new(),
            clock,
            chains: directory(Some(manager())),
            tokens: Default::default(),
            policy: DunningPolicy::default(),
        }
    }

    pub(super) fn settle_deps(&self) -> SettleDeps<'_> {
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

    pub(super) fn billing_deps(&self) -> BillingDeps<'_> {
        BillingDeps {
            settle: self.settle_deps(),
            keeper: &self.keeper,
            policy: &self.policy,
        }
    }
}

/// `CHAIN` at depth 2 with the router, the treasury and `manager` (if any).
pub(super) fn directory(manager: Option<Address>) -> ChainDirectory {
    ChainDirectory::new(vec![ChainContracts {
        chain: CHAIN,
        checkout_router: addr(0x10),
        treasury: treasury(),
        subscription_manager: manager,
        deposit_factory: None,
        confirmations: 2,
    }])
}
