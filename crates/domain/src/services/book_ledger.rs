//! The ledger entries a booking writes (D32), with the block time they carry: read from
//! the chain by the block's hash, so an entry names the block its money was mined in.

use crate::model::{BalanceTransaction, BlockHash, ChainId, Payment, Timestamp};
use crate::ports::{ChainError, ChainReader, StoreError};
use crate::rules::ledger::{payment_entries, MoneyIn};
use crate::services::SettleError;

/// The timestamp of the block `hash`. A node that does not know the block (yet, or any
/// more) is an unknown, never a verdict: the caller retries, as for a missing receipt.
pub(crate) async fn block_time_of(
    chain: &dyn ChainReader,
    id: ChainId,
    hash: BlockHash,
) -> Result<Timestamp, ChainError> {
    chain.block_time(id, hash).await?.ok_or_else(|| {
        ChainError::Unavailable("the node does not know the block of a payment yet".into())
    })
}

/// What booking the confirmed `payment` as `kind` adds to the ledger.
pub(crate) async fn entries_for_payment(
    chain: &dyn ChainReader,
    payment: &Payment,
    kind: MoneyIn,
    now: Timestamp,
) -> Result<Vec<BalanceTransaction>, SettleError> {
    // Only mined payments are booked: a missing block is a bug, not a state.
    let unmined = || StoreError::Internal("a confirmed payment without its block".into());
    let hash = payment.block_hash.ok_or_else(unmined)?;
    let mined = block_time_of(chain, payment.chain, hash).await?;
    Ok(payment_entries(payment, kind, mined, now).ok_or_else(unmined)?)
}
