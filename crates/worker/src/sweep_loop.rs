//! Sweeps of deposit addresses (D24): every poll, per chain with a deposit factory, one
//! `sweepMany` of the (session, token) entries whose confirmed money no sweep has taken,
//! signed with the relayer key from its nonce sequence (D26) and stored before it is
//! broadcast; a stuck one is replaced at higher fees by the one sender. One sweep is in
//! flight per chain; a sweep that reverts, is dropped, or fails for one session gives
//! those entries back to the next one, so a failure never blocks the others.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use stablepay_domain::ports::{ChainReader, Clock};
use stablepay_domain::rules::confirmations::is_confirmed;
use stablepay_domain::rules::deposit::DepositTerms;
use stablepay_domain::{Address, ChainId};
use stablepay_evm::calldata::sweep_many;
use stablepay_evm::relay::sign_call;
use stablepay_evm::EvmChain;
use stablepay_postgres::{PgStore, SenderWork, SentTx};

use crate::sender::{attempt_fees, Sender};

/// Gas for a `sweepMany`: a base and, per entry, more than a first sweep to a fresh
/// recipient costs (155,449 measured), so no entry runs out (the contract reverts the
/// batch rather than skip an entry for gas).
const SWEEP_BASE_GAS: u64 = 60_000;
const SWEEP_ENTRY_GAS: u64 = 180_000;

pub struct SweepLoop {
    pub chain: Arc<EvmChain>,
    pub store: PgStore,
    pub clock: Arc<dyn Clock>,
    /// Signs sweeps, and replaces stuck ones, with the relayer key (the keeper's when unset).
    pub sender: Sender,
    /// (chain, its deposit factory, its confirmation depth).
    pub factories: Vec<(ChainId, Address, u64)>,
    pub poll_interval: Duration,
    /// Entries (session, token) per sweep.
    pub batch: u32,
}

