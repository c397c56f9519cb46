use super::*;
use crate::model::{
    Address, Amount, AmountBounds, AuthContext, Currency, FeeTier, Fiat, LinkPricing, Mode, Price,
    Timestamp, UnderpaymentTolerance,
};
use crate::ports::{MockPaymentLinkRepository, VisitedLink};
use crate::services::create_checkout_session::tests::{ctx, priced, wallet, Harness};
use futures_executor::block_on;

fn amount(s: &str) -> Amount {
    Amount::parse(s).unwrap()
}

/// A test-mode link paying wallet 1, made by `c`'s key, at `pricing`.
fn link(c: &AuthContext, pricing: LinkPricing) -> PaymentLink {
    PaymentLink {
        id: PaymentLinkId::generate(),
        merchant_id: c.merchant_id,
        mode: Mode::Test,
        name: "Pour-over kit".into(),
        description: Some("Filter, kettle, beans".into()),
        pricing,
        currency: Currency::Usdc,
        recipient: Address::from_bytes([1; 20]),
        success_url: Some("https://shop.example/thanks".into()),
        metadata: r#"{"sku":"POK-1"}"#.into(),
        completed_limit: None,
        completed_count: 0,
        active: true,
        created_by: c.actor,
        created_at: Timestamp::from_unix_seconds(500).unwrap(),
    }
}

fn links(link: PaymentLink) -> MockPaymentLinkRepository {
    let mut links = MockPaymentLinkRepository::new();
    links.expect_visited_link().returning(move |id| {
        assert_eq!(id, link.id);
        Ok(Some(VisitedLink {
            link: link.clone(),
            fee_tier: FeeTier::Growth,
            underpayment_tolerance: UnderpaymentTolerance::from_bps(50).unwrap(),
        }))
    });
    links
}

fn visit(
    h: &Harness,
    links: &MockPaymentLinkRepository,
    id: PaymentLinkId,
    visitor: LinkVisitor<'_>,
) -> Result<LinkVisit, LinkVisitError> {
    let (prepare, create) = h.deps();
    let deps = LinkVisitDeps {
        links,
        prepare,
        create,
    };
    block_on(open_payment_link(id, visitor, &deps))
}

fn opened(visit: Result<LinkVisit, LinkVisitError>) -> (CheckoutSession, bool) {
    match visit {
        Ok(LinkVisit::Session { session, fresh }) => (*session, fresh),
        other => panic!("expected a session, got {other:?}"),
    }
}

#[test]
fn a_visit_opens_a_session_on_the_links_terms_for_its_merchant() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let l = link(&c, LinkPricing::Amount(amount("12.50")));
    let h = Harness::new(vec![wallet(&c, 1)], 1);
    let (s, fresh) = opened(visit(&h, &links(l.clone()), l.id, LinkVisitor::default()));
    assert!(fresh);
    assert_eq!(s.payment_link, Some(l.id));
    assert_eq!((s.merchant_id, s.mode), (c.merchant_id, Mode::Test));
    assert_eq!(
        (s.amount.micros(), s.currency),
        (12_500_000, Currency::Usdc)
    );
    // The merchant's fee tier and tolerance as they are now, not the key's at creation.
    assert_eq!((s.fee_bps, s.underpayment_tolerance.bps()), (75, 50));
    assert_eq!(s.title, "Pour-over kit");
    assert_eq!(s.recipient_address, l.recipient);
    assert_eq!(s.metadata, r#"{"sku":"POK-1"}"#);
    assert_eq!(
        s.success_url.as_deref(),
        Some("https://shop.example/thanks")
    );
    assert_eq!(
        s.expires_at.unix_seconds() - s.created_at.unix_seconds(),
        LINK_SESSION_TTL_SECS as i64
    );
}

