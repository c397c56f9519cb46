//! Sweeping deposit addresses (D24, D26): one `sweepMany` in flight per chain. A sent
//! sweep is settled once its receipt is `depth` deep (one a reorg removes is still in
//! flight): its rows are swept, those of entries that failed in it go back to a later
//! sweep. One unmined is followed by the one rule for sent work ([`follow_unmined`]);
//! a sweep is always still wanted (the money waits at the addresses). With none in
//! flight, the next batch of confirmed, unswept deposits of this factory is sent.

use crate::model::{Address, ChainId, CheckoutSessionId, TxHash};
use crate::ports::{ChainReader, DepositSweeps, GasReceipt, SendError, SentWork, SweepEntry};
use crate::rules::confirmations::is_confirmed;
use crate::rules::deposit::DepositTerms;
use crate::services::follow_sent_work::{follow_unmined, SendingDeps, Unmined};

pub struct SweepDeps<'a> {
    pub sending: SendingDeps<'a>,
    pub sweeps: &'a dyn DepositSweeps,
    pub chain: &'a dyn ChainReader,
}

/// Where and how a chain's deposits are swept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepTarget {
    pub chain: ChainId,
    /// The deposit factory whose addresses are swept (a rotated factory's deposits are
    /// not: sweeping them through this one would move nothing).
    pub factory: Address,
    /// Confirmations before a sweep's receipt is final.
    pub depth: u64,
    /// Entries (session, token) per sweep at most.
    pub batch: u32,
}

/// How a sent sweep ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepSettled {
    /// Mined at depth: succeeded or reverted (`gas.succeeded`), with the entries that
    /// failed in it (all of them go back when it reverted).
    Mined {
        tx: TxHash,
        gas: GasReceipt,
        failed: usize,
    },
    /// It can never be mined (its nonce went elsewhere, or to a fill): its rows go back.
    Dropped,
}

#[derive(Debug, Default)]
pub struct SweepReport {
    pub settled: Vec<(TxHash, SweepSettled)>,
    /// Sweeps still in flight (unmined, replaced, or not yet deep enough).
    pub in_flight: usize,
    /// The sweep sent this tick, and its entries.
    pub sent: Option<(TxHash, usize)>,
    /// Sessions due whose deposit address is another factory's: left alone.
    pub foreign: Vec<CheckoutSessionId>,
    /// Sweeps whose receipt, nonce or store was unknown: counted in flight.
    pub errors: Vec<(TxHash, SendError)>,
    /// Why no new sweep could be sent this tick (what was settled before stands).
    pub send_error: Option<SendError>,
}

/// One tick of sweeping on `target.chain`. Errors: the list of sent sweeps or the head
/// unknown (nothing was settled); a failed new sweep is reported in `send_error`.
pub async fn sweep_deposits(
    target: SweepTarget,
    deps: &SweepDeps<'_>,
) -> Result<SweepReport, SendError> {
    let mut report = SweepReport::default();
    let sent = deps.sweeps.sent_sweeps(target.chain).await?;
    if !sent.is_empty() {
        let head = deps.chain.block_number(target.chain).await?;
        for sweep in &sent {
            match settle_sent(sweep, head, target, deps).await {
                Ok(Some(settled)) => report.settled.push((sweep.tx_hash, settled)),
                Ok(None) => report.in_flight += 1,
                Err(e) => {
                    report.in_flight += 1;
                    report.errors.push((sweep.tx_hash, e));
                }
            }
        }
    }
    if report.in_flight > 0 {
        return Ok(report);
    }
    if let Err(e) = send_next(target, deps, &mut report).await {
        report.send_error = Some(e);
    }
    Ok(report)
}

/// Settles what a sent sweep's receipt says once it is deep enough; `None` while it is
/// in flight (resent or waiting).
async fn settle_sent(
    sweep: &SentWork,
    head: u64,
    target: SweepTarget,
    deps: &SweepDeps<'_>,
) -> Result<Option<SweepSettled>, SendError> {
    let now = deps.sending.clock.now();
    let mined = deps
        .sending
        .receipts
        .mined_sweep(target.chain, target.factory, &sweep.attempts)
        .await?;
    let Some(mined) = mined else {
        let always = async { Ok(true) };
        return Ok(
            match follow_unmined(sweep, head, always, deps.sending).await? {
                Unmined::NonceLost => {
                    deps.sweeps.sweep_dropped(sweep, now).await?;
                    Some(SweepSettled::Dropped)
                }
                Unmined::Waiting | Unmined::Resent(_) => None,
            },
        );
    };
    if !is_confirmed(head, mined.gas.block_number, target.depth) {
        return Ok(None);
    }
    if mined.attempt.fill {
        // Never sent for sweeps; were one mined, the sweep moved nothing.
        deps.sweeps.sweep_dropped(sweep, now).await?;
        return Ok(Some(SweepSettled::Dropped));
    }
    deps.sweeps.sweep_mined(sweep, &mined, now).await?;
    Ok(Some(SweepSettled::Mined {
        tx: mined.attempt.tx_hash,
        gas: mined.gas,
        failed: if mined.gas.succeeded {
            mined.failed.len()
        } else {
            mined.failed.len().max(1)
        },
    }))
}

async fn send_next(
    target: SweepTarget,
    deps: &SweepDeps<'_>,
    report: &mut SweepReport,
) -> Result<(), SendError> {
    let Some(sender) = deps.sending.sender else {
        return Ok(());
    };
    let due = deps
        .sweeps
        .unswept_deposits(target.chain, deps.sending.clock.now(), target.batch)
        .await?;
    let mut entries = Vec::with_capacity(due.len());
    for (session, token) in &due {
        let terms = DepositTerms::of_session(session);
        if Some(terms.address(&target.factory)) != session.deposit_address {
            report.foreign.push(session.id);
            continue;
        }
        entries.push(SweepEntry {
            session: session.id,
            token: *token,
            terms,
        });
    }
    if entries.is_empty() {
        return Ok(());
    }
    if let Some(tx) = sender
        .send_sweep(target.chain, target.factory, &entries)
        .await?
    {
        report.sent = Some((tx, entries.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
