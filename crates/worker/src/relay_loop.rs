//! The relayer's transactions after the api sent them (D26): records each mined one's gas
//! and cost, and sends again from the stored bytes what a node dropped (or never got).
//! Fee bumping comes with the real-chain work; until then a stuck transaction is re-sent
//! as it was.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use stablepay_domain::ports::Clock;
use stablepay_domain::ChainId;
use stablepay_evm::EvmChain;
use stablepay_postgres::PgStore;

pub struct RelayLoop {
    pub chain: Arc<EvmChain>,
    pub store: PgStore,
    pub clock: Arc<dyn Clock>,
    pub chains: Vec<ChainId>,
    pub poll_interval: Duration,
    /// A transaction unmined this long after its last broadcast is sent again.
    pub rebroadcast_after: Duration,
}

impl RelayLoop {
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        while !stop.load(Ordering::Relaxed) {
            for chain in &self.chains {
                if let Err(e) = self.tick(*chain).await {
                    tracing::warn!(chain = chain.id(), error = %e, "relayed transactions unchecked this tick; retrying");
                }
            }
            let until = Instant::now() + self.poll_interval;
            while Instant::now() < until && !stop.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(100).min(self.poll_interval)).await;
            }
        }
    }

    /// Whether the sender's mined nonce is past this transaction's while its receipt is
    /// still missing, asked twice (a receipt a lagging node had not indexed yet shows up
    /// on the second ask): then another transaction took the nonce.
    async fn nonce_taken_by_another(
        &self,
        chain: ChainId,
        relay: &stablepay_postgres::SentRelay,
    ) -> Result<bool, String> {
        let mined = self
            .chain
            .mined_nonce(chain, relay.sender)
            .await
            .map_err(|e| e.to_string())?;
        if mined <= relay.nonce {
            return Ok(false);
        }
        let receipt = self
            .chain
            .gas_receipt(chain, relay.tx_hash)
            .await
            .map_err(|e| e.to_string())?;
        Ok(receipt.is_none())
    }

    async fn tick(&self, chain: ChainId) -> Result<(), String> {
        let sent = self
            .store
            .sent_relays(chain)
            .await
            .map_err(|e| e.to_string())?;
        for relay in sent {
            let now = self.clock.now();
            match self.chain.gas_receipt(chain, relay.tx_hash).await {
                Ok(Some(gas)) => {
                    let cost = gas.cost_wei();
                    self.store
                        .relay_mined(
                            relay.tx_hash,
                            gas.succeeded,
                            gas.gas_used,
                            &cost.to_string(),
                            now,
                        )
                        .await
                        .map_err(|e| e.to_string())?;
                    let chain_id = chain.id().to_string();
                    metrics::counter!("stablepay_relayer_gas_used_total", "chain" => chain_id.clone())
                        .increment(gas.gas_used);
                    metrics::counter!("stablepay_relayer_mined_total", "chain" => chain_id, "succeeded" => gas.succeeded.to_string())
                        .increment(1);
                }
                Ok(None) => {
                    let waited = now.unix_seconds() - relay.last_broadcast_at.unix_seconds();
                    if waited >= i64::try_from(self.rebroadcast_after.as_secs()).unwrap_or(i64::MAX)
                    {
                        if self.nonce_taken_by_another(chain, &relay).await? {
                            self.store
                                .relay_dropped(relay.tx_hash)
                                .await
                                .map_err(|e| e.to_string())?;
                            tracing::warn!(chain = chain.id(), tx = %relay.tx_hash, nonce = relay.nonce, "relayed payment dropped: its nonce was mined in another transaction; the session can be paid again");
                            continue;
                        }
                        // "already known" / "nonce too low" mean the node has it or mined its
                        // nonce: the receipt decides, so a refusal is only logged.
                        if let Err(e) = self.chain.send_raw(chain, &relay.raw).await {
                            tracing::info!(chain = chain.id(), tx = %relay.tx_hash, error = %e, "relayed payment re-broadcast refused");
                        }
                        self.store
                            .relay_rebroadcast(relay.tx_hash, now)
                            .await
                            .map_err(|e| e.to_string())?;
                    }
                }
                // Unknown: asked again next tick.
                Err(e) => {
                    tracing::info!(chain = chain.id(), tx = %relay.tx_hash, error = %e, "relayed payment receipt unknown")
                }
            }
        }
        Ok(())
    }
}
