//! The relayer's transactions after the api sent them (D26): a shell around the domain's
//! `follow_relays` on every chain with an RPC endpoint, which records what was mined,
//! replaces or fills what is stuck, and drops what lost its nonce. This loop logs and
//! counts what it did.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use stablepay_domain::ports::{ChainReader, DepositStore, Resent, SentRelays};
use stablepay_domain::services::{follow_relays, RelayDeps, RelayFollowed};
use stablepay_domain::ChainId;

use crate::sending_ports::SendingPorts;

pub struct RelayLoop {
    /// With the relayer's key, if one is configured.
    pub sending: SendingPorts,
    pub chain: Arc<dyn ChainReader>,
    pub relays: Arc<dyn SentRelays>,
    pub deposits: Arc<dyn DepositStore>,
    pub chains: Vec<ChainId>,
    pub poll_interval: Duration,
}

impl RelayLoop {
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        while !stop.load(Ordering::Relaxed) {
            for chain in &self.chains {
                self.tick(*chain).await;
            }
            crate::pause::pause(self.poll_interval, &stop).await;
        }
    }

    async fn tick(&self, chain: ChainId) {
        let deps = RelayDeps {
            sending: self.sending.deps(),
            relays: self.relays.as_ref(),
            deposits: self.deposits.as_ref(),
            chain: self.chain.as_ref(),
        };
        let report = match follow_relays(chain, &deps).await {
            Ok(report) => report,
            Err(e) => {
                tracing::warn!(chain = chain.id(), error = %e, "relayed transactions unchecked this tick; retrying");
                return;
            }
        };
        let label = chain.id().to_string();
        for (tx, followed) in &report.followed {
            match followed {
                RelayFollowed::Mined(_, gas) | RelayFollowed::Filled(_, gas) => {
                    let filled = matches!(followed, RelayFollowed::Filled(..));
                    metrics::counter!("stablepay_relayer_gas_used_total", "chain" => label.clone())
                        .increment(gas.gas_used);
                    if !filled && !gas.succeeded {
                        // Gas the relayer paid for a payment that moved nothing (D30): the
                        // alert on griefing. Its payer (and its code) now cools down.
                        metrics::counter!("stablepay_relayer_reverted_total", "chain" => label.clone())
                            .increment(gas.gas_used);
                    }
                    let outcome = match (filled, gas.succeeded) {
                        (true, _) => "filled",
                        (false, true) => "true",
                        (false, false) => "false",
                    };
                    metrics::counter!("stablepay_relayer_mined_total", "chain" => label.clone(), "succeeded" => outcome)
                        .increment(1);
                }
                RelayFollowed::Dropped => {
                    tracing::warn!(chain = chain.id(), %tx, "relayed payment dropped: its nonce was mined in another transaction; the session can be paid again")
                }
                RelayFollowed::Resent(Resent::Filled(fill)) => {
                    tracing::warn!(chain = chain.id(), %tx, %fill, "relayed payment no longer wanted; its nonce filled")
                }
                RelayFollowed::Resent(Resent::Replaced(by)) => {
                    tracing::info!(chain = chain.id(), %tx, %by, "relayed payment replaced at higher fees")
                }
                RelayFollowed::Resent(Resent::Unchanged) | RelayFollowed::Waiting => {}
            }
        }
        for (tx, error) in &report.errors {
            // Unknown answers leave the relay as it is: asked again next tick.
            tracing::info!(chain = chain.id(), %tx, %error, "relayed payment unchecked");
        }
    }
}
