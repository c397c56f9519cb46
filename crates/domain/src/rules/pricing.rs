//! Converting a price in a currency into token micro-units (D34), exactly in integers.
//!
//! - A price in the money the token is pegged to converts 1:1, unless the token's feed
//!   shows it off its peg by more than the bound: then that token is refused.
//! - A price in the other money converts at the EUR/USD feed's rate, rounded up to the
//!   next micro-unit: the merchant never receives less than the price at the quoted rate,
//!   and the buyer pays at most one micro-unit more. The quote expires.
//! - A feed round that is not positive, has other than 8 decimals, or is older than the
//!   feed's heartbeat is no rate at all: the price cannot be quoted now (never a stale rate).

use std::time::Duration;

use crate::model::{Currency, FeedPair, FeedRound, Fiat, Price, Quote, Timestamp};
use crate::MAX_MICROS;

/// The decimals every USD pair is published with.
pub const FEED_DECIMALS: u8 = 8;
const ONE_E8: u128 = 100_000_000;

/// How prices are quoted: set by the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PricingPolicy {
    /// A token whose feed is further than this from its peg, in basis points, is refused.
    pub depeg_bound_bps: u32,
    /// How long a cross-currency quote is offered.
    pub quote_ttl: Duration,
    /// Each pair's heartbeat, in `FeedPair::ALL`'s order: a round older than it is stale.
    pub heartbeats: [Duration; 4],
}

impl PricingPolicy {
    /// Chainlink's published heartbeats on Base: EUR/USD an hour, the stablecoins a day.
    pub const DEFAULT_HEARTBEATS: [Duration; 4] = [
        Duration::from_secs(3_600),
        Duration::from_secs(86_400),
        Duration::from_secs(86_400),
        Duration::from_secs(86_400),
    ];

    pub fn heartbeat(&self, pair: FeedPair) -> Duration {
        self.heartbeats[pair as usize]
    }
}

impl Default for PricingPolicy {
    fn default() -> Self {
        Self {
            depeg_bound_bps: 100,
            quote_ttl: Duration::from_secs(30 * 60),
            heartbeats: Self::DEFAULT_HEARTBEATS,
        }
    }
}

/// Why a price cannot be converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PricingError {
    /// The token trades off its peg: this token is refused, another may do.
    #[error("{token} is trading at {rate} {peg} on its price feed, off its peg by more than {bound_bps} basis points")]
    Depegged {
        token: Currency,
        /// The token's price in its peg's money, 8 decimals rendered.
        rate: String,
        peg: &'static str,
        bound_bps: u32,
    },
    /// A feed the quote needs gave no usable rate now: try again later.
    #[error("the {pair} price feed {why}")]
    FeedUnusable { pair: &'static str, why: String },
    /// The converted amount is over the largest amount a session may ask.
    #[error("the price converts to more than 1000000000 {0}")]
    TooLarge(Currency),
}

/// The feeds a price in `fiat` paid in `token` needs: the token's own (its peg), EUR/USD
/// whenever euros are involved (a cross rate, or EURC's peg measured in dollars).
pub fn feeds_needed(fiat: Fiat, token: Currency) -> Vec<FeedPair> {
    let mut pairs = vec![FeedPair::of_token(token)];
    if fiat == Fiat::Eur || token.fiat() == Fiat::Eur {
        pairs.push(FeedPair::EurUsd);
    }
    pairs
}

/// How old EUR/USD may be when it only measures EURC against its own peg (no conversion at
/// it): the forex feed pauses over weekends, and a 1 % bound does not need the last hour.
pub const PEG_CHECK_MAX_AGE: Duration = Duration::from_secs(3 * 86_400);

/// The EUR/USD answers taken as a rate: 0.5 to 2 dollars per euro. Anything else is a
/// misconfigured feed (another pair's proxy), not a market.
const EUR_USD_BAND: std::ops::RangeInclusive<u64> = 50_000_000..=200_000_000;

/// A round dated further than this in the future (clock skew aside) is not trusted.
const FUTURE_SKEW_SECS: i64 = 60;

