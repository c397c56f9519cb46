use super::*;
use crate::model::{Address, Amount};
use proptest::prelude::*;

fn now() -> Timestamp {
    Timestamp::from_unix_seconds(1_800_000_000).unwrap()
}

fn feed(pair: FeedPair) -> Address {
    Address::from_bytes([pair as u8 + 1; 20])
}

fn round(pair: FeedPair, answer: i128) -> FeedRound {
    FeedRound {
        feed: feed(pair),
        round_id: 7,
        answer,
        decimals: 8,
        updated_at: now().plus_seconds(-60),
    }
}

/// The dev feeds' answers: EUR at 1.0825 USD, the tokens at their pegs.
fn rounds(pair: FeedPair) -> Option<FeedRound> {
    Some(round(
        pair,
        match pair {
            FeedPair::EurUsd => 108_250_000,
            FeedPair::UsdcUsd => 100_000_000,
            FeedPair::UsdtUsd => 99_980_000,
            FeedPair::EurcUsd => 108_200_000,
        },
    ))
}

fn price(amount: &str, fiat: Fiat) -> Price {
    Price {
        amount: Amount::parse(amount).unwrap(),
        fiat,
    }
}

fn policy() -> PricingPolicy {
    PricingPolicy::default()
}

/// `convert` at `now()` under the default policy.
fn quoted(
    p: Price,
    token: Currency,
    feeds: impl Fn(FeedPair) -> Option<FeedRound>,
) -> Result<(u64, Quote), PricingError> {
    convert(p, token, feeds, now(), &policy())
}

/// The dev rounds with `pair` answering `answer`.
fn answering(pair: FeedPair, answer: i128) -> impl Fn(FeedPair) -> Option<FeedRound> {
    move |p| match p == pair {
        true => Some(round(p, answer)),
        false => rounds(p),
    }
}

/// The dev rounds, EUR/USD updated `eur_usd` seconds before now and the others `others`.
fn aged(eur_usd: i64, others: i64) -> impl Fn(FeedPair) -> Option<FeedRound> {
    move |pair| {
        rounds(pair).map(|r| FeedRound {
            updated_at: now().plus_seconds(if pair == FeedPair::EurUsd {
                -eur_usd
            } else {
                -others
            }),
            ..r
        })
    }
}

#[test]
fn a_price_in_the_pegged_money_converts_one_to_one_with_no_expiry() {
    for (fiat, token) in [
        (Fiat::Usd, Currency::Usdc),
        (Fiat::Usd, Currency::Usdt),
        (Fiat::Eur, Currency::Eurc),
    ] {
        let (micros, quote) = quoted(price("20.00", fiat), token, rounds).unwrap();
        assert_eq!(micros, 20_000_000, "{token}");
        assert_eq!(quote.pair, FeedPair::of_token(token));
        assert_eq!(quote.rate_e8, 100_000_000);
        assert_eq!(quote.feed, feed(FeedPair::of_token(token)));
        assert_eq!(quote.expires_at, None);
        assert!(quote.is_live(now().plus_seconds(86_400 * 365)));
    }
}

#[test]
fn a_cross_currency_price_converts_at_eur_usd_rounded_up_and_expires() {
    // 20 EUR at 1.0825 = 21.65 USDC exactly.
    let (micros, quote) = quoted(price("20", Fiat::Eur), Currency::Usdc, rounds).unwrap();
    assert_eq!(micros, 21_650_000);
    assert_eq!((quote.pair, quote.rate_e8), (FeedPair::EurUsd, 108_250_000));
    assert_eq!(quote.feed, feed(FeedPair::EurUsd));
    assert_eq!(quote.round_id, 7);
    assert_eq!(quote.updated_at, now().plus_seconds(-60));
    assert_eq!(quote.expires_at, Some(now().plus_seconds(1800)));
    assert!(quote.is_live(now().plus_seconds(1799)));
    assert!(!quote.is_live(now().plus_seconds(1800)));
    // 20 USD ÷ 1.0825 = 18.475750577… EURC: rounded up to 18.475751.
    let (micros, _) = quoted(price("20", Fiat::Usd), Currency::Eurc, rounds).unwrap();
    assert_eq!(micros, 18_475_751);
    // 0.000001 EUR = 0.0000010825 USDC: one micro-unit more than the floor, never less.
    let (micros, _) = quoted(price("0.000001", Fiat::Eur), Currency::Usdc, rounds).unwrap();
    assert_eq!(micros, 2);
}

