use crate::model::{Address, ChainId, Currency};

/// Which token contract settles each currency on each chain (deployment configuration).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TokenDirectory {
    entries: Vec<(ChainId, Currency, Address)>,
}

impl TokenDirectory {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with(mut self, chain: ChainId, currency: Currency, address: Address) -> Self {
        self.entries
            .retain(|(c, cur, _)| !(*c == chain && *cur == currency));
        self.entries.push((chain, currency, address));
        self
    }

    /// The currency `address` settles on `chain`; `None` for a token nobody configured.
    pub fn currency_of(&self, chain: ChainId, address: Address) -> Option<Currency> {
        self.entries
            .iter()
            .find(|(c, _, a)| *c == chain && *a == address)
            .map(|(_, cur, _)| *cur)
    }

    /// Every token configured on `chain`: the watcher reads their `Transfer` logs.
    pub fn tokens_on(&self, chain: ChainId) -> Vec<Address> {
        self.entries
            .iter()
            .filter(|(c, _, _)| *c == chain)
            .map(|(_, _, a)| *a)
            .collect()
    }

    pub fn token(&self, chain: ChainId, currency: Currency) -> Option<Address> {
        self.entries
            .iter()
            .find(|(c, cur, _)| *c == chain && *cur == currency)
            .map(|(_, _, a)| *a)
    }
}
