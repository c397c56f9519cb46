//! Re-checks booked payments against the chain over a trailing window (D32): a reorg
//! deeper than the confirmation depth must not leave money in the books that the chain no
//! longer holds. A payment whose block is still canonical costs one shared block-hash read;
//! one whose transaction left the chain is reversed in the ledger (and failed), and one
//! mined again is booked anew where it is now. Unknown answers change nothing (D17).

use std::collections::HashMap;

use futures_util::StreamExt;

use crate::model::{ChargeType, Payment, PaymentStatus, TxHash};
use crate::ports::{BookedPayment, ChainReceipt, Rebooking, SettlementWrite, SubscriptionEvent};
use crate::rules::confirmations::{count_receipt_miss, is_confirmed, RECEIPT_MISSES_BEFORE_FAILED};
use crate::rules::eip712::session_ref;
use crate::rules::ledger::{rebooking_of_payment, reversal_of_payment, MinedAt};
use crate::services::book_ledger::block_time_of;
use crate::services::{SettleDeps, SettleError};

/// Booked payments re-checked per tick at most (round-robin over the window).
pub const BOOKED_RECHECKS_PER_TICK: u32 = 200;
/// Distinct blocks whose hash one tick reads at most: a tick costs the provider at most 8
/// more reads, and a pass over the window takes (its blocks with payments) / 8 ticks.
pub const BOOKED_BLOCKS_PER_TICK: usize = 8;
/// Reads in flight at once.
const CONCURRENCY: usize = 8;

/// What the re-check found for one booked payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BookedCheck {
    /// Its block is still canonical, or the chain's answer is unknown: nothing changed.
    Standing,
    /// Its transaction left the canonical chain: its entries are reversed, it is failed.
    Reversed,
    /// Its transaction is mined (again) elsewhere at depth: booked anew there.
    Rebooked,
    /// Another writer changed it meanwhile; the next tick sees it afresh.
    Stale,
}

