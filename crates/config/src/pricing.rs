//! Prices in a currency (D34): the price feeds per chain and pair
//! (`STABLEPAY_PRICE_FEED_<PAIR>_<chain>`, PAIR one of EUR_USD, USDC_USD, USDT_USD,
//! EURC_USD), each pair's heartbeat (`STABLEPAY_PRICE_FEED_HEARTBEAT_<PAIR>`), the depeg
//! bound (`STABLEPAY_DEPEG_BOUND_BPS`, default 100) and a cross-currency quote's life
//! (`STABLEPAY_QUOTE_TTL`, default 30m).

use stablepay_domain::deployment::PriceFeeds;
use stablepay_domain::rules::pricing::PricingPolicy;
use stablepay_domain::{Address, ChainId, FeedPair};

use crate::env::{duration, number, optional, ConfigError};

/// Chainlink's proxies on Base (docs.chain.link, "Price Feed Contract Addresses", Base
/// Mainnet and Base Sepolia; the same addresses in Chainlink's @chainlink/mcp-server
/// package, data/feeds/base.json). Base Sepolia publishes no EUR/USD or EURC/USD feed:
/// there, prices in euros or paid in EURC need a configured feed.
const DEFAULT_FEEDS: [(ChainId, FeedPair, &str); 6] = [
    (
        ChainId::Base,
        FeedPair::EurUsd,
        "0xc91D87E81faB8f93699ECf7Ee9B44D11e1D53F0F",
    ),
    (
        ChainId::Base,
        FeedPair::UsdcUsd,
        "0x7e860098F58bBFC8648a4311b374B1D669a2bc6B",
    ),
    (
        ChainId::Base,
        FeedPair::UsdtUsd,
        "0xf19d560eB8d2ADf07BD6D13ed03e1D11215721F9",
    ),
    (
        ChainId::Base,
        FeedPair::EurcUsd,
        "0xDAe398520e2B67cd3f27aeF9Cf14D93D927f8250",
    ),
    (
        ChainId::BaseSepolia,
        FeedPair::UsdcUsd,
        "0xd30e2101a97dcbAeBCBC04F14C3f624E67A35165",
    ),
    (
        ChainId::BaseSepolia,
        FeedPair::UsdtUsd,
        "0x3ec8593F930EA45ea58c968260e6e9FF53FC934f",
    ),
];

pub fn price_feeds() -> Result<PriceFeeds, ConfigError> {
    let mut heartbeats = PricingPolicy::DEFAULT_HEARTBEATS;
    for pair in FeedPair::ALL {
        let name = pair.heartbeat_variable();
        heartbeats[pair as usize] = duration(&name, heartbeats[pair as usize])?;
    }
    let depeg_bound_bps = number("STABLEPAY_DEPEG_BOUND_BPS", 100u32)?;
    if depeg_bound_bps > 10_000 {
        return Err(ConfigError::new(
            "STABLEPAY_DEPEG_BOUND_BPS",
            "must be at most 10000 basis points",
        ));
    }
    let quote_ttl = duration("STABLEPAY_QUOTE_TTL", PricingPolicy::default().quote_ttl)?;
    if !(1..=86_400).contains(&quote_ttl.as_secs()) {
        return Err(ConfigError::new(
            "STABLEPAY_QUOTE_TTL",
            "must be from 1s to 1d (buyers need minutes to pay: the default is 30m)",
        ));
    }
    let mut feeds = PriceFeeds::new(PricingPolicy {
        depeg_bound_bps,
        quote_ttl,
        heartbeats,
    });
    for chain in ChainId::ALL {
        for pair in FeedPair::ALL {
            let name = pair.feed_variable(chain.id());
            let default = DEFAULT_FEEDS
                .iter()
                .find(|(c, p, _)| *c == chain && *p == pair)
                .map(|(_, _, a)| (*a).to_owned());
            if let Some(v) = optional(&name).or(default) {
                let feed =
                    Address::parse(v.trim()).map_err(|e| ConfigError::new(&name, e.to_string()))?;
                feeds = feeds.with(chain, pair, feed);
            }
        }
    }
    Ok(feeds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_feeds_are_well_formed_addresses() {
        for (_, _, address) in DEFAULT_FEEDS {
            Address::parse(address).unwrap();
        }
    }
}
