use crate::model::{Address, ChainId, Currency, FeedPair, Fiat};
use crate::rules::pricing::{self, PricingPolicy};

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

    /// The feed of every pair a price in `fiat` paid in `token` is quoted at on `chain`, or
    /// why it cannot be quoted there (a message naming the missing pair, safe to show).
    pub fn for_price(
        &self,
        chain: ChainId,
        fiat: Fiat,
        token: Currency,
    ) -> Result<Vec<(FeedPair, Address)>, String> {
        pricing::feeds_needed(fiat, token)
            .into_iter()
            .map(|pair| {
                self.feed(chain, pair).map(|feed| (pair, feed)).ok_or_else(|| {
                    format!(
                        "a price in {} paid in {token} cannot be quoted on {}: no {} price feed is configured there",
                        fiat.as_str(),
                        chain.name(),
                        pair.as_str()
                    )
                })
            })
            .collect()
    }
}
