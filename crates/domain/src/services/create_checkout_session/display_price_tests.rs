//! A subscription's display price (D34): quoted like a payment's, checked against the
//! plan's amount within the depeg bound, and never lapsing.

use crate::model::{
    Amount, ChainId, Currency, FeeTier, FeedPair, FeedRound, Fiat, Mode, Price, SessionTerms,
    Timestamp,
};
use crate::services::create_checkout_session::tests::{
    ctx, feed_of, plan, subscription_request, wallet, Harness,
};
use crate::services::{CreateSessionError, NewSessionRequest};

/// A live harness whose Base feeds answer EUR/USD 1.0825 and USDC/USD 1, and whose plan 7
/// charges 9.99 USDC a month to the merchant's wallet.
fn harness(inserts: usize) -> (Harness, crate::model::AuthContext) {
    let c = ctx(Mode::Live, FeeTier::Standard);
    let w = wallet(&c, 1);
    let mut h = Harness::new(vec![w.clone()], inserts);
    h.feeds = [FeedPair::EurUsd, FeedPair::UsdcUsd]
        .into_iter()
        .fold(h.feeds.clone(), |f, pair| {
            f.with(ChainId::Base, pair, feed_of(pair))
        });
    h.chain.expect_price_feed_round().returning(|_, feed| {
        let answer = if feed == feed_of(FeedPair::EurUsd) {
            108_250_000
        } else {
            100_000_000
        };
        Ok(Some(FeedRound {
            feed,
            round_id: 3,
            answer,
            decimals: 8,
            updated_at: Timestamp::from_unix_seconds(990).unwrap(),
        }))
    });
    let on_chain = plan(w.address);
    h.chain
        .expect_subscription_plan()
        .returning(move |_, _, _| Ok(Some(on_chain.clone())));
    h.subscriptions
        .expect_register_plan()
        .times(inserts)
        .returning(|_| Ok(()));
    (h, c)
}

fn priced_plan(amount: &str, fiat: Fiat) -> NewSessionRequest {
    let mut req = subscription_request(7);
    if let SessionTerms::Subscription { price, .. } = &mut req.terms {
        *price = Some(Price {
            amount: Amount::parse(amount).unwrap(),
            fiat,
        });
    }
    req
}

#[test]
fn a_plans_display_price_is_kept_when_it_matches_what_the_plan_charges() {
    let (h, c) = harness(2);
    // 10 USD in USDC is 10.00: 0.1 % from the plan's 9.99, within the 1 % bound.
    let s = h.run(&c, priced_plan("10", Fiat::Usd)).unwrap();
    assert_eq!((s.amount.micros(), s.currency), (9_990_000, Currency::Usdc));
    let p = s.priced.unwrap();
    assert_eq!(
        (p.price.amount.micros(), p.price.fiat),
        (10_000_000, Fiat::Usd)
    );
    assert_eq!(p.quote.expires_at, None, "a display price never lapses");
    // 9.23 EUR at 1.0825 is 9.991475 USDC.
    let s = h.run(&c, priced_plan("9.23", Fiat::Eur)).unwrap();
    let p = s.priced.clone().unwrap();
    assert_eq!(
        (p.quote.pair, p.quote.rate_e8),
        (FeedPair::EurUsd, 108_250_000)
    );
    assert_eq!(p.quote.expires_at, None);
    assert_eq!(s.pays_until(), s.expires_at);
}

#[test]
fn a_display_price_the_charges_do_not_match_is_refused_on_price() {
    let (h, c) = harness(0);
    match h.run(&c, priced_plan("12", Fiat::Usd)).unwrap_err() {
        CreateSessionError::Invalid(v) => {
            assert_eq!(v.0[0].field, "price");
            assert!(v.0[0].message.contains("plan charges 9.99 USDC"), "{v}");
        }
        other => panic!("{other:?}"),
    }
}
