use super::*;
use crate::model::{AuthContext, Currency, FeeTier, Fiat, Mode, PaymentLinkId, Timestamp};
use crate::services::create_checkout_session::tests::{ctx, euros, priced, wallet, Harness};
use futures_executor::block_on;

/// A harness whose feeds answer EUR/USD at `eur_usd`, holding `c`'s wallet, expecting
/// `inserts` sessions stored.
fn harness(c: &AuthContext, eur_usd: i128, inserts: usize) -> Harness {
    let mut h = Harness::new(vec![wallet(c, 1)], inserts);
    priced(&mut h, eur_usd, 108_200_000, 60);
    h
}

/// A session priced at 20 EUR in USDC at 1.0825 (the harness's clock is at 1000), its
/// quote lapsed at 900 and the session itself open until 5000.
fn lapsed(c: &AuthContext) -> CheckoutSession {
    let h = harness(c, 108_250_000, 1);
    let mut old = h.run(c, euros("20", Some(Currency::Usdc))).unwrap();
    if let Some(p) = old.priced.as_mut() {
        p.quote.expires_at = Some(Timestamp::from_unix_seconds(900).unwrap());
    }
    old.expires_at = Timestamp::from_unix_seconds(5_000).unwrap();
    old.customer_reference = Some("cust-7".into());
    old
}

fn requote(h: &mut Harness, old: CheckoutSession) -> Result<Requoted, RequoteError> {
    let id = old.id;
    h.sessions
        .expect_get_public()
        .returning(move |_| Ok(Some(old.clone())));
    let (prepare, create) = h.deps();
    block_on(requote_checkout_session(
        id,
        &RequoteDeps { prepare, create },
    ))
}

#[test]
fn a_lapsed_quote_is_replaced_by_a_fresh_session_at_the_rate_now() {
    let c = ctx(Mode::Test, FeeTier::Growth);
    let old = lapsed(&c);
    assert_eq!(old.amount.micros(), 21_650_000);
    // EUR/USD is 1.10 now.
    let mut h = harness(&c, 110_000_000, 1);
    let fresh = match requote(&mut h, old.clone()) {
        Ok(Requoted::Session(s)) => *s,
        other => panic!("{other:?}"),
    };
    assert_eq!(fresh.requoted_from, Some(old.id));
    assert_ne!(fresh.id, old.id);
    assert_eq!(fresh.amount.micros(), 22_000_000);
    let p = fresh.priced.as_ref().unwrap();
    assert_eq!(
        (p.price.amount.micros(), p.price.fiat),
        (20_000_000, Fiat::Eur)
    );
    assert!(p
        .quote
        .is_live(Timestamp::from_unix_seconds(1_000).unwrap()));
    // Same terms: fee, wallet, reference, metadata; it ends when the old one would have.
    assert_eq!((fresh.fee_bps, fresh.fee_tier.as_str()), (75, "growth"));
    assert_eq!(fresh.recipient_address, old.recipient_address);
    assert_eq!(fresh.customer_reference.as_deref(), Some("cust-7"));
    assert_eq!(fresh.metadata, old.metadata);
    assert_eq!(fresh.expires_at, old.expires_at);
}

#[test]
fn only_a_lapsed_untouched_open_cross_quote_is_quoted_again() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let refused = |old: CheckoutSession| {
        let mut h = harness(&c, 110_000_000, 0);
        match requote(&mut h, old) {
            Err(RequoteError::NotRequotable(why)) => why,
            other => panic!("{other:?}"),
        }
    };
    let mut live = lapsed(&c);
    if let Some(p) = live.priced.as_mut() {
        p.quote.expires_at = Some(Timestamp::from_unix_seconds(2_000).unwrap());
    }
    assert!(refused(live).contains("has not expired"));
    let mut peg = lapsed(&c);
    if let Some(p) = peg.priced.as_mut() {
        p.quote.expires_at = None;
    }
    assert!(refused(peg).contains("across currencies"));
    let mut paid_in_part = lapsed(&c);
    paid_in_part.amount_received_micros = 1;
    assert!(refused(paid_in_part).contains("already reached"));
    let mut ending = lapsed(&c);
    ending.expires_at = Timestamp::from_unix_seconds(1_030).unwrap();
    assert!(refused(ending).contains("expiring"));
    let mut done = lapsed(&c);
    done.status = SessionStatus::Completed;
    assert!(refused(done).contains("no longer open"));

    // A link's session goes back to its link.
    let mut by_link = lapsed(&c);
    let link = PaymentLinkId::generate();
    by_link.payment_link = Some(link);
    let mut h = harness(&c, 110_000_000, 0);
    assert!(matches!(requote(&mut h, by_link), Ok(Requoted::ByLink(l)) if l == link));
}
