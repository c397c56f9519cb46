use async_trait::async_trait;

use super::StoreError;
use crate::model::{Address, ChainId, RefundId, TxHash};

/// The money the ledger books for one transaction: the sums of its standing money-in
/// entries (payments, overpayments, late payments, charges and their reversals).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookedTx {
    pub tx_hash: TxHash,
    pub amount_micros: i64,
    pub fee_micros: i64,
}

/// A refund entry: money out in the transfer at `log_index` of `tx_hash`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookedRefund {
    pub refund: RefundId,
    pub tx_hash: TxHash,
    pub log_index: u64,
    pub token: Address,
    pub amount_micros: u64,
}

/// A confirmed transfer to a deposit address as the books hold it, and the transaction
/// of the payment that booked its money (`None`: not booked yet, the session waits for
/// the rest of its amount).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepositCover {
    pub tx_hash: TxHash,
    pub to: Address,
    pub token: Address,
    pub booked_as: Option<TxHash>,
}

/// What the books say about a block range of one chain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BooksInRange {
    /// Every transaction with money-in entries in the range, with all of its entries
    /// summed (a reversal booked outside the range included), and the transactions
    /// deposit payments of the range are shown as.
    pub txs: Vec<BookedTx>,
    pub refunds: Vec<BookedRefund>,
    /// Confirmed deposit transfers mined in the range.
    pub deposits: Vec<DepositCover>,
}

/// What `stablepay-api reconcile` and the worker's schedule read and keep (D32).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ReconcileStore: Send + Sync {
    /// The books of blocks `from..=to` on `chain`, every merchant and mode.
    async fn books_in_range(
        &self,
        chain: ChainId,
        from: u64,
        to: u64,
    ) -> Result<BooksInRange, StoreError>;

    /// Keeps the outcome of a scheduled run (the doctor prints the latest).
    async fn record_reconcile_run(
        &self,
        chain: ChainId,
        from: u64,
        to: u64,
        differences: u32,
    ) -> Result<(), StoreError>;

    /// The latest recorded run on `chain`: (from, to, differences, when).
    async fn latest_reconcile_run(
        &self,
        chain: ChainId,
    ) -> Result<Option<(u64, u64, u32, crate::model::Timestamp)>, StoreError>;
}
