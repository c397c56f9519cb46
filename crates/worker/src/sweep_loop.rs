//! Deposit sweeps (D24, D26): a shell around the domain's `sweep_deposits` for each chain
//! with a deposit factory, sent with the relayer key (the keeper's when it is unset).
//! This loop logs and counts what it did.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use stablepay_domain::ports::{ChainReader, DepositSweeps};
use stablepay_domain::services::{
    sweep_deposits, SweepDeps, SweepReport, SweepSettled, SweepTarget,
};

use crate::sending_ports::SendingPorts;

pub struct SweepLoop {
    /// With the sweeping key (the relayer's, else the keeper's).
    pub sending: SendingPorts,
    pub chain: Arc<dyn ChainReader>,
    pub sweeps: Arc<dyn DepositSweeps>,
    pub targets: Vec<SweepTarget>,
    pub poll_interval: Duration,
}

impl SweepLoop {
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        while !stop.load(Ordering::Relaxed) {
            for target in &self.targets {
                self.tick(*target).await;
            }
            crate::pause::pause(self.poll_interval, &stop).await;
        }
    }

    async fn tick(&self, target: SweepTarget) {
        let deps = SweepDeps {
            sending: self.sending.deps(),
            sweeps: self.sweeps.as_ref(),
            chain: self.chain.as_ref(),
        };
        let label = target.chain.id().to_string();
        match sweep_deposits(target, &deps).await {
            Ok(report) => record(target, &label, &report),
            Err(e) => {
                metrics::counter!("stablepay_deposit_sweep_errors_total", "chain" => label)
                    .increment(1);
                tracing::warn!(chain = target.chain.id(), error = %e, "deposit sweep tick failed; retrying");
            }
        }
    }
}

fn record(target: SweepTarget, label: &str, report: &SweepReport) {
    let chain = target.chain.id();
    let count = |outcome: &'static str| {
        metrics::counter!("stablepay_deposit_sweeps_total", "chain" => label.to_owned(), "outcome" => outcome)
            .increment(1);
    };
    for (_, settled) in &report.settled {
        match settled {
            SweepSettled::Dropped => count("dropped"),
            SweepSettled::Mined { tx, gas, failed } => {
                count(if gas.succeeded { "mined" } else { "reverted" });
                metrics::counter!("stablepay_deposit_sweep_gas_used_total", "chain" => label.to_owned())
                    .increment(gas.gas_used);
                if *failed > 0 {
                    metrics::counter!("stablepay_deposit_sweep_entries_failed_total", "chain" => label.to_owned())
                        .increment(*failed as u64);
                    tracing::warn!(chain, %tx, failed, reverted = !gas.succeeded, "deposit sweep did not move everything; those sessions go to the next sweep");
                }
            }
        }
    }
    if let Some(error) = &report.send_error {
        metrics::counter!("stablepay_deposit_sweep_errors_total", "chain" => label.to_owned())
            .increment(1);
        tracing::warn!(chain, %error, "deposit sweep not sent; retrying");
    }
    for (tx, error) in &report.errors {
        // Unknown: asked again next tick.
        tracing::info!(chain, %tx, %error, "deposit sweep unchecked");
    }
    for session in &report.foreign {
        tracing::warn!(chain, %session, "deposit address of another factory; not swept");
    }
    if let Some((tx, entries)) = report.sent {
        count("sent");
        tracing::debug!(chain, %tx, entries, "deposit sweep sent");
    }
}