/// `round`'s rate (8 decimals) if it may be used at `now`, being at most `max_age` old.
pub fn usable_rate(
    pair: FeedPair,
    round: &FeedRound,
    now: Timestamp,
    max_age: Duration,
) -> Result<u64, PricingError> {
    let unusable = |why: String| PricingError::FeedUnusable {
        pair: pair.as_str(),
        why,
    };
    if round.decimals != FEED_DECIMALS {
        return Err(unusable(format!(
            "has {} decimals, not {FEED_DECIMALS}",
            round.decimals
        )));
    }
    let rate = u64::try_from(round.answer)
        .ok()
        .filter(|r| *r > 0)
        .ok_or_else(|| unusable(format!("answered {}", round.answer)))?;
    if pair == FeedPair::EurUsd && !EUR_USD_BAND.contains(&rate) {
        return Err(unusable(format!(
            "answered {rate}, outside 0.5–2 USD per EUR: is it the EUR / USD feed?"
        )));
    }
    let age = now.unix_seconds() - round.updated_at.unix_seconds();
    if age < -FUTURE_SKEW_SECS {
        return Err(unusable(format!("is dated {} s in the future", -age)));
    }
    let max = i64::try_from(max_age.as_secs()).unwrap_or(i64::MAX);
    if age > max {
        return Err(unusable(format!(
            "last updated {age} s ago, longer than its heartbeat of {max} s"
        )));
    }
    Ok(rate)
}

/// What `price` paid in `token` costs in its micro-units at `now`, and the quote to keep.
/// `round(pair)` gives the round read for each of [`feeds_needed`].
pub fn convert(
    price: Price,
    token: Currency,
    round: impl Fn(FeedPair) -> Option<FeedRound>,
    now: Timestamp,
    policy: &PricingPolicy,
) -> Result<(u64, Quote), PricingError> {
    let read = |pair: FeedPair, max_age: Duration| -> Result<(FeedRound, u64), PricingError> {
        let r = round(pair).ok_or_else(|| PricingError::FeedUnusable {
            pair: pair.as_str(),
            why: "is not configured on this chain".into(),
        })?;
        Ok((r, usable_rate(pair, &r, now, max_age)?))
    };
    let token_pair = FeedPair::of_token(token);
    let (token_round, token_usd) = read(token_pair, policy.heartbeat(token_pair))?;
    // EUR/USD converts a cross price (its own heartbeat), or only checks EURC's peg.
    let eur_max_age = if price.fiat == token.fiat() {
        policy.heartbeat(FeedPair::EurUsd).max(PEG_CHECK_MAX_AGE)
    } else {
        policy.heartbeat(FeedPair::EurUsd)
    };
    let eur_usd = match feeds_needed(price.fiat, token).contains(&FeedPair::EurUsd) {
        true => Some(read(FeedPair::EurUsd, eur_max_age)?),
        false => None,
    };
    // Read above whenever a euro is involved.
    let eur_usd = || {
        eur_usd.ok_or(PricingError::FeedUnusable {
            pair: FeedPair::EurUsd.as_str(),
            why: "was not read".into(),
        })
    };
    // The token's price in its own peg's money, 8 decimals.
    let on_peg = match token.fiat() {
        Fiat::Usd => u128::from(token_usd),
        Fiat::Eur => u128::from(token_usd) * ONE_E8 / u128::from(eur_usd()?.1),
    };
    let off = on_peg.abs_diff(ONE_E8);
    if off * 10_000 > u128::from(policy.depeg_bound_bps) * ONE_E8 {
        return Err(PricingError::Depegged {
            token,
            rate: crate::model::render_micros((on_peg / 100) as u64),
            peg: token.fiat().as_str(),
            bound_bps: policy.depeg_bound_bps,
        });
    }
    let price_micros = u128::from(price.amount.micros());
    let (micros, quote) = if price.fiat == token.fiat() {
        let quote = Quote {
            pair: token_pair,
            rate_e8: ONE_E8 as u64,
            feed: token_round.feed,
            round_id: token_round.round_id,
            updated_at: token_round.updated_at,
            expires_at: None,
        };
        (price_micros, quote)
    } else {
        let (eur_round, eur) = eur_usd()?;
        let eur = u128::from(eur);
        let micros = match price.fiat {
            // Euros into a dollar token: × EUR/USD.
            Fiat::Eur => (price_micros * eur).div_ceil(ONE_E8),
            // Dollars into EURC: ÷ EUR/USD.
            Fiat::Usd => (price_micros * ONE_E8).div_ceil(eur),
        };
        // Configuration caps the life at a day: the addition cannot overflow.
        let ttl = i64::try_from(policy.quote_ttl.as_secs()).unwrap_or(86_400);
        let quote = Quote {
            pair: FeedPair::EurUsd,
            rate_e8: eur as u64,
            feed: eur_round.feed,
            round_id: eur_round.round_id,
            updated_at: eur_round.updated_at,
            expires_at: Some(now.plus_seconds(ttl)),
        };
        (micros, quote)
    };
    let micros = u64::try_from(micros)
        .ok()
        .filter(|m| *m <= MAX_MICROS)
        .ok_or(PricingError::TooLarge(token))?;
    Ok((micros, quote))
}

#[cfg(test)]
mod tests;
