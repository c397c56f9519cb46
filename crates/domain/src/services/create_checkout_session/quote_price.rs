//! A price in a currency, quoted when its session is created (D34): each feed it needs
//! read from the chain once, then `rules::pricing` converts it.

use std::collections::HashMap;

use futures_util::future::join_all;

use super::{CreateSessionError, PrepareSessionDeps};
use crate::model::{Amount, ChainId, Currency, Price, QuotedPrice, ValidationErrors};
use crate::rules::pricing::{self, PricingError};

/// The token amount `price` costs in `token` now, and the quote. A pair with no feed on
/// the chain is the request's problem (400 on `price`); a feed that cannot be read or
/// gives no usable rate is unavailable for now (503); a token off its peg is refused
/// (400 on `currency`).
pub(super) async fn quote_price(
    chain: ChainId,
    price: Price,
    token: Currency,
    deps: &PrepareSessionDeps<'_>,
) -> Result<(Amount, QuotedPrice), CreateSessionError> {
    // Every feed configured, before any is read.
    let feeds = deps
        .feeds
        .for_price(chain, price.fiat, token)
        .map_err(|why| ValidationErrors::single("price", why))?;
    // Read together: a create waits one round trip, not one per feed.
    let read = join_all(
        feeds
            .iter()
            .map(|(_, feed)| deps.chain.price_feed_round(chain, *feed)),
    )
    .await;
    let mut rounds = HashMap::new();
    for ((pair, _), answer) in feeds.into_iter().zip(read) {
        let round = match answer {
            Ok(Some(round)) => round,
            Ok(None) => {
                return Err(CreateSessionError::PriceUnavailable(format!(
                    "the {} price feed answers no price",
                    pair.as_str()
                )))
            }
            // The node failed or was late: unknown, never a rate (detail for logs only).
            Err(e) => return Err(CreateSessionError::ChainUnavailable(e.to_string())),
        };
        rounds.insert(pair, round);
    }
    let now = deps.clock.now();
    let converted = pricing::convert(
        price,
        token,
        |p| rounds.get(&p).copied(),
        now,
        &deps.feeds.policy,
    );
    match converted {
        Ok((micros, quote)) => {
            let amount = Amount::from_micros(micros).map_err(|e| {
                ValidationErrors::single(
                    "price",
                    format!("converts to {micros} micro-units of {token}: {e}"),
                )
            })?;
            Ok((amount, QuotedPrice { price, quote }))
        }
        Err(e @ PricingError::Depegged { .. }) => {
            Err(ValidationErrors::single("currency", e.to_string()).into())
        }
        Err(e @ PricingError::TooLarge(_)) => {
            Err(ValidationErrors::single("price", e.to_string()).into())
        }
        Err(e @ PricingError::FeedUnusable { .. }) => {
            Err(CreateSessionError::PriceUnavailable(e.to_string()))
        }
    }
}

/// A subscription's price in a currency, for display beside the plan's amount (D34): quoted
/// as a payment's would be, it must come within the depeg bound of what the plan charges
/// per period (so the page never shows a price the charges do not match), and its quote
/// never lapses (the charges do not depend on it).
pub(super) async fn display_price(
    chain: ChainId,
    price: Price,
    token: Currency,
    plan_amount: u128,
    deps: &PrepareSessionDeps<'_>,
) -> Result<(Amount, QuotedPrice), CreateSessionError> {
    let (amount, mut quoted) = quote_price(chain, price, token, deps).await?;
    let bound = u128::from(deps.feeds.policy.depeg_bound_bps);
    let quoted_micros = u128::from(amount.micros());
    if quoted_micros.abs_diff(plan_amount) * 10_000 > plan_amount * bound {
        return Err(ValidationErrors::single(
            "price",
            format!(
                "{} {} is {} {token} at the rate now, but the plan charges {} {token} per period (more than {} bps apart)",
                price.amount,
                price.fiat.as_str(),
                amount,
                crate::model::render_micros(u64::try_from(plan_amount).unwrap_or(u64::MAX)),
                bound
            ),
        )
        .into());
    }
    quoted.quote.expires_at = None;
    Ok((amount, quoted))
}

#[cfg(test)]
#[path = "display_price_tests.rs"]
mod tests;
