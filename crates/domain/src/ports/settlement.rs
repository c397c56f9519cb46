use async_trait::async_trait;

use super::{EventDraft, StoreError};
use crate::model::{
    Address, ChainId, CheckoutSession, CustomerId, MerchantId, Mode, Payment, TxHash,
};

/// Everything one verified checkout settlement writes, decided by the domain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutSettlement {
    pub payment: Payment,
    /// Whether a pending record of this payment already exists (it is upgraded in place).
    pub upgrades_pending: bool,
    /// The completed session, when the payment is confirmed.
    pub completed_session: Option<CheckoutSession>,
    pub events: Vec<EventDraft>,
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait SettlementStore: Send + Sync {
    /// The session whose on-chain reference is `reference` (any merchant).
    async fn session_by_ref(
        &self,
        reference: [u8; 32],
    ) -> Result<Option<CheckoutSession>, StoreError>;

    /// The payment recorded for this log, if any.
    async fn payment_by_log(
        &self,
        chain: ChainId,
        tx: TxHash,
        log_index: u64,
    ) -> Result<Option<Payment>, StoreError>;

    /// The customer for (merchant, mode, payer), created on first use (D7).
    async fn customer_for(
        &self,
        merchant: MerchantId,
        mode: Mode,
        payer: Address,
    ) -> Result<CustomerId, StoreError>;

    /// Writes the settlement and its events in one transaction, re-checking under row
    /// locks that the payment is still absent (or pending when `upgrades_pending`).
    /// Returns false when another writer got there first (nothing is written).
    async fn record_checkout_settlement(
        &self,
        settlement: &CheckoutSettlement,
    ) -> Result<bool, StoreError>;

    /// Marks a pending payment `failed` (its transaction reverted or vanished in a reorg).
    async fn fail_pending_payment(&self, payment: &Payment) -> Result<(), StoreError>;

    /// Pending one-time payments on `chain`, oldest first.
    async fn pending_payments(
        &self,
        chain: ChainId,
        limit: u32,
    ) -> Result<Vec<Payment>, StoreError>;

    /// The watcher's next block for `chain`.
    async fn chain_cursor(&self, chain: ChainId) -> Result<Option<u64>, StoreError>;

    async fn set_chain_cursor(&self, chain: ChainId, next_block: u64) -> Result<(), StoreError>;
}
