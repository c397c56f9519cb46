//! The scheduled reconcile (D32): per chain, one active instance (advisory lock) compares
//! the ledger with the chain over a trailing window every interval, sets
//! `stablepay_reconcile_differences` and keeps the run for the doctor. The comparison is
//! the domain's `reconcile_ledger`, the same as `stablepay-api reconcile`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use stablepay_domain::deployment::ChainContracts;
use stablepay_domain::ports::ReconcileStore;
use stablepay_domain::services::{reconcile_ledger, reconcile_range};
use stablepay_postgres::PgAdvisoryLock;

use crate::settle_ports::SettlePorts;

pub struct ReconcileLoop {
    pub contracts: ChainContracts,
    pub settle: SettlePorts,
    pub books: Arc<dyn ReconcileStore>,
    pub lock: PgAdvisoryLock,
    pub interval: Duration,
    /// Blocks at depth each run covers, ending at the deepest confirmed block.
    pub window_blocks: u64,
}

impl ReconcileLoop {
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        let chain_id = self.contracts.chain.id();
        // A first interval before the first run: a worker that just started has not caught
        // up with the chain yet, and its books would differ for no reason.
        crate::pause::pause(self.interval, &stop).await;
        while !stop.load(Ordering::Relaxed) {
            if self.lock.hold().await {
                if let Err(e) = self.reconcile_once().await {
                    tracing::warn!(chain = chain_id, error = %e, "reconcile failed; retrying next interval");
                }
            }
            crate::pause::pause(self.interval, &stop).await;
        }
    }

    async fn reconcile_once(&self) -> Result<(), String> {
        let chain = self.contracts.chain;
        let deps = self.settle.deps();
        let (from, to) = reconcile_range(chain, None, None, self.window_blocks, &deps)
            .await
            .map_err(|e| e.to_string())?;
        let report = reconcile_ledger(chain, from, to, &deps, self.books.as_ref())
            .await
            .map_err(|e| e.to_string())?;
        let id = chain.id();
        for difference in &report.differences {
            tracing::warn!(chain = id, %difference, "the ledger differs from the chain");
        }
        for (tx, why) in &report.unverified {
            tracing::info!(chain = id, %tx, %why, "reconcile could not verify a transaction");
        }
        let count = u32::try_from(report.differences.len()).unwrap_or(u32::MAX);
        metrics::gauge!("stablepay_reconcile_differences", "chain" => id.to_string())
            .set(f64::from(count));
        self.books
            .record_reconcile_run(chain, from, to, count)
            .await
            .map_err(|e| e.to_string())?;
        tracing::info!(
            chain = id,
            from,
            to,
            transactions = report.transactions,
            differences = count,
            "reconciled the ledger with the chain"
        );
        Ok(())
    }
}
