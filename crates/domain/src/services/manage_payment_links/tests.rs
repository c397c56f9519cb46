use super::*;
use crate::model::{Amount, AmountBounds, FeeTier, Fiat, Mode, Price};
use crate::ports::MockPaymentLinkRepository;
use crate::services::create_checkout_session::tests::{ctx, wallet, Harness};
use futures_executor::block_on;

fn new_link(pricing: LinkPricing, currency: Option<Currency>) -> NewPaymentLink {
    NewPaymentLink {
        name: Title::parse("Pour-over kit").unwrap(),
        description: None,
        pricing,
        currency,
        recipient: None,
        success_url: None,
        metadata: MetadataJson::empty(),
        completed_limit: Some(10),
    }
}

fn euros(amount: &str) -> Price {
    Price {
        amount: Amount::parse(amount).unwrap(),
        fiat: Fiat::Eur,
    }
}

fn create(
    h: &Harness,
    links: &MockPaymentLinkRepository,
    c: &AuthContext,
    new: NewPaymentLink,
) -> Result<PaymentLink, PaymentLinkError> {
    let deps = PaymentLinkDeps {
        links,
        wallets: &h.wallets,
        tokens: &h.tokens,
        feeds: &h.feeds,
        clock: &h.clock,
    };
    block_on(create_payment_link(c, new, &deps))
}

fn inserting(times: usize) -> MockPaymentLinkRepository {
    let mut links = MockPaymentLinkRepository::new();
    links
        .expect_insert_link()
        .times(times)
        .returning(|_| Ok(()));
    links
}

fn fields(e: PaymentLinkError) -> Vec<String> {
    match e {
        PaymentLinkError::Invalid(v) => v.0.into_iter().map(|e| e.field).collect(),
        other => panic!("expected validation errors, got {other:?}"),
    }
}

#[test]
fn a_link_is_stored_with_its_wallet_token_and_maker() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let h = Harness::new(vec![wallet(&c, 1)], 0);
    let link = create(
        &h,
        &inserting(1),
        &c,
        new_link(LinkPricing::Price(euros("20")), None),
    )
    .unwrap();
    // A euro price without a token is paid in EURC; the only verified wallet is paid.
    assert_eq!(link.currency, Currency::Eurc);
    assert_eq!(link.recipient, Address::from_bytes([1; 20]));
    assert_eq!((link.merchant_id, link.mode), (c.merchant_id, Mode::Test));
    assert_eq!(link.created_by, c.actor);
    assert!(link.active);
    assert_eq!((link.completed_limit, link.completed_count), (Some(10), 0));
}

#[test]
fn a_link_that_no_visit_could_pay_is_refused_on_its_field() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let h = Harness::new(vec![wallet(&c, 1)], 0);
    // The test chain has no USDT.
    let usdt = new_link(
        LinkPricing::Amount(Amount::parse("1").unwrap()),
        Some(Currency::Usdt),
    );
    assert_eq!(
        fields(create(&h, &inserting(0), &c, usdt).unwrap_err()),
        ["currency"]
    );
    // Base has no feeds configured in the harness: no euro price there.
    let live = ctx(Mode::Live, FeeTier::Standard);
    let priced = new_link(LinkPricing::Price(euros("20")), Some(Currency::Usdc));
    assert_eq!(
        fields(create(&h, &inserting(0), &live, priced).unwrap_err()),
        ["price"]
    );
    let bounds =
        AmountBounds::new(Amount::parse("1").unwrap(), Amount::parse("9").unwrap()).unwrap();
    let open = new_link(
        LinkPricing::Custom {
            bounds,
            fiat: Some(Fiat::Eur),
        },
        Some(Currency::Usdc),
    );
    assert_eq!(
        fields(create(&h, &inserting(0), &live, open).unwrap_err()),
        ["custom_price"]
    );
    // No verified wallet to pay.
    let none = Harness::new(vec![], 0);
    let plain = new_link(LinkPricing::Amount(Amount::parse("1").unwrap()), None);
    assert_eq!(
        fields(create(&none, &inserting(0), &c, plain).unwrap_err()),
        ["recipient"]
    );
}

#[test]
fn turning_off_an_unknown_link_names_it() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let mut links = MockPaymentLinkRepository::new();
    links
        .expect_set_link_active()
        .returning(|_, _, _, _| Err(StoreError::NotFound));
    let id = PaymentLinkId::generate();
    match block_on(set_payment_link_active(&c, id, false, &links)) {
        Err(PaymentLinkError::NotFound(m)) => assert_eq!(m.id, id.to_string()),
        other => panic!("{other:?}"),
    }
}
