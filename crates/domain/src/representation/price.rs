//! A session's price in a currency and its quote, as the API shows them (D34).

use serde::Serialize;
use utoipa::ToSchema;

use crate::model::{Address, Amount, Fiat, QuotedPrice, Timestamp};

/// What the merchant priced the session at, in a fiat money.
#[derive(Serialize, ToSchema)]
pub struct PriceResource {
    pub amount: Amount,
    pub currency: Fiat,
}

/// The rate `amount` was converted at, read from an on-chain price feed.
#[derive(Serialize, ToSchema)]
pub struct QuoteResource {
    /// The feed's pair: `EUR/USD` for a price in the other money than the token's,
    /// else the token's own pair (its peg, checked; `rate` is then "1").
    #[schema(example = "EUR/USD")]
    pub pair: &'static str,
    /// The rate as a decimal string (8 decimals at most): USD per EUR for `EUR/USD`.
    #[schema(example = "1.0825")]
    pub rate: String,
    /// The AggregatorV3 feed read.
    pub feed: Address,
    /// The feed's round (a uint80, as a decimal string).
    pub round_id: String,
    /// When the feed last updated that round.
    pub updated_at: Timestamp,
    /// When the quote stops being offered (the session offers no way to pay after it);
    /// null for a price in the token's own money, which converts 1:1.
    pub expires_at: Option<Timestamp>,
}

impl PriceResource {
    pub fn of(p: &QuotedPrice) -> Self {
        Self {
            amount: p.price.amount,
            currency: p.price.fiat,
        }
    }
}

impl QuoteResource {
    pub fn of(p: &QuotedPrice) -> Self {
        let q = &p.quote;
        Self {
            pair: q.pair.as_str(),
            rate: render_e8(q.rate_e8),
            feed: q.feed,
            round_id: q.round_id.to_string(),
            updated_at: q.updated_at,
            expires_at: q.expires_at,
        }
    }
}

/// 108_250_000 → "1.0825": an 8-decimal fixed-point rate, canonically.
pub fn render_e8(v: u64) -> String {
    let (whole, frac) = (v / 100_000_000, v % 100_000_000);
    if frac == 0 {
        return whole.to_string();
    }
    let frac = format!("{frac:08}");
    format!("{whole}.{}", frac.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::render_e8;

    #[test]
    fn rates_render_exactly() {
        assert_eq!(render_e8(108_250_000), "1.0825");
        assert_eq!(render_e8(100_000_000), "1");
        assert_eq!(render_e8(1), "0.00000001");
        assert_eq!(render_e8(99_980_000), "0.9998");
    }
}
