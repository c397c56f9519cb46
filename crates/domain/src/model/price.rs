//! Prices in a currency (D34): what a merchant prices in (USD, EUR), the feeds that rate
//! it, and the quote a session keeps.

use super::{Address, Amount, Currency, Fiat, Timestamp};

/// A price in a fiat money: a strictly positive amount of it, in micro-units (at most 6
/// decimals, like token amounts, so a price of "0.005" USD an API call is possible).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Price {
    pub amount: Amount,
    pub fiat: Fiat,
}

/// A price feed pair the service reads. Each is quoted in USD with 8 decimals, as
/// Chainlink publishes them on Base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FeedPair {
    // The order of `ALL`: policies index per-pair settings by it.
    EurUsd,
    UsdcUsd,
    UsdtUsd,
    EurcUsd,
}

impl FeedPair {
    pub const ALL: [FeedPair; 4] = [
        FeedPair::EurUsd,
        FeedPair::UsdcUsd,
        FeedPair::UsdtUsd,
        FeedPair::EurcUsd,
    ];

    /// "EUR/USD": the name in configuration, in `env.json` and in a quote.
    pub fn as_str(self) -> &'static str {
        match self {
            FeedPair::EurUsd => "EUR/USD",
            FeedPair::UsdcUsd => "USDC/USD",
            FeedPair::UsdtUsd => "USDT/USD",
            FeedPair::EurcUsd => "EURC/USD",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// `STABLEPAY_PRICE_FEED_EUR_USD_<chain>`: the variable naming the pair's feed.
    pub fn feed_variable(self, chain_id: u64) -> String {
        format!("STABLEPAY_PRICE_FEED_{}_{chain_id}", self.var_name())
    }

    /// `STABLEPAY_PRICE_FEED_HEARTBEAT_EUR_USD`: the variable setting the pair's heartbeat.
    pub fn heartbeat_variable(self) -> String {
        format!("STABLEPAY_PRICE_FEED_HEARTBEAT_{}", self.var_name())
    }

    /// "EUR / USD": the feed's `description()`, as Chainlink spells it.
    pub fn description(self) -> String {
        self.as_str().replace('/', " / ")
    }

    /// "EUR_USD": how the pair is spelled in a variable name.
    fn var_name(self) -> String {
        self.as_str().replace('/', "_")
    }

    /// The feed that prices `token` in USD: how its peg is checked.
    pub fn of_token(token: Currency) -> Self {
        match token {
            Currency::Usdc => FeedPair::UsdcUsd,
            Currency::Usdt => FeedPair::UsdtUsd,
            Currency::Eurc => FeedPair::EurcUsd,
        }
    }
}

/// One round of a feed as read from the chain (`latestRoundData`, `decimals`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedRound {
    pub feed: Address,
    pub round_id: u128,
    pub answer: i128,
    pub decimals: u8,
    pub updated_at: Timestamp,
}

/// A session's price in a currency and the quote its token amount was converted at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotedPrice {
    pub price: Price,
    pub quote: Quote,
}

/// The rate a session's price was converted at, kept on the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote {
    /// The pair whose feed gave the rate: EUR/USD for a cross-currency price, the token's
    /// own pair for a price in the money it is pegged to (rate 1, checked against it).
    pub pair: FeedPair,
    /// The pair's price, 8 decimals (1.0825 USD per EUR is 108_250_000); 10⁸ for a peg.
    pub rate_e8: u64,
    pub feed: Address,
    pub round_id: u128,
    /// When the feed last updated that round.
    pub updated_at: Timestamp,
    /// When a cross-currency quote stops being offered; `None` for a peg (1:1 holds).
    pub expires_at: Option<Timestamp>,
}

impl Quote {
    /// Whether the quote still stands at `now`.
    pub fn is_live(&self, now: Timestamp) -> bool {
        self.expires_at.is_none_or(|at| now < at)
    }
}