impl SweepLoop {
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        while !stop.load(Ordering::Relaxed) {
            for (chain, factory, depth) in &self.factories {
                if let Err(e) = self.tick(*chain, *factory, *depth).await {
                    metrics::counter!("stablepay_deposit_sweep_errors_total", "chain" => chain.id().to_string())
                        .increment(1);
                    tracing::warn!(chain = chain.id(), error = %e, "deposit sweep tick failed; retrying");
                }
            }
            crate::pause::pause(self.poll_interval, &stop).await;
        }
    }

    async fn tick(&self, chain: ChainId, factory: Address, depth: u64) -> Result<(), String> {
        let sent = self
            .store
            .sent_sweeps(chain)
            .await
            .map_err(|e| e.to_string())?;
        let mut in_flight = false;
        for sweep in &sent {
            in_flight |= !self.check_sent(chain, factory, depth, sweep).await?;
        }
        if in_flight {
            return Ok(());
        }
        self.send_next(chain, factory).await
    }

    /// Settles what a sent sweep's receipt says once it is `depth` deep (a sweep a reorg
    /// removes is still in flight); false while it is in flight. One unmined for
    /// [`REPLACE_AFTER_BLOCKS`](crate::sender::REPLACE_AFTER_BLOCKS) is replaced at higher
    /// fees (a sweep is always still wanted: the money waits at the addresses).
    async fn check_sent(
        &self,
        chain: ChainId,
        factory: Address,
        depth: u64,
        sweep: &SentTx,
    ) -> Result<bool, String> {
        let now = self.clock.now();
        let label = chain.id().to_string();
        let e = |e: stablepay_domain::ports::ChainError| e.to_string();
        let mined = match self
            .chain
            .mined_sweep_attempt(chain, factory, &sweep.attempts)
            .await
        {
            Ok(mined) => mined,
            // Unknown: asked again next tick.
            Err(err) => {
                tracing::info!(chain = chain.id(), tx = %sweep.tx_hash, error = %err, "deposit sweep receipt unknown");
                return Ok(false);
            }
        };
        let Some((attempt, gas, failed)) = mined else {
            if !self.sender.due(sweep).await.map_err(e)? {
                return Ok(false);
            }
            if self.sender.nonce_lost(sweep).await? {
                self.store
                    .sweep_dropped(sweep, now)
                    .await
                    .map_err(|e| e.to_string())?;
                metrics::counter!("stablepay_deposit_sweeps_total", "chain" => label, "outcome" => "dropped")
                    .increment(1);
                return Ok(true);
            }
            self.sender
                .resend(SenderWork::Sweep, chain, sweep.tx_hash, true)
                .await?;
            return Ok(false);
        };
        let head = ChainReader::block_number(self.chain.as_ref(), chain)
            .await
            .map_err(e)?;
        if !is_confirmed(head, gas.block_number, depth) {
            return Ok(false);
        }
        if attempt.fill {
            // Never sent for sweeps; were one mined, the sweep moved nothing.
            self.store
                .sweep_dropped(sweep, now)
                .await
                .map_err(|e| e.to_string())?;
            return Ok(true);
        }
        self.store
            .sweep_mined(
                sweep,
                attempt.tx_hash,
                gas.succeeded,
                &failed,
                gas.gas_used,
                &gas.cost_wei().to_string(),
                now,
            )
            .await
            .map_err(|e| e.to_string())?;
        let outcome = if gas.succeeded { "mined" } else { "reverted" };
        metrics::counter!("stablepay_deposit_sweeps_total", "chain" => label.clone(), "outcome" => outcome)
            .increment(1);
        metrics::counter!("stablepay_deposit_sweep_gas_used_total", "chain" => label.clone())
            .increment(gas.gas_used);
        if !failed.is_empty() || !gas.succeeded {
            metrics::counter!("stablepay_deposit_sweep_entries_failed_total", "chain" => label)
                .increment(failed.len().max(1) as u64);
            tracing::warn!(chain = chain.id(), tx = %attempt.tx_hash, failed = failed.len(), reverted = !gas.succeeded, "deposit sweep did not move everything; those sessions go to the next sweep");
        }
        Ok(true)
    }

    async fn send_next(&self, chain: ChainId, factory: Address) -> Result<(), String> {
        let due = self
            .store
            .unswept_deposits(chain, self.clock.now(), self.batch)
            .await
            .map_err(|e| e.to_string())?;
        // Only sessions whose address is this factory's (a rotated factory's deposits
        // need their own; sweeping them here would move nothing).
        let entries: Vec<_> = due
            .iter()
            .filter(|(s, _)| {
                let ours = Some(DepositTerms::of_session(s).address(&factory)) == s.deposit_address;
                if !ours {
                    tracing::warn!(chain = chain.id(), session = %s.id, "deposit address of another factory; not swept");
                }
                ours
            })
            .map(|(s, token)| ((s.id, *token), (DepositTerms::of_session(s), *token)))
            .collect();
        if entries.is_empty() {
            return Ok(());
        }
        let ids: Vec<_> = entries.iter().map(|(id, _)| *id).collect();
        let terms: Vec<_> = entries.into_iter().map(|(_, t)| t).collect();
        let data = sweep_many(&terms);
        let gas = SWEEP_BASE_GAS + SWEEP_ENTRY_GAS * terms.len() as u64;
        let wallet = self.sender.wallet(chain)?;
        let address = self.sender.address();
        let e = |e: stablepay_domain::ports::ChainError| e.to_string();
        let mined = self.chain.mined_nonce(chain, address).await.map_err(e)?;
        let fees = self.chain.suggest_fees(chain).await.map_err(e)?;
        let head = ChainReader::block_number(self.chain.as_ref(), chain)
            .await
            .map_err(e)?;
        let stored = self
            .store
            .store_deposit_sweep(
                chain,
                address,
                mined,
                &ids,
                self.clock.now(),
                attempt_fees(fees, head),
                |nonce| {
                    sign_call(&wallet, chain, factory, data, gas, nonce, fees)
                        .map(|signed| (signed.hash, signed.raw))
                },
            )
            .await
            .map_err(|e| e.to_string())?;
        let Some((tx, raw)) = stored else {
            return Ok(());
        };
        metrics::counter!("stablepay_deposit_sweeps_total", "chain" => chain.id().to_string(), "outcome" => "sent")
            .increment(1);
        // Stored first: a failed broadcast is sent again (or replaced) once it is due.
        if let Err(e) = self.chain.send_raw(chain, &raw).await {
            tracing::warn!(chain = chain.id(), %tx, error = %e, "deposit sweep broadcast failed; sent again later");
        }
        tracing::debug!(chain = chain.id(), %tx, entries = ids.len(), "deposit sweep sent");
        Ok(())
    }
}
