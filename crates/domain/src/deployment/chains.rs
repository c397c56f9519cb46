use crate::model::{Address, ChainId};

/// Deployment settings of one chain's contracts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainContracts {
    pub chain: ChainId,
    pub checkout_router: Address,
    pub treasury: Address,
    pub subscription_manager: Option<Address>,
    /// Deposit addresses (D24) for payment sessions on this chain.
    pub deposit_factory: Option<Address>,
    /// Blocks (including the one with the transaction) before a payment is confirmed.
    pub confirmations: u64,
}

/// The contracts of every configured chain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChainDirectory {
    entries: Vec<ChainContracts>,
}

impl ChainDirectory {
    pub fn new(entries: Vec<ChainContracts>) -> Self {
        Self { entries }
    }

    pub fn get(&self, chain: ChainId) -> Option<&ChainContracts> {
        self.entries.iter().find(|c| c.chain == chain)
    }

    pub fn all(&self) -> &[ChainContracts] {
        &self.entries
    }
}
