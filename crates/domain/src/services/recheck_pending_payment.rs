//! Re-checks a pending payment against the chain (D17): a receipt that pays confirms or
//! moves it; only a transaction provably absent from the canonical chain at depth fails
//! it. A missing receipt, a timeout or an RPC error is unknown and changes nothing.

use crate::ports::PendingPayment;
use crate::rules::confirmations::{count_receipt_miss, is_confirmed, RECEIPT_MISSES_BEFORE_FAILED};
use crate::rules::eip712::session_ref;
use crate::services::{settle_receipt, SettleDeps, SettleError, SettleOutcome};

/// One receipt fetch (plus one block-hash read when the receipt is missing).
pub async fn recheck_pending_payment(
    pending: &PendingPayment,
    head: u64,
    deps: &SettleDeps<'_>,
) -> Result<SettleOutcome, SettleError> {
    let payment = &pending.payment;
    let contracts = deps.contracts(payment.chain)?;
    let still_pending = Ok(SettleOutcome::Pending(payment.id));
    match deps.chain.receipt(payment.chain, pending.tx_hash).await? {
        Some(receipt) => {
            let reference = payment.checkout_session.as_ref().map(session_ref);
            // settle_receipt answers one outcome per router log, in log order.
            let ours = receipt
                .checkout_paid
                .iter()
                .filter(|l| l.router == contracts.checkout_router)
                .position(|l| Some(l.reference) == reference);
            if let (true, Some(position)) = (receipt.succeeded, ours) {
                let outcomes = settle_receipt(payment.chain, &receipt, head, deps).await?;
                return Ok(match outcomes.into_iter().nth(position) {
                    Some(SettleOutcome::Rejected(_)) | None => SettleOutcome::Pending(payment.id),
                    Some(outcome) => outcome,
                });
            }
            // The transaction reverted when it was mined again: a verdict only once that
            // receipt is itself at depth. (A successful receipt without this session's
            // log, e.g. after a router change, is no proof of anything: still pending.)
            if !receipt.succeeded
                && is_confirmed(head, receipt.block_number, contracts.confirmations)
            {
                return fail(pending, deps).await;
            }
            still_pending
        }
        None => {
            // Legacy records without a block hash cannot prove a reorg: never failed.
            let Some(recorded) = payment.block_hash else {
                return still_pending;
            };
            match deps
                .chain
                .block_hash(payment.chain, pending.block_number)
                .await?
            {
                // The node lacks the block, or still has ours (its receipts lag): unknown.
                None => still_pending,
                Some(canonical) if canonical == recorded => still_pending,
                Some(_) => {
                    let (misses, counts) =
                        count_receipt_miss(pending.receipt_misses, pending.last_miss_head, head);
                    if misses >= RECEIPT_MISSES_BEFORE_FAILED
                        && is_confirmed(head, pending.block_number, contracts.confirmations)
                    {
                        return fail(pending, deps).await;
                    }
                    if counts {
                        deps.store
                            .record_receipt_miss(payment.id, misses, head)
                            .await?;
                    }
                    still_pending
                }
            }
        }
    }
}

async fn fail(
    pending: &PendingPayment,
    deps: &SettleDeps<'_>,
) -> Result<SettleOutcome, SettleError> {
    let id = pending.payment.id;
    Ok(if deps.store.fail_pending_payment(pending).await? {
        SettleOutcome::Failed(id)
    } else {
        SettleOutcome::AlreadyRecorded(id)
    })
}

#[cfg(test)]
mod tests;