proptest! {
    /// Never in the buyer's favour, and at most one micro-unit in the merchant's: the token
    /// amount is the exact product rounded up.
    #[test]
    fn cross_conversions_round_up_by_less_than_one_micro_unit(
        micros in 1u64..=1_000_000_000_000,
        rate in 50_000_000u64..200_000_000,
        eur_to_usd in any::<bool>(),
    ) {
        let feeds = |pair: FeedPair| Some(round(pair, match pair {
            FeedPair::EurUsd => i128::from(rate),
            // EURC on its peg whatever EUR/USD is.
            FeedPair::EurcUsd => i128::from(rate),
            _ => 100_000_000,
        }));
        let (fiat, token) = if eur_to_usd { (Fiat::Eur, Currency::Usdc) } else { (Fiat::Usd, Currency::Eurc) };
        let p = Price { amount: Amount::from_micros(micros).unwrap(), fiat };
        match quoted(p, token, feeds) {
            Ok((got, _)) => {
                let (num, den) = if eur_to_usd {
                    (u128::from(micros) * u128::from(rate), 100_000_000u128)
                } else {
                    (u128::from(micros) * 100_000_000, u128::from(rate))
                };
                // got·den ≥ num (the merchant is paid at least the price) and
                // (got − 1)·den < num (less than one micro-unit over).
                prop_assert!(u128::from(got) * den >= num);
                prop_assert!(u128::from(got - 1) * den < num);
            }
            Err(PricingError::TooLarge(_)) => {}
            Err(e) => prop_assert!(false, "{e}"),
        }
    }
}

