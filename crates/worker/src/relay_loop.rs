//! The relayer's transactions after the api sent them (D26), through the one sender:
//! records the attempt that was mined (its gas and cost), replaces one unmined for
//! [`REPLACE_AFTER_BLOCKS`](crate::sender::REPLACE_AFTER_BLOCKS) at higher fees while its
//! session is still open and the payment would still go through, and fills its nonce when
//! not (a session paid meanwhile by its deposit address is never paid twice).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use stablepay_domain::ports::{Clock, DepositStore, RelaySimulation};
use stablepay_domain::{ChainId, SessionStatus};
use stablepay_evm::EvmChain;
use stablepay_postgres::{PgStore, SenderWork, SentTx};

use crate::sender::{Resent, Sender};

pub struct RelayLoop {
    pub chain: Arc<EvmChain>,
    pub store: PgStore,
    pub clock: Arc<dyn Clock>,
    /// Signs replacements with the relayer's key (`None` without one: stuck relays of a
    /// removed key are only followed).
    pub sender: Option<Sender>,
    pub chains: Vec<ChainId>,
    pub poll_interval: Duration,
}

impl RelayLoop {
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        while !stop.load(Ordering::Relaxed) {
            for chain in &self.chains {
                if let Err(e) = self.tick(*chain).await {
                    tracing::warn!(chain = chain.id(), error = %e, "relayed transactions unchecked this tick; retrying");
                }
            }
            crate::pause::pause(self.poll_interval, &stop).await;
        }
    }

    async fn tick(&self, chain: ChainId) -> Result<(), String> {
        let sent = self
            .store
            .sent_relays(chain)
            .await
            .map_err(|e| e.to_string())?;
        for relay in sent {
            // Unknown answers leave the relay as it is: asked again next tick.
            if let Err(e) = self.follow(chain, &relay).await {
                tracing::info!(chain = chain.id(), tx = %relay.tx_hash, error = %e, "relayed payment unchecked");
            }
        }
        Ok(())
    }

    async fn follow(&self, chain: ChainId, relay: &SentTx) -> Result<(), String> {
        // Without the relayer's key a stuck relay is only followed to its receipt.
        let mined = self.record_mined(chain, relay).await?;
        let Some(sender) = self.sender.as_ref().filter(|_| !mined) else {
            return Ok(());
        };
        let e = |e: stablepay_domain::ports::ChainError| e.to_string();
        if !sender.due(relay).await.map_err(e)? {
            return Ok(());
        }
        if sender.nonce_lost(relay).await? {
            self.store
                .relay_dropped(relay)
                .await
                .map_err(|e| e.to_string())?;
            tracing::warn!(chain = chain.id(), tx = %relay.tx_hash, nonce = relay.nonce, "relayed payment dropped: its nonce was mined in another transaction; the session can be paid again");
            return Ok(());
        }
        let wanted = self.still_wanted(chain, relay).await?;
        match sender
            .resend(SenderWork::Relay, chain, relay.tx_hash, wanted)
            .await?
        {
            Resent::Filled(tx) => {
                tracing::warn!(chain = chain.id(), %tx, nonce = relay.nonce, "relayed payment no longer wanted; its nonce filled")
            }
            Resent::Replaced(tx) => {
                tracing::info!(chain = chain.id(), %tx, nonce = relay.nonce, "relayed payment replaced at higher fees")
            }
            Resent::Unchanged => {}
        }
        Ok(())
    }

    /// Records the attempt mined at the relay's nonce, if one is; true when one was. A
    /// mined fill means the payment was given up: the relay is dropped.
    async fn record_mined(&self, chain: ChainId, relay: &SentTx) -> Result<bool, String> {
        let mined = self
            .chain
            .mined_attempt(chain, &relay.attempts)
            .await
            .map_err(|e| e.to_string())?;
        let Some((attempt, gas)) = mined else {
            return Ok(false);
        };
        let store_err = |e: stablepay_domain::ports::StoreError| e.to_string();
        if attempt.fill {
            self.store.relay_dropped(relay).await.map_err(store_err)?;
        } else {
            let cost = gas.cost_wei();
            self.store
                .relay_mined(
                    relay,
                    attempt.tx_hash,
                    gas.succeeded,
                    gas.gas_used,
                    &cost.to_string(),
                    self.clock.now(),
                )
                .await
                .map_err(store_err)?;
        }
        let chain_id = chain.id().to_string();
        metrics::counter!("stablepay_relayer_gas_used_total", "chain" => chain_id.clone())
            .increment(gas.gas_used);
        if !attempt.fill && !gas.succeeded {
            // Gas the relayer paid for a payment that moved nothing (D30): the alert on
            // griefing. Its payer (and a contract payer's code) now cools down.
            metrics::counter!("stablepay_relayer_reverted_total", "chain" => chain_id.clone())
                .increment(gas.gas_used);
        }
        let outcome = if attempt.fill {
            "filled"
        } else if gas.succeeded {
            "true"
        } else {
            "false"
        };
        metrics::counter!("stablepay_relayer_mined_total", "chain" => chain_id, "succeeded" => outcome)
            .increment(1);
        Ok(true)
    }

    /// Whether the relayed payment is still wanted, read afresh: its session is still
    /// open with no money of its token seen at its deposit address (pending or confirmed:
    /// the buyer paid another way while the relay was stuck), and the payment would
    /// still go through now (the authorization unexpired and unused, the payer still
    /// holding the money).
    async fn still_wanted(&self, chain: ChainId, relay: &SentTx) -> Result<bool, String> {
        let store_err = |e: stablepay_domain::ports::StoreError| e.to_string();
        let Some(session) = relay.session else {
            return Ok(false);
        };
        let Some(session) = DepositStore::deposit_session(&self.store, session)
            .await
            .map_err(store_err)?
            .filter(|s| s.status == SessionStatus::Open)
        else {
            return Ok(false);
        };
        let deposited = DepositStore::deposit_transfers(&self.store, session.id)
            .await
            .map_err(store_err)?
            .iter()
            .any(|t| t.token == session.token_address);
        if deposited {
            return Ok(false);
        }
        let Some(newest) = self
            .store
            .newest_attempt(SenderWork::Relay, relay.tx_hash)
            .await
            .map_err(store_err)?
        else {
            return Ok(false);
        };
        if newest.fill {
            return Ok(false);
        }
        let simulated = self
            .chain
            .simulate_signed(chain, relay.sender, &newest.raw)
            .await
            .map_err(|e| e.to_string())?;
        Ok(simulated == RelaySimulation::Succeeds)
    }
}
