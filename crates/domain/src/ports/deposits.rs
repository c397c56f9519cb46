use async_trait::async_trait;

use super::{EventDraft, SettlementWrite, StoreError};
use crate::model::{
    Address, BalanceTransaction, BlockHash, ChainId, CheckoutSession, CheckoutSessionId, Payment,
    PaymentId, Timestamp, TxHash,
};

/// What one transaction sent to one session's deposit address (D24), as its logs or
/// receipt show it: several Transfer logs of the transaction to the address are summed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepositTransfer {
    pub chain: ChainId,
    pub tx_hash: TxHash,
    pub session: CheckoutSessionId,
    pub token: Address,
    /// The sender of the first such Transfer: the payer a refund goes back to.
    pub from: Address,
    pub amount_micros: u64,
    /// The first such Transfer's log index (moves when a reorg re-mines the transaction).
    pub log_index: u64,
    pub block_number: u64,
    pub block_hash: BlockHash,
    /// Seen in a receipt at confirmation depth: only confirmed transfers count.
    pub confirmed: bool,
    /// The payment that recorded this money, once one did.
    pub payment: Option<PaymentId>,
    /// When the watcher first saw it (decides whether it arrived before the session expired).
    pub arrived_at: Timestamp,
    /// The sweep that moved it on to the recipient and treasury, once one was sent.
    pub swept_by: Option<TxHash>,
}

/// A payment a deposit write creates, with the transactions whose money it records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepositPayment {
    pub payment: Payment,
    pub covers: Vec<TxHash>,
}

/// Everything one deposit decision writes, in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DepositWrite {
    pub session: CheckoutSessionId,
    /// The session's confirmed total the decision was made from: the store writes nothing
    /// if it changed meanwhile.
    pub received_before: u64,
    pub received_after: u64,
    /// A transfer as its receipt shows it now (new, moved to another block, or confirmed).
    pub transfer: Option<DepositTransfer>,
    pub payments: Vec<DepositPayment>,
    /// The completed session, when this write completes it (nothing is written if the
    /// session completed meanwhile).
    pub completed_session: Option<CheckoutSession>,
    pub events: Vec<EventDraft>,
    /// The ledger entries of `payments` (D32).
    pub ledger: Vec<BalanceTransaction>,
}

/// Storage of deposit transfers and their payments.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait DepositStore: Send + Sync {
    /// The session whose deposit address on `chain` is `address`, if any.
    async fn session_by_deposit_address(
        &self,
        chain: ChainId,
        address: Address,
    ) -> Result<Option<CheckoutSession>, StoreError>;

    /// Every recorded transfer to `session`'s deposit address.
    async fn deposit_transfers(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Vec<DepositTransfer>, StoreError>;

    /// Those of `candidates` that are deposit addresses on `chain` of sessions that
    /// expire (or expired) at or after `since`: open sessions and those that ended
    /// recently, where late money may arrive. An indexed lookup: its cost follows the
    /// candidates (the recipients a block range's transfers named), not the number of
    /// open sessions.
    async fn watched_among(
        &self,
        chain: ChainId,
        candidates: &[Address],
        since: Timestamp,
    ) -> Result<Vec<Address>, StoreError>;

    /// Writes the decision in one transaction, re-checking under the session's row lock
    /// that its confirmed total is still `received_before`, that every covered transfer is
    /// confirmed and not yet recorded, and, when completing, that the session is not
    /// completed. `Stale` when any of that changed: nothing was written.
    async fn record_deposit(&self, write: &DepositWrite) -> Result<SettlementWrite, StoreError>;

    /// Pending transfers on `chain` in blocks at or below `max_block`, oldest first.
    async fn pending_deposit_transfers(
        &self,
        chain: ChainId,
        max_block: u64,
        limit: u32,
    ) -> Result<Vec<DepositTransfer>, StoreError>;

    /// Deletes a pending transfer whose transaction left the canonical chain, only if it
    /// is still pending in the block `transfer` names. Returns whether it did.
    async fn drop_pending_deposit(&self, transfer: &DepositTransfer) -> Result<bool, StoreError>;

    /// Sessions on `chain` that ended before `now` (completed, or expired) with confirmed
    /// deposit money no payment records yet, at most `limit`.
    async fn sessions_with_unrecorded_deposits(
        &self,
        chain: ChainId,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<CheckoutSessionId>, StoreError>;

    /// A session by id (any merchant): the watcher's fresh read before a decision.
    async fn deposit_session(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Option<CheckoutSession>, StoreError>;
}
