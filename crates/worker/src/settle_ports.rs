//! What every loop that settles or re-reads money on a chain holds (the watcher, billing,
//! reconcile): the deployment, the chain reader, the stores and the clock, lent to the
//! domain as `SettleDeps`.

use std::sync::Arc;

use stablepay_domain::deployment::{ChainDirectory, TokenDirectory};
use stablepay_domain::ports::{
    ChainReader, Clock, DepositStore, ScreeningLog, SettlementStore, SubscriptionStore,
};
use stablepay_domain::services::{PayerScreening, SettleDeps};

#[derive(Clone)]
pub struct SettlePorts {
    pub chains: ChainDirectory,
    pub tokens: TokenDirectory,
    pub chain: Arc<dyn ChainReader>,
    pub store: Arc<dyn SettlementStore>,
    pub deposits: Arc<dyn DepositStore>,
    pub subscriptions: Arc<dyn SubscriptionStore>,
    pub clock: Arc<dyn Clock>,
    /// Sanctions screening of payers (D33) and where each check is kept.
    pub screening: PayerScreening,
    pub screening_log: Arc<dyn ScreeningLog>,
}

impl SettlePorts {
    pub fn deps(&self) -> SettleDeps<'_> {
        SettleDeps {
            chain: self.chain.as_ref(),
            store: self.store.as_ref(),
            deposits: self.deposits.as_ref(),
            subscriptions: self.subscriptions.as_ref(),
            clock: self.clock.as_ref(),
            chains: &self.chains,
            tokens: &self.tokens,
            screening: &self.screening,
            screening_log: self.screening_log.as_ref(),
        }
    }
}
