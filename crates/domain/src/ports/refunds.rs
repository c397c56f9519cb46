use async_trait::async_trait;

use super::{EventDraft, StoreError};
use crate::model::{
    AuditEvent, BalanceTransaction, ChainId, Payment, Refund, RefundRequestId, TxHash,
};

/// A verified refund and everything it changes, decided by the domain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundRecord {
    pub refund: Refund,
    pub log_index: u64,
    /// The payment's `refunded_micros` this record was computed from (re-checked under lock).
    pub expected_refunded_micros: u64,
    pub payment_after: Payment,
    pub event: EventDraft,
    /// The refund's ledger entry (D32).
    pub ledger: BalanceTransaction,
    /// Who reported it (D32's audit log).
    pub audit: AuditEvent,
    /// The refund request it pays, marked refunded in the same write.
    pub request: Option<RefundRequestId>,
}

/// What [`RefundStore::record_refund`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundWrite {
    Recorded,
    /// The payment's refunded total is no longer the one the refund was computed from.
    PaymentChanged,
    /// Another refund already records this transfer (chain, transaction, log index).
    TransferTaken,
    /// The refund request it names no longer waits for a refund (paid meanwhile, or
    /// expired at the refund's time).
    RequestChanged,
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait RefundStore: Send + Sync {
    /// Refunds already recorded from this transaction (any payment), with their log index.
    async fn refunds_by_tx(
        &self,
        chain: ChainId,
        tx: TxHash,
    ) -> Result<Vec<(Refund, u64)>, StoreError>;

    /// Writes refund, payment update, event, ledger entry and audit entry atomically, unless the payment changed
    /// since it was read or the transfer already backs a refund (then nothing is written).
    async fn record_refund(&self, record: &RefundRecord) -> Result<RefundWrite, StoreError>;
}