/// Re-checks the next batch of booked payments on `chain` mined at `from_block` or later,
/// after `after` (round-robin: pass back what this returns as the next `after`).
pub async fn recheck_booked_payments(
    chain: crate::model::ChainId,
    head: u64,
    from_block: u64,
    after: Option<(u64, crate::model::PaymentId)>,
    deps: &SettleDeps<'_>,
) -> Result<BookedTick, SettleError> {
    let mut batch = deps
        .store
        .booked_payments(chain, from_block, after, BOOKED_RECHECKS_PER_TICK)
        .await?;
    let full = batch.len() == BOOKED_RECHECKS_PER_TICK as usize;
    // One block-hash read per block, however many payments it holds, and only so many.
    let mut blocks: Vec<u64> = batch.iter().map(|b| b.block_number).collect();
    blocks.dedup();
    let cut = blocks.len() > BOOKED_BLOCKS_PER_TICK;
    blocks.truncate(BOOKED_BLOCKS_PER_TICK);
    if let Some(last) = blocks.last() {
        batch.retain(|b| b.block_number <= *last);
    }
    // A short, uncut batch reached the newest: the next tick starts from the oldest again.
    let next = match batch.last() {
        Some(last) if full || cut => Some((last.block_number, last.payment.id)),
        _ => None,
    };
    // A block the node did not answer for is unknown: its payments wait for a later tick.
    let canonical: HashMap<u64, crate::model::BlockHash> = futures_util::stream::iter(blocks)
        .map(|n| async move { (n, deps.chain.block_hash(chain, n).await) })
        .buffer_unordered(CONCURRENCY)
        .filter_map(|(n, hash)| async move { hash.ok().flatten().map(|h| (n, h)) })
        .collect()
        .await;
    let moved: Vec<BookedPayment> = batch
        .into_iter()
        .filter(|b| {
            canonical
                .get(&b.block_number)
                .is_some_and(|hash| b.payment.reversed || *hash != b.block_hash)
        })
        .collect();
    let checked = futures_util::stream::iter(moved)
        .map(|b| async move {
            let outcome = recheck_booked_payment(&b, head, deps).await;
            (b.tx_hash, outcome)
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    Ok(BookedTick { checked, next })
}

/// One tick's re-checks of booked payments whose block changed, and where the next
/// tick starts.
#[derive(Debug)]
pub struct BookedTick {
    pub checked: Vec<(TxHash, Result<BookedCheck, SettleError>)>,
    pub next: Option<(u64, crate::model::PaymentId)>,
}

/// Re-checks one booked payment whose booked block is no longer canonical (or which a
/// reorg already reversed): one receipt read, and one block-time read to book it again.
pub async fn recheck_booked_payment(
    booked: &BookedPayment,
    head: u64,
    deps: &SettleDeps<'_>,
) -> Result<BookedCheck, SettleError> {
    let payment = &booked.payment;
    let contracts = deps.contracts(payment.chain)?;
    let receipt = deps.chain.receipt(payment.chain, booked.tx_hash).await?;
    let deep = |block| is_confirmed(head, block, contracts.confirmations);
    match receipt {
        Some(r) if r.succeeded && deep(r.block_number) => {
            match log_of(payment, &r, contracts.checkout_router) {
                Some(log_index) if payment.reversed || r.block_hash != booked.block_hash => {
                    rebook(booked, &r, log_index, deps).await
                }
                // The receipt names the booked block: the node contradicted itself.
                Some(_) => Ok(BookedCheck::Standing),
                // Mined, final, and without this payment's money: it is gone.
                None => reverse(booked, deps).await,
            }
        }
        // Below depth, or a node that cannot say yet: wait.
        Some(r) if !deep(r.block_number) => Ok(BookedCheck::Standing),
        Some(_) => reverse(booked, deps).await,
        None if payment.reversed => Ok(BookedCheck::Standing),
        None => {
            let (misses, counts) =
                count_receipt_miss(booked.receipt_misses, booked.last_miss_head, head);
            if misses >= RECEIPT_MISSES_BEFORE_FAILED {
                return reverse(booked, deps).await;
            }
            if counts {
                deps.store
                    .record_receipt_miss(payment.id, misses, head)
                    .await?;
            }
            Ok(BookedCheck::Standing)
        }
    }
}

/// The log that carries `payment`'s money in `receipt`: its session's router log, a
/// subscriber's charge, or (a deposit) the payer's transfer of the token.
fn log_of(payment: &Payment, receipt: &ChainReceipt, router: crate::model::Address) -> Option<u64> {
    if payment.charge_type == ChargeType::Recurring {
        let by_payer = |l: &&crate::ports::SubscriptionLog| match &l.event {
            SubscriptionEvent::Charged { subscriber, .. }
            | SubscriptionEvent::Subscribed { subscriber, .. } => {
                *subscriber == payment.wallet_address
            }
            SubscriptionEvent::Canceled { .. } => false,
        };
        return receipt
            .subscription_events
            .iter()
            .find(by_payer)
            .map(|l| l.log_index);
    }
    let reference = payment.checkout_session.as_ref().map(session_ref);
    receipt
        .checkout_paid
        .iter()
        .find(|l| l.router == router && Some(l.reference) == reference)
        .map(|l| l.log_index)
        .or_else(|| {
            receipt
                .transfers
                .iter()
                .find(|t| t.token == payment.token_address && t.from == payment.wallet_address)
                .map(|t| t.log_index)
        })
}

async fn reverse(
    booked: &BookedPayment,
    deps: &SettleDeps<'_>,
) -> Result<BookedCheck, SettleError> {
    let payment = &booked.payment;
    if payment.reversed {
        return Ok(BookedCheck::Standing);
    }
    let history = deps.store.payment_history(payment).await?;
    let rebooking = Rebooking {
        payment: Payment {
            status: PaymentStatus::Failed,
            reversed: true,
            ..payment.clone()
        },
        replaces: (payment.status, booked.block_hash, payment.reversed),
        ledger: reversal_of_payment(&history, deps.clock.now()),
    };
    written(deps, &rebooking, BookedCheck::Reversed).await
}

async fn rebook(
    booked: &BookedPayment,
    receipt: &ChainReceipt,
    log_index: u64,
    deps: &SettleDeps<'_>,
) -> Result<BookedCheck, SettleError> {
    let payment = &booked.payment;
    let history = deps.store.payment_history(payment).await?;
    let block_time = block_time_of(deps.chain, payment.chain, receipt.block_hash).await?;
    let at = MinedAt {
        block_number: receipt.block_number,
        block_time,
        log_index,
    };
    let status = if payment.refunded_micros >= payment.received_micros() {
        PaymentStatus::Refunded
    } else {
        PaymentStatus::Confirmed
    };
    let rebooking = Rebooking {
        payment: Payment {
            status,
            reversed: false,
            log_index: Some(log_index),
            block_number: Some(receipt.block_number),
            block_hash: Some(receipt.block_hash),
            ..payment.clone()
        },
        replaces: (payment.status, booked.block_hash, payment.reversed),
        ledger: rebooking_of_payment(&history, at, deps.clock.now()),
    };
    written(deps, &rebooking, BookedCheck::Rebooked).await
}

async fn written(
    deps: &SettleDeps<'_>,
    rebooking: &Rebooking,
    done: BookedCheck,
) -> Result<BookedCheck, SettleError> {
    Ok(match deps.store.rebook_payment(rebooking).await? {
        SettlementWrite::Written => done,
        SettlementWrite::Stale => BookedCheck::Stale,
    })
}

#[cfg(test)]
mod tests;