#[test]
fn a_token_off_its_peg_beyond_the_bound_is_refused() {
    let depegged = &answering(FeedPair::UsdtUsd, 98_500_000);
    let err = quoted(price("20", Fiat::Usd), Currency::Usdt, depegged).unwrap_err();
    assert!(
        matches!(
            err,
            PricingError::Depegged {
                token: Currency::Usdt,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "USDT is trading at 0.985 USD on its price feed, off its peg by more than 100 basis points"
    );
    // Refused for a euro price too, and USDC is still fine.
    assert!(quoted(price("20", Fiat::Eur), Currency::Usdt, depegged).is_err());
    assert!(quoted(price("20", Fiat::Usd), Currency::Usdc, depegged).is_ok());
    // Exactly on the bound is still on the peg; above it is not.
    let at = |answer: i128| answering(FeedPair::UsdcUsd, answer);
    assert!(quoted(price("1", Fiat::Usd), Currency::Usdc, at(99_000_000)).is_ok());
    assert!(quoted(price("1", Fiat::Usd), Currency::Usdc, at(101_000_000)).is_ok());
    assert!(quoted(price("1", Fiat::Usd), Currency::Usdc, at(98_999_999)).is_err());
    assert!(quoted(price("1", Fiat::Usd), Currency::Usdc, at(101_000_001)).is_err());
}

#[test]
fn eurc_is_measured_against_the_euro_not_the_dollar() {
    // EURC at 1.0825 USD while EUR is at 1.0825: on its peg.
    let at = |eurc: i128| answering(FeedPair::EurcUsd, eurc);
    assert!(quoted(price("5", Fiat::Eur), Currency::Eurc, at(108_250_000)).is_ok());
    // At 1.05 USD (3 % under the euro): refused.
    let err = quoted(price("5", Fiat::Eur), Currency::Eurc, at(105_000_000)).unwrap_err();
    assert!(err.to_string().contains("EUR on its price feed"), "{err}");
    assert_eq!(
        feeds_needed(Fiat::Eur, Currency::Eurc),
        vec![FeedPair::EurcUsd, FeedPair::EurUsd]
    );
    assert_eq!(
        feeds_needed(Fiat::Usd, Currency::Usdc),
        vec![FeedPair::UsdcUsd]
    );
    assert_eq!(
        feeds_needed(Fiat::Eur, Currency::Usdt),
        vec![FeedPair::UsdtUsd, FeedPair::EurUsd]
    );
}

#[test]
fn a_stale_missing_or_malformed_feed_is_no_rate() {
    let stale = &aged(60, 86_401);
    let err = quoted(price("20", Fiat::Eur), Currency::Usdc, stale).unwrap_err();
    assert!(
        matches!(
            err,
            PricingError::FeedUnusable {
                pair: "USDC/USD",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains("longer than its heartbeat"),
        "{err}"
    );
    // Each pair has its own heartbeat: a day for USDC/USD, an hour for EUR/USD; exactly
    // one heartbeat old is still fresh.
    assert!(quoted(price("20", Fiat::Eur), Currency::Usdc, aged(3_600, 86_400)).is_ok());
    let err = quoted(price("20", Fiat::Eur), Currency::Usdc, aged(3_601, 60)).unwrap_err();
    assert!(
        matches!(
            err,
            PricingError::FeedUnusable {
                pair: "EUR/USD",
                ..
            }
        ),
        "{err}"
    );
    let missing = |pair: FeedPair| (pair != FeedPair::EurUsd).then(|| rounds(pair)).flatten();
    let err = quoted(price("20", Fiat::Eur), Currency::Usdc, missing).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the EUR/USD price feed is not configured on this chain"
    );
    // A dollar price in USDC needs no EUR/USD.
    assert!(quoted(price("20", Fiat::Usd), Currency::Usdc, missing).is_ok());
    for bad in [
        FeedRound {
            answer: 0,
            ..rounds(FeedPair::EurUsd).unwrap()
        },
        FeedRound {
            answer: -5,
            ..rounds(FeedPair::EurUsd).unwrap()
        },
        FeedRound {
            decimals: 18,
            ..rounds(FeedPair::EurUsd).unwrap()
        },
    ] {
        let feeds = move |pair: FeedPair| {
            if pair == FeedPair::EurUsd {
                Some(bad)
            } else {
                rounds(pair)
            }
        };
        let err = quoted(price("20", Fiat::Eur), Currency::Usdc, feeds).unwrap_err();
        assert!(
            matches!(
                err,
                PricingError::FeedUnusable {
                    pair: "EUR/USD",
                    ..
                }
            ),
            "{err}"
        );
    }
}

#[test]
fn eur_usd_only_checking_eurcs_peg_may_be_days_old_but_a_cross_rate_may_not() {
    let weekend = &aged(2 * 86_400, 60);
    // A euro price in EURC over a weekend: the peg check reads a two-day-old EUR/USD.
    assert!(quoted(price("5", Fiat::Eur), Currency::Eurc, weekend).is_ok());
    // Converting at it is refused.
    assert!(quoted(price("5", Fiat::Eur), Currency::Usdc, weekend).is_err());
}

#[test]
fn an_implausible_or_future_round_is_no_rate() {
    // ETH/USD's proxy configured as EUR/USD: 3,000 dollars per euro is not a market.
    let wrong = answering(FeedPair::EurUsd, 300_000_000_000);
    let err = quoted(price("5", Fiat::Eur), Currency::Usdc, wrong).unwrap_err();
    assert!(
        err.to_string().contains("outside 0.5–2 USD per EUR"),
        "{err}"
    );
    let future = aged(-3_600, -3_600);
    let err = quoted(price("5", Fiat::Usd), Currency::Usdc, future).unwrap_err();
    assert!(err.to_string().contains("in the future"), "{err}");
}

#[test]
fn a_price_converting_past_the_largest_amount_is_refused() {
    let err = quoted(price("1000000000", Fiat::Eur), Currency::Usdc, rounds).unwrap_err();
    assert_eq!(err, PricingError::TooLarge(Currency::Usdc));
}

#[test]
fn pairs_read_back_and_name_their_variables() {
    for pair in FeedPair::ALL {
        assert_eq!(FeedPair::parse(pair.as_str()), Some(pair));
    }
    assert_eq!(
        FeedPair::EurUsd.feed_variable(8453),
        "STABLEPAY_PRICE_FEED_EUR_USD_8453"
    );
    assert_eq!(
        FeedPair::UsdcUsd.heartbeat_variable(),
        "STABLEPAY_PRICE_FEED_HEARTBEAT_USDC_USD"
    );
    assert_eq!(FeedPair::EurcUsd.description(), "EURC / USD");
    assert_eq!(FeedPair::parse("EUR-USD"), None);
}
