//! Following the keeper's charges in flight (D19, D26): any transaction signed at a
//! charge's nonce may be the one mined, so each attempt's receipt is asked for. A mined
//! charge is settled at depth (the watcher's use case), a reverted one at depth recorded
//! as a failed try with the reason the chain gives now, and a mined 0-value fill closes
//! the charge with nothing recorded. One that no attempt of has been mined is followed by
//! the one rule for all sent work ([`follow_unmined`]): once due, and after the
//! subscription is read again, replaced at its nonce, at higher fees while it still
//! charges, by a fill when it was canceled, paused or expired meanwhile (nothing is
//! charged, and the nonces after it are not stuck); given up and closed when its nonce
//! went to another transaction.

use futures_util::StreamExt;

use super::{close_charge, record_failure, BillingDeps, BillingReport, CONCURRENCY};
use crate::model::{ChainId, TxHash};
use crate::ports::{
    ChainReceipt, ChargeAttempt, ChargeSimulation, InFlightCharge, Resent, SubscriptionRecord,
};
use crate::rules::confirmations::is_confirmed;
use crate::services::{follow_unmined, settle_subscription_receipt, SettleOutcome, Unmined};

pub(super) async fn follow_in_flight(
    chain: ChainId,
    deps: &BillingDeps<'_>,
    report: &mut BillingReport,
) {
    let in_flight = match deps.keeper.in_flight(chain).await {
        Ok(list) => list,
        Err(e) => {
            report.errors.push(e.to_string());
            return;
        }
    };
    report.in_flight = in_flight.len();
    if in_flight.is_empty() {
        return;
    }
    let head = match deps.settle.chain.block_number(chain).await {
        Ok(head) => head,
        Err(e) => {
            report.errors.push(e.to_string());
            return;
        }
    };
    let results: Vec<Result<Followed, String>> = futures_util::stream::iter(in_flight)
        .map(|charge| async move { follow_one(&charge, head, deps).await })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    for result in results {
        match result {
            Ok(Followed::Resent(Resent::Filled(_))) => {
                report.replaced += 1;
                report.filled += 1;
            }
            Ok(Followed::Resent(_)) => report.replaced += 1,
            Ok(Followed::NonceLost) => report.nonce_lost += 1,
            Ok(Followed::Settled) => report.settled += 1,
            Ok(Followed::Waiting) => {}
            Err(e) => report.errors.push(e),
        }
    }
}

enum Followed {
    Waiting,
    Resent(Resent),
    NonceLost,
    Settled,
}

/// The first attempt with a receipt, newest first (the node's answer for each).
async fn mined_attempt(
    charge: &InFlightCharge,
    deps: &BillingDeps<'_>,
) -> Result<Option<(ChargeAttempt, ChainReceipt)>, String> {
    for attempt in &charge.work.attempts {
        let receipt = deps
            .settle
            .chain
            .receipt(charge.work.chain, attempt.tx_hash)
            .await
            .map_err(|e| e.to_string())?;
        if let Some(r) = receipt {
            return Ok(Some((*attempt, r)));
        }
    }
    Ok(None)
}

/// The subscription `charge` bills, as stored now (`tx` names the charge in the error).
async fn charged_subscription(
    charge: &InFlightCharge,
    tx: TxHash,
    deps: &BillingDeps<'_>,
) -> Result<SubscriptionRecord, String> {
    deps.settle
        .subscriptions
        .subscription_public(charge.subscription)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("charge {tx} names an unknown subscription"))
}

/// Whether the subscription still wants its charge, read afresh (a portal cancel or a
/// paused recipient may have come after the claim).
async fn still_wanted(
    charge: &InFlightCharge,
    deps: &BillingDeps<'_>,
) -> Result<bool, crate::ports::SendError> {
    let rec = deps
        .settle
        .subscriptions
        .subscription_public(charge.subscription)
        .await?;
    Ok(rec.is_some_and(|r| super::still_charges(r.subscription.status)))
}

async fn follow_one(
    charge: &InFlightCharge,
    head: u64,
    deps: &BillingDeps<'_>,
) -> Result<Followed, String> {
    let chain = charge.work.chain;
    let Some((attempt, receipt)) = mined_attempt(charge, deps).await? else {
        let wanted = still_wanted(charge, deps);
        let unmined = follow_unmined(&charge.work, head, wanted, deps.sending)
            .await
            .map_err(|e| e.to_string())?;
        return match unmined {
            Unmined::Waiting => Ok(Followed::Waiting),
            Unmined::Resent(resent) => Ok(Followed::Resent(resent)),
            Unmined::NonceLost => {
                let tx = charge.work.tx_hash;
                close_charge(charged_subscription(charge, tx, deps).await?, tx, deps).await?;
                Ok(Followed::NonceLost)
            }
        };
    };
    let depth = deps
        .settle
        .contracts(chain)
        .map_err(|e| e.to_string())?
        .confirmations;
    if !is_confirmed(head, receipt.block_number, depth) {
        return Ok(Followed::Waiting);
    }
    let rec = || charged_subscription(charge, receipt.tx_hash, deps);
    if attempt.fill {
        // The nonce went to a fill: nothing was charged, nothing is recorded.
        close_charge(rec().await?, receipt.tx_hash, deps).await?;
        return Ok(Followed::Settled);
    }
    if receipt.succeeded {
        let outcomes = settle_subscription_receipt(chain, &receipt, head, &deps.settle)
            .await
            .map_err(|e| e.to_string())?;
        if outcomes
            .iter()
            .any(|o| matches!(o, SettleOutcome::Deferred(_)))
        {
            return Ok(Followed::Waiting);
        }
        let recorded = outcomes.iter().any(|o| {
            matches!(
                o,
                SettleOutcome::Confirmed(_) | SettleOutcome::AlreadyRecorded(_)
            )
        });
        if !recorded {
            // A successful charge the books cannot take: never expected, so it is
            // reported, and the keeper transaction closed so billing goes on.
            close_charge(rec().await?, receipt.tx_hash, deps).await?;
            return Err(format!(
                "charge {} succeeded but was not recorded: {outcomes:?}",
                receipt.tx_hash
            ));
        }
        return Ok(Followed::Settled);
    }
    // Reverted at depth (the subscriber moved funds or canceled between simulation and
    // mining): record why, as the chain tells it now.
    let rec = rec().await?;
    let chain_id = rec
        .subscription
        .chain_subscription_id
        .parse::<u128>()
        .unwrap_or(0);
    let code = match deps
        .keeper
        .simulate_charge(chain, rec.manager, chain_id)
        .await
    {
        Ok(ChargeSimulation::Fails(code)) => Some(code),
        Ok(_) => None,
        Err(e) => return Err(e.to_string()),
    };
    match code {
        Some(code) => {
            let written = record_failure(
                rec.clone(),
                charge.period_key,
                code,
                Some(receipt.tx_hash),
                deps,
            )
            .await
            .map_err(|e| e.to_string())?;
            if !written {
                close_charge(rec, receipt.tx_hash, deps).await?;
            }
        }
        // Chargeable again (or charged meanwhile): close this one; the claim retries.
        None => close_charge(rec, receipt.tx_hash, deps).await?,
    }
    Ok(Followed::Settled)
}
