//! The chain watcher (DESIGN §6): per chain, one active instance (advisory lock), a stored
//! cursor, and the same settlement use case as the hosted page's fast path. It survives
//! RPC outages (the cursor only moves after a range is fully settled) and restarts.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use stablepay_domain::ports::{ChainReader, Clock, SettlementStore};
use stablepay_domain::services::{
    recheck_pending_payment, settle_receipt, ChainContracts, ChainDirectory, SettleDeps,
    SettleOutcome,
};
use stablepay_postgres::PgAdvisoryLock;

pub struct ChainWatcher {
    pub contracts: ChainContracts,
    pub chains: ChainDirectory,
    pub chain: Arc<dyn ChainReader>,
    pub store: Arc<dyn SettlementStore>,
    pub clock: Arc<dyn Clock>,
    pub lock: PgAdvisoryLock,
    pub poll_interval: Duration,
    /// Blocks per eth_getLogs call.
    pub max_range: u64,
}

impl ChainWatcher {
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        let chain_id = self.contracts.chain.id();
        let mut leading = false;
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
                if let Err(e) = self.tick().await {
                    tracing::warn!(chain = chain_id, error = %e, "chain watcher tick failed; retrying");
                }
            }
            tokio::time::sleep(self.poll_interval).await;
        }
    }

    async fn tick(&self) -> Result<(), String> {
        let chain = self.contracts.chain;
        let deps = SettleDeps {
            chain: self.chain.as_ref(),
            store: self.store.as_ref(),
            clock: self.clock.as_ref(),
            chains: &self.chains,
        };
        let head = self
            .chain
            .block_number(chain)
            .await
            .map_err(|e| e.to_string())?;
        let from = match self
            .store
            .chain_cursor(chain)
            .await
            .map_err(|e| e.to_string())?
        {
            Some(next) => next,
            None => head.saturating_sub(1000),
        };
        if from <= head {
            let to = head.min(from + self.max_range - 1);
            let txs = self
                .chain
                .checkout_paid_txs(chain, self.contracts.checkout_router, from, to)
                .await
                .map_err(|e| e.to_string())?;
            // Settle the range's payments concurrently; any failure leaves the cursor alone.
            let results: Vec<_> = futures_util::stream::iter(txs)
                .map(|tx| {
                    let deps = &deps;
                    async move { (tx, settle_logged_tx(chain, tx, head, deps).await) }
                })
                .buffer_unordered(16)
                .collect()
                .await;
            for (tx, result) in results {
                for outcome in result.map_err(|e| e.to_string())? {
                    match outcome {
                        SettleOutcome::Rejected(why) => {
                            tracing::warn!(chain = chain.id(), %tx, %why, "router payment not settled")
                        }
                        other => tracing::debug!(chain = chain.id(), %tx, ?other, "settled"),
                    }
                }
            }
            // Only after every payment in the range is recorded: a crash replays the range.
            self.store
                .set_chain_cursor(chain, to + 1)
                .await
                .map_err(|e| e.to_string())?;
        }
        for payment in self
            .store
            .pending_payments(chain, 200)
            .await
            .map_err(|e| e.to_string())?
        {
            let outcome = recheck_pending_payment(&payment, head, &deps)
                .await
                .map_err(|e| e.to_string())?;
            tracing::debug!(payment = %payment.id, ?outcome, "pending payment re-checked");
        }
        Ok(())
    }
}

/// A transaction the logs named: fetch its receipt once and settle it against the tick's
/// head (a log without a receipt yet is retried with the range).
async fn settle_logged_tx(
    chain: stablepay_domain::ChainId,
    tx: stablepay_domain::TxHash,
    head: u64,
    deps: &SettleDeps<'_>,
) -> Result<Vec<SettleOutcome>, stablepay_domain::services::SettleError> {
    match deps.chain.receipt(chain, tx).await? {
        Some(receipt) => settle_receipt(chain, &receipt, head, deps).await,
        None => Ok(vec![SettleOutcome::NotFound]),
    }
}