#[test]
fn an_inactive_or_sold_out_link_opens_nothing() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let h = Harness::new(vec![wallet(&c, 1)], 0);
    let mut off = link(&c, LinkPricing::Amount(amount("1")));
    off.active = false;
    assert!(matches!(
        visit(&h, &links(off.clone()), off.id, LinkVisitor::default()),
        Ok(LinkVisit::Inactive(_))
    ));
    let mut sold = link(&c, LinkPricing::Amount(amount("1")));
    sold.completed_limit = Some(3);
    sold.completed_count = 3;
    assert!(matches!(
        visit(&h, &links(sold.clone()), sold.id, LinkVisitor::default()),
        Ok(LinkVisit::SoldOut(_))
    ));
    let mut unknown = MockPaymentLinkRepository::new();
    unknown.expect_visited_link().returning(|_| Ok(None));
    assert!(matches!(
        visit(&h, &unknown, off.id, LinkVisitor::default()),
        Err(LinkVisitError::NotFound(_))
    ));
}

#[test]
fn a_returning_visitor_keeps_their_open_session_and_no_other() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let l = link(&c, LinkPricing::Amount(amount("3")));
    // Opened once; the harness's clock is at 1000.
    let first = opened(visit(
        &Harness::new(vec![wallet(&c, 1)], 1),
        &links(l.clone()),
        l.id,
        LinkVisitor::default(),
    ))
    .0;
    let held = |session: CheckoutSession, inserts: usize| {
        let mut h = Harness::new(vec![wallet(&c, 1)], inserts);
        h.sessions
            .expect_get_public()
            .returning(move |_| Ok(Some(session.clone())));
        h
    };
    let back = LinkVisitor {
        returning: Some(first.id),
        chosen_amount: None,
    };
    let (again, fresh) = opened(visit(
        &held(first.clone(), 0),
        &links(l.clone()),
        l.id,
        back,
    ));
    assert_eq!((again.id, fresh), (first.id, false));

    // Expired, completed, or another link's: a fresh session instead.
    let mut expired = first.clone();
    expired.expires_at = Timestamp::from_unix_seconds(1_000).unwrap();
    let mut completed = first.clone();
    completed.status = SessionStatus::Completed;
    let mut other = first.clone();
    other.payment_link = Some(PaymentLinkId::generate());
    for stale in [expired, completed, other] {
        let h = held(stale, 1);
        let (s, fresh) = opened(visit(&h, &links(l.clone()), l.id, back));
        assert!(fresh && s.id != first.id);
    }
}

#[test]
fn an_open_amount_link_asks_then_takes_an_amount_within_its_bounds() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let bounds = AmountBounds::new(amount("5"), amount("50")).unwrap();
    let l = link(&c, LinkPricing::Custom { bounds, fiat: None });
    let h = Harness::new(vec![wallet(&c, 1)], 1);
    let ask = |chosen| {
        visit(
            &h,
            &links(l.clone()),
            l.id,
            LinkVisitor {
                returning: None,
                chosen_amount: chosen,
            },
        )
    };
    assert!(matches!(
        ask(None),
        Ok(LinkVisit::AskAmount { refused: None, .. })
    ));
    match ask(Some("60")) {
        Ok(LinkVisit::AskAmount {
            refused: Some(why), ..
        }) => assert_eq!(why.to_string(), "must be between 5 and 50 USDC"),
        other => panic!("{other:?}"),
    }
    let (s, _) = opened(ask(Some("7.25")));
    assert_eq!(s.amount.micros(), 7_250_000);
}

#[test]
fn a_euro_link_is_quoted_at_each_visit_and_a_stale_feed_opens_nothing() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let l = link(
        &c,
        LinkPricing::Price(Price {
            amount: amount("20"),
            fiat: Fiat::Eur,
        }),
    );
    let mut h = Harness::new(vec![wallet(&c, 1)], 1);
    priced(&mut h, 108_250_000, 108_200_000, 60);
    let (s, _) = opened(visit(&h, &links(l.clone()), l.id, LinkVisitor::default()));
    assert_eq!(s.amount.micros(), 21_650_000);
    assert_eq!(s.priced.map(|p| p.price.fiat), Some(Fiat::Eur));

    let mut stale = Harness::new(vec![wallet(&c, 1)], 0);
    priced(&mut stale, 108_250_000, 108_200_000, 3_601);
    assert!(matches!(
        visit(&stale, &links(l.clone()), l.id, LinkVisitor::default()),
        Err(LinkVisitError::Unavailable {
            error: CreateSessionError::PriceUnavailable(_),
            ..
        })
    ));
}
