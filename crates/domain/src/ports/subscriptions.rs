use async_trait::async_trait;

use super::{EventDraft, SettlementWrite, StoreError};
use crate::model::{
    Address, BalanceTransaction, ChainId, CheckoutSession, CheckoutSessionId, MerchantId, Payment,
    PaymentAttempt, PaymentStatus, Subscription, SubscriptionId, Timestamp, TxHash,
};
use crate::rules::plans::PlanTerms;

/// A subscription with the terms billing needs beyond the API resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionRecord {
    pub subscription: Subscription,
    /// The `SubscriptionManager` that holds it on chain.
    pub manager: Address,
    /// The plan's recipient (a settlement wallet of the merchant) and token.
    pub recipient: Address,
    pub token: Address,
    /// The fee snapshot the subscriber signed up with (charged every period).
    pub fee_micros: u64,
    pub checkout_session: Option<CheckoutSessionId>,
    pub customer_reference: Option<String>,
    pub metadata: String,
    /// Bumped by every billing write; a write names the version it read and is
    /// refused (`Stale`) when another writer got there first.
    pub version: i64,
}

/// A plan a merchant opened a subscription checkout with (registered automatically).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredPlan {
    pub merchant_id: MerchantId,
    pub chain: ChainId,
    pub manager: Address,
    pub terms: PlanTerms,
    pub created_at: Timestamp,
}

/// The first charge of a subscription checkout, at depth: everything it creates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionStart {
    /// The session as completed (the store writes nothing if it completed meanwhile), or,
    /// when [`Self::held`], as it stays open with its customer and subscription set.
    pub session: CheckoutSession,
    pub subscription: SubscriptionRecord,
    pub payment: Payment,
    pub attempt: PaymentAttempt,
    pub events: Vec<EventDraft>,
    /// The first charge's ledger entries (D32).
    pub ledger: Vec<BalanceTransaction>,
}

impl SubscriptionStart {
    /// The subscriber was listed after its subscribe moved the money (D33): the payment is
    /// held for review, the subscription recorded paused, the session not completed.
    pub fn held(&self) -> bool {
        self.payment.review.is_some()
    }
}

/// A payment to write, with the status of the record it replaces (`None`: new).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentUpsert {
    pub payment: Payment,
    pub replaces: Option<PaymentStatus>,
}

/// One billing change of a subscription: its new state, the period's payment, the
/// attempt and the events, written in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BillingWrite {
    /// The state after the write; `version` is the one it was decided from.
    pub subscription: SubscriptionRecord,
    pub payment: Option<PaymentUpsert>,
    pub attempt: Option<PaymentAttempt>,
    pub events: Vec<EventDraft>,
    /// The keeper transaction this write settles (marked done in the same transaction).
    pub settles_charge_tx: Option<TxHash>,
    /// The ledger entries of a charge this write confirms (D32); empty otherwise.
    pub ledger: Vec<BalanceTransaction>,
    /// Keeps other workers off the subscription until then (`None` releases the claim).
    pub hold_until: Option<Timestamp>,
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait SubscriptionStore: Send + Sync {
    /// Records the plan for the merchant (idempotent).
    async fn register_plan(&self, plan: &RegisteredPlan) -> Result<(), StoreError>;

    /// The subscription `manager` holds as `chain_subscription_id` on `chain`.
    async fn subscription_by_chain_id(
        &self,
        chain: ChainId,
        manager: Address,
        chain_subscription_id: u128,
    ) -> Result<Option<SubscriptionRecord>, StoreError>;

    /// A subscription by id alone, for the public portal (the id is the capability).
    async fn subscription_public(
        &self,
        id: SubscriptionId,
    ) -> Result<Option<SubscriptionRecord>, StoreError>;

    /// The recurring payment recorded for `period` (failed or confirmed), if any.
    async fn payment_for_period(
        &self,
        subscription: SubscriptionId,
        period: Timestamp,
    ) -> Result<Option<Payment>, StoreError>;

    /// How many attempts were recorded for `period`.
    async fn attempts_in_period(
        &self,
        subscription: SubscriptionId,
        period: Timestamp,
    ) -> Result<u32, StoreError>;

    /// Writes a subscription's start in one transaction. `Stale` when the subscription
    /// already exists or the session completed meanwhile.
    async fn record_subscription_start(
        &self,
        start: &SubscriptionStart,
    ) -> Result<SettlementWrite, StoreError>;

    /// Writes a billing change in one transaction, only if the subscription is still at
    /// the version it was decided from and the payment still in `replaces` (else `Stale`).
    async fn record_billing(&self, write: &BillingWrite) -> Result<SettlementWrite, StoreError>;

    /// Claims up to `limit` subscriptions on `chain` that are due at `now` (`active` with
    /// `next_payment_at`, or `past_due` with `next_retry_at`, passed), not claimed by
    /// another worker and without a charge in flight, until `lease_until`
    /// (`FOR UPDATE SKIP LOCKED`: safe with several workers).
    async fn claim_due(
        &self,
        chain: ChainId,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
    ) -> Result<Vec<SubscriptionRecord>, StoreError>;

    /// The merchant's display name (for the public portal).
    async fn merchant_name(&self, merchant: MerchantId) -> Result<Option<String>, StoreError>;

    /// The subscription managers on `chain` that hold recorded subscriptions (live or
    /// ended): after a rotation the old manager's events are still read and recorded, and
    /// a charge mined after the last of them was canceled is still booked.
    async fn managers_in_use(&self, chain: ChainId) -> Result<Vec<Address>, StoreError>;

    /// The merchant's subscriptions that pay `recipient` and are not canceled or expired.
    async fn live_for_recipient(
        &self,
        merchant: MerchantId,
        recipient: Address,
    ) -> Result<Vec<SubscriptionRecord>, StoreError>;
}
