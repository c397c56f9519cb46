//! Billing (DESIGN §6, D10, D19): per chain, every poll interval, the domain's
//! `bill_due_subscriptions` claims due subscriptions (`FOR UPDATE SKIP LOCKED`, so any
//! number of workers may run it), charges through the keeper and follows the charges in
//! flight. The rules live in the domain; this loop only schedules and logs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use stablepay_domain::ports::ChargeKeeper;
use stablepay_domain::rules::dunning::DunningPolicy;
use stablepay_domain::services::{bill_due_subscriptions, BillingDeps, ChargeOutcome};
use stablepay_domain::ChainId;

use crate::sending_ports::SendingPorts;
use crate::settle_ports::SettlePorts;

pub struct BillingLoop {
    pub chain_id: ChainId,
    pub settle: SettlePorts,
    pub keeper: Arc<dyn ChargeKeeper>,
    /// With the keeper key's sender: how its charges in flight are followed (D31). Its
    /// clock is the billing's.
    pub sending: SendingPorts,
    pub policy: DunningPolicy,
    pub poll_interval: Duration,
    /// Subscriptions claimed per tick.
    pub batch: u32,
}

impl BillingLoop {
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        let chain = self.chain_id.id();
        while !stop.load(Ordering::Relaxed) {
            let deps = BillingDeps {
                settle: self.settle.deps(),
                keeper: self.keeper.as_ref(),
                sending: self.sending.deps(),
                policy: &self.policy,
            };
            let mut busy = false;
            match bill_due_subscriptions(self.chain_id, self.batch, &deps).await {
                Ok(report) => {
                    busy = report.charges.len() == self.batch as usize;
                    let label = chain.to_string();
                    metrics::counter!("stablepay_billing_due_total", "chain" => label.clone())
                        .increment(report.charges.len() as u64);
                    for (sub, outcome) in &report.charges {
                        let kind = match outcome {
                            ChargeOutcome::Sent(_) => "charged",
                            ChargeOutcome::Failed(_) => "failed",
                            ChargeOutcome::Error(_) => "error",
                            _ => "other",
                        };
                        metrics::counter!("stablepay_billing_charges_total", "chain" => label.clone(), "outcome" => kind)
                            .increment(1);
                        match outcome {
                            ChargeOutcome::Sent(tx) => {
                                tracing::info!(chain, subscription = %sub, %tx, "charge sent")
                            }
                            ChargeOutcome::Failed(code) => {
                                tracing::info!(chain, subscription = %sub, code = code.as_str(), "charge failed; recorded")
                            }
                            ChargeOutcome::Error(e) => {
                                tracing::warn!(chain, subscription = %sub, error = %e, "charge not attempted; retried after the claim lease")
                            }
                            other => {
                                tracing::debug!(chain, subscription = %sub, ?other, "billing")
                            }
                        }
                    }
                    for e in &report.errors {
                        tracing::warn!(chain, error = %e, "following charges in flight");
                    }
                    if report.nonce_lost > 0 {
                        // Another transaction took the nonce of a charge of ours (the key
                        // used elsewhere?): closed, its period claimed again when due.
                        tracing::warn!(
                            chain,
                            charges = report.nonce_lost,
                            "charges given up: their nonce went to another transaction"
                        );
                    }
                }
                Err(e) => tracing::warn!(chain, error = %e, "billing tick failed; retrying"),
            }
            // A full batch means more are due: go again at once.
            if !busy {
                crate::pause::pause(self.poll_interval, &stop).await;
            }
        }
    }
}
