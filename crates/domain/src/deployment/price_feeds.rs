use crate::model::{Address, ChainId, FeedPair};
use crate::rules::pricing::PricingPolicy;

/// Which price feed rates each pair on each chain, and how prices are quoted (D34;
/// deployment configuration).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PriceFeeds {
    entries: Vec<(ChainId, FeedPair, Address)>,
    pub policy: PricingPolicy,
}

impl PriceFeeds {
    pub fn new(policy: PricingPolicy) -> Self {
        Self {
            entries: Vec::new(),
            policy,
        }
    }

    pub fn with(mut self, chain: ChainId, pair: FeedPair, feed: Address) -> Self {
        self.entries
            .retain(|(c, p, _)| !(*c == chain && *p == pair));
        self.entries.push((chain, pair, feed));
        self
    }

    pub fn feed(&self, chain: ChainId, pair: FeedPair) -> Option<Address> {
        self.entries
            .iter()
            .find(|(c, p, _)| *c == chain && *p == pair)
            .map(|(_, _, a)| *a)
    }

    /// Every feed configured on `chain`, with its pair: doctor checks each.
    pub fn on(&self, chain: ChainId) -> Vec<(FeedPair, Address)> {
        self.entries
            .iter()
            .filter(|(c, _, _)| *c == chain)
            .map(|(_, p, a)| (*p, *a))
            .collect()
    }
}
