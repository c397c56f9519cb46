use async_trait::async_trait;

use super::{EventDraft, StoreError};
use crate::model::{
    Address, BalanceTransaction, BlockHash, ChainId, CheckoutSession, CheckoutSessionId,
    CustomerId, MerchantId, Mode, Payment, PaymentId, PaymentStatus, TxHash,
};

/// Everything one verified checkout settlement writes, decided by the domain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutSettlement {
    /// The payment as it must be after the write (same id when a record exists).
    pub payment: Payment,
    /// The recorded status this write replaces (`None`: no record yet). The store writes
    /// nothing if the record is no longer in this state.
    pub replaces: Option<PaymentStatus>,
    /// The completed session, when this write completes it; the store writes nothing if
    /// the session completed meanwhile.
    pub completed_session: Option<CheckoutSession>,
    pub events: Vec<EventDraft>,
    /// The ledger entries of the payment, when this write confirms it (D32).
    pub ledger: Vec<BalanceTransaction>,
}

/// What `record_checkout_settlement` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettlementWrite {
    /// Everything was written in one transaction.
    Written,
    /// The payment or session changed since it was read (another writer won): nothing
    /// was written; the caller decides again from fresh state.
    Stale,
}

/// A pending payment with what earlier re-checks learnt (D17).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingPayment {
    pub payment: Payment,
    /// The payment's transaction and block (a pending payment always has both).
    pub tx_hash: TxHash,
    pub block_number: u64,
    /// Checks that found no receipt while the recorded block was no longer canonical.
    pub receipt_misses: u32,
    /// The head at the last such check: a miss counts once per head.
    pub last_miss_head: Option<u64>,
}

/// A payment the ledger books (confirmed or refunded), or booked until a reorg took it
/// out (`reversed`), mined in a block the watcher still re-checks (D32).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookedPayment {
    pub payment: Payment,
    /// Where the payment was booked (a booked payment always has all three).
    pub tx_hash: TxHash,
    pub block_number: u64,
    pub block_hash: BlockHash,
    /// Checks that found no receipt while the booked block was no longer canonical.
    pub receipt_misses: u32,
    /// The head at the last such check: a miss counts once per head.
    pub last_miss_head: Option<u64>,
}

/// What a reorg changes on a booked payment (D32), decided by the domain: the payment
/// as it must be after the write, and the ledger entries appended with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rebooking {
    pub payment: Payment,
    /// The status, block hash and `reversed` flag the write replaces: the store writes
    /// nothing if the record is no longer so.
    pub replaces: (PaymentStatus, BlockHash, bool),
    pub ledger: Vec<BalanceTransaction>,
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait SettlementStore: Send + Sync {
    /// The session whose on-chain reference is `reference` (any merchant).
    async fn session_by_ref(
        &self,
        reference: [u8; 32],
    ) -> Result<Option<CheckoutSession>, StoreError>;

    /// The payment of `session` recorded for transaction `tx`, if any. (A transaction
    /// re-mined after a reorg keeps its hash but may change block and log index.)
    async fn payment_for_session_tx(
        &self,
        chain: ChainId,
        tx: TxHash,
        session: CheckoutSessionId,
    ) -> Result<Option<Payment>, StoreError>;

    /// The customer for (merchant, mode, payer), created on first use (D7).
    async fn customer_for(
        &self,
        merchant: MerchantId,
        mode: Mode,
        payer: Address,
    ) -> Result<CustomerId, StoreError>;

    /// Writes the settlement and its events in one transaction, re-checking under row
    /// locks that the payment is still in `replaces` and, when completing, that the
    /// session is not completed. Updating a record resets its receipt misses.
    async fn record_checkout_settlement(
        &self,
        settlement: &CheckoutSettlement,
    ) -> Result<SettlementWrite, StoreError>;

    /// Remembers a receipt miss of a pending or booked payment.
    async fn record_receipt_miss(
        &self,
        payment: PaymentId,
        misses: u32,
        head: u64,
    ) -> Result<(), StoreError>;

    /// Marks a pending payment `failed` (its transaction is provably not in the canonical
    /// chain at depth), only if the record is still as `pending` read it (same status,
    /// block hash and receipt misses). Returns false when it changed meanwhile.
    async fn fail_pending_payment(&self, pending: &PendingPayment) -> Result<bool, StoreError>;

    /// Pending one-time payments on `chain` with an id after `after` (all when `None`),
    /// oldest first, at most `limit`.
    async fn pending_payments(
        &self,
        chain: ChainId,
        after: Option<PaymentId>,
        limit: u32,
    ) -> Result<Vec<PendingPayment>, StoreError>;

    /// Booked payments on `chain` mined at block `from_block` or later, ordered by
    /// (block, id) after `after` (all when `None`), at most `limit`.
    async fn booked_payments(
        &self,
        chain: ChainId,
        from_block: u64,
        after: Option<(u64, PaymentId)>,
        limit: u32,
    ) -> Result<Vec<BookedPayment>, StoreError>;

    /// Every ledger entry of `payment` (its money in, reversals and refunds), oldest first.
    async fn payment_history(
        &self,
        payment: &Payment,
    ) -> Result<Vec<BalanceTransaction>, StoreError>;

    /// Writes the rebooking's payment and entries in one transaction if the record is still
    /// as `replaces` says (else `Stale`, nothing written). Resets the receipt misses.
    async fn rebook_payment(&self, rebooking: &Rebooking) -> Result<SettlementWrite, StoreError>;

    /// The watcher's next block for `chain`.
    async fn chain_cursor(&self, chain: ChainId) -> Result<Option<u64>, StoreError>;

    async fn set_chain_cursor(&self, chain: ChainId, next_block: u64) -> Result<(), StoreError>;
}
