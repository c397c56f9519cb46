//! The chain watcher (DESIGN §6): per chain, one active instance (advisory lock) running
//! the domain's `scan_chain` every poll interval. The rules (cursor, unknown receipts,
//! reorgs, re-checks) live in the domain; this loop holds the lock and logs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use stablepay_domain::deployment::ChainContracts;
use stablepay_domain::services::{scan_chain, ScanReport, ScanState, SettleOutcome};
use stablepay_postgres::PgAdvisoryLock;

use crate::settle_ports::SettlePorts;

pub struct ChainWatcher {
    pub contracts: ChainContracts,
    pub settle: SettlePorts,
    pub lock: PgAdvisoryLock,
    pub poll_interval: Duration,
    /// Blocks per eth_getLogs call at most (halved while a provider refuses it).
    pub max_range: u64,
}

impl ChainWatcher {
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        let chain_id = self.contracts.chain.id();
        let mut leading = false;
        let mut state = ScanState::new(self.max_range);
        while !stop.load(Ordering::Relaxed) {
            let holds = self.lock.hold().await;
            if holds != leading {
                tracing::info!(
                    chain = chain_id,
                    leading = holds,
                    "chain watcher leadership changed"
                );
                leading = holds;
            }
            if holds {
                let deps = self.settle.deps();
                let started = std::time::Instant::now();
                let scanned = scan_chain(self.contracts.chain, &mut state, &deps).await;
                // The bar on watching (DESIGN §10) is read off these two by the bench.
                metrics::histogram!("stablepay_chain_watcher_tick_seconds", "chain" => chain_id.to_string())
                    .record(started.elapsed().as_secs_f64());
                match scanned {
                    Ok(report) => log_report(chain_id, &report, state.range.current()),
                    Err(e) => {
                        tracing::warn!(chain = chain_id, error = %e, range = state.range.current(), "chain watcher tick failed; retrying")
                    }
                }
            }
            crate::pause::pause(self.poll_interval, &stop).await;
        }
    }
}

fn log_report(chain: u64, report: &ScanReport, range: u64) {
    for (tx, outcome) in report.settled.iter().chain(&report.rechecked) {
        match outcome {
            SettleOutcome::Rejected(why) => {
                tracing::warn!(chain, %tx, %why, "logged transaction not settled")
            }
            SettleOutcome::Failed(id) => {
                tracing::warn!(chain, %tx, payment = %id, "pending payment failed: its transaction left the canonical chain")
            }
            other => tracing::debug!(chain, %tx, ?other, "settled"),
        }
    }
    if let Some(error) = &report.log_error {
        tracing::warn!(chain, %error, range, cursor = report.cursor, "router logs unreadable this tick; pending re-checks ran, cursor held");
    }
    for (tx, why) in &report.unresolved {
        tracing::info!(chain, %tx, %why, cursor = report.cursor, "logged transaction unresolved; cursor held");
    }
    for (tx, error) in &report.recheck_errors {
        tracing::warn!(chain, %tx, %error, "pending re-check failed; retrying next tick");
    }
    for (tx, done) in &report.rebooked {
        // Money the books held left the chain, or came back elsewhere: an operator reads this.
        tracing::warn!(chain, %tx, ?done, "a reorg below the confirmation depth changed a booked payment; the ledger follows the chain");
        metrics::counter!("stablepay_ledger_rebookings_total", "chain" => chain.to_string())
            .increment(1);
    }
    for error in &report.rebook_errors {
        tracing::warn!(chain, %error, "booked payment re-check failed; retrying next tick");
    }
    for error in &report.deposit_errors {
        tracing::warn!(chain, %error, "deposit booking failed; retrying next tick");
    }
    metrics::gauge!("stablepay_chain_watcher_lag_blocks", "chain" => chain.to_string())
        .set(report.head.saturating_sub(report.cursor) as f64);
    tracing::trace!(
        chain,
        head = report.head,
        cursor = report.cursor,
        range,
        "chain watcher tick"
    );
}
