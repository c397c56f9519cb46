use super::*;
use crate::deployment::{ChainContracts, ChainDirectory};
use crate::model::{
    Amount, ApiKeyId, AuthContext, ChainPlanId, FeeTier, FeedPair, FeedRound, Fiat, MerchantId,
    Mode, Price, Timestamp, Wallet, WalletId,
};
use crate::ports::{
    ChainError, MockChainReader, MockClock, MockSessionRepository, MockSubscriptionStore,
    MockWalletRepository, OnChainPlan,
};
use crate::rules::eip712;
use chrono::{TimeZone, Utc};
use futures_executor::block_on;

pub(crate) fn ctx(mode: Mode, tier: FeeTier) -> AuthContext {
    AuthContext {
        merchant_id: MerchantId::generate(),
        mode,
        actor: crate::model::Actor::ApiKey(ApiKeyId::generate()),
        fee_tier: tier,
        rate_limit_per_min: None,
        underpayment_tolerance: crate::model::UnderpaymentTolerance::NONE,
    }
}

pub(crate) fn wallet(ctx: &AuthContext, byte: u8) -> Wallet {
    Wallet {
        id: WalletId::generate(),
        merchant_id: ctx.merchant_id,
        address: Address::from_bytes([byte; 20]),
        chain: ChainId::Base,
        status: WalletStatus::Verified,
        verified_at: None,
        verified_mode: Some(Mode::Live),
        revoked_at: None,
        revoked_mode: None,
        created_at: Timestamp::new(Utc.timestamp_opt(0, 0).unwrap()),
    }
}

pub(crate) fn request() -> NewSessionRequest {
    NewSessionRequest {
        terms: SessionTerms::Payment {
            amount: Amount::parse("12.5").unwrap(),
        },
        title: Title::parse("Coffee").unwrap(),
        description: None,
        recipient: None,
        customer_reference: Some(CustomerReference::parse("cust-42").unwrap()),
        metadata: MetadataJson::from_json_text(r#"{"order":"A-1"}"#).unwrap(),
        success_url: None,
        cancel_url: None,
        underpayment_tolerance: None,
        payment_link: None,
        requoted_from: None,
        expires_in_seconds: 600,
        chain: None,
        currency: Some(Currency::Usdc),
    }
}

fn subscription_terms(plan: u128) -> SessionTerms {
    SessionTerms::Subscription {
        plan: ChainPlanId::from_u128(plan).unwrap(),
        amount: None,
        interval_seconds: None,
        price: None,
    }
}

pub(crate) fn tokens() -> TokenDirectory {
    TokenDirectory::new()
        .with(
            ChainId::BaseSepolia,
            Currency::Usdc,
            Address::from_bytes([0xaa; 20]),
        )
        .with(
            ChainId::Base,
            Currency::Usdc,
            Address::from_bytes([0xbb; 20]),
        )
        .with(
            ChainId::BaseSepolia,
            Currency::Eurc,
            Address::from_bytes([0xee; 20]),
        )
}

/// Test-chain feeds for EUR/USD, USDC/USD and EURC/USD (none on Base): a feed's
/// address is its pair's index + 0x61.
pub(crate) fn feeds() -> PriceFeeds {
    [FeedPair::EurUsd, FeedPair::UsdcUsd, FeedPair::EurcUsd]
        .into_iter()
        .fold(PriceFeeds::default(), |f, pair| {
            f.with(ChainId::BaseSepolia, pair, feed_of(pair))
        })
}

pub(crate) fn feed_of(pair: FeedPair) -> Address {
    Address::from_bytes([pair as u8 + 0x61; 20])
}

pub(crate) struct Harness {
    pub(crate) sessions: MockSessionRepository,
    pub(crate) wallets: MockWalletRepository,
    pub(crate) clock: MockClock,
    pub(crate) tokens: TokenDirectory,
    pub(crate) chain: MockChainReader,
    pub(crate) chains: ChainDirectory,
    pub(crate) subscriptions: MockSubscriptionStore,
    pub(crate) feeds: PriceFeeds,
}

pub(crate) const MANAGER: [u8; 20] = [0x5u8; 20];

impl Harness {
    pub(crate) fn new(verified: Vec<Wallet>, expect_insert: usize) -> Self {
        let mut sessions = MockSessionRepository::new();
        sessions
            .expect_insert()
            .times(expect_insert)
            .returning(|_| Ok(()));
        let mut wallets = MockWalletRepository::new();
        wallets
            .expect_verified()
            .returning(move |_| Ok(verified.clone()));
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .return_const(Timestamp::new(Utc.timestamp_opt(1_000, 0).unwrap()));
        Self {
            sessions,
            wallets,
            clock,
            tokens: tokens(),
            chain: MockChainReader::new(),
            chains: ChainDirectory::new(vec![ChainContracts {
                chain: ChainId::Base,
                checkout_router: Address::from_bytes([0x4; 20]),
                treasury: Address::from_bytes([0x3; 20]),
                subscription_manager: Some(Address::from_bytes(MANAGER)),
                deposit_factory: None,
                confirmations: 2,
            }]),
            subscriptions: MockSubscriptionStore::new(),
            feeds: feeds(),
        }
    }

    /// What a create reads and writes, all from the harness's mocks.
    pub(crate) fn deps(&self) -> (PrepareSessionDeps<'_>, CreateSessionDeps<'_>) {
        let read = PrepareSessionDeps {
            tokens: &self.tokens,
            chain: &self.chain,
            chains: &self.chains,
            feeds: &self.feeds,
            clock: &self.clock,
        };
        let deps = CreateSessionDeps {
            sessions: &self.sessions,
            wallets: &self.wallets,
            clock: &self.clock,
            tokens: &self.tokens,
            chains: &self.chains,
            subscriptions: &self.subscriptions,
            plan_min_interval_secs: 86_400,
        };
        (read, deps)
    }

    pub(crate) fn run(
        &self,
        ctx: &AuthContext,
        req: NewSessionRequest,
    ) -> Result<CheckoutSession, CreateSessionError> {
        let (read, deps) = self.deps();
        block_on(async {
            let prepared = prepare_checkout_session(&ctx.owner(), req, &read).await?;
            create_checkout_session(&ctx.owner(), prepared, &deps).await
        })
    }
}

fn fields(err: CreateSessionError) -> Vec<String> {
    match err {
        CreateSessionError::Invalid(v) => v.0.into_iter().map(|e| e.field).collect(),
        other => panic!("expected validation errors, got {other:?}"),
    }
}

#[test]
fn snapshots_fee_terms_and_uses_the_only_verified_wallet() {
    let c = ctx(Mode::Test, FeeTier::Growth);
    let w = wallet(&c, 1);
    let h = Harness::new(vec![w.clone()], 1);
    let s = h.run(&c, request()).unwrap();
    assert_eq!(s.recipient_address, w.address);
    assert_eq!(
        (s.fee_bps, s.fee_micros, s.net_micros),
        (75, 93_750, 12_406_250)
    );
    assert_eq!(s.fee_tier, "growth");
    assert_eq!(s.chain, ChainId::BaseSepolia);
    assert_eq!(s.token_address, Address::from_bytes([0xaa; 20]));
    assert_eq!(s.status, SessionStatus::Open);
    assert_eq!(s.expires_at.unix_seconds(), 1_600);
}

#[test]
fn the_session_id_sorts_at_its_created_at_not_at_the_wall_clock() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let h = Harness::new(vec![wallet(&c, 1)], 1);
    let s = h.run(&c, request()).unwrap();
    let (secs, nanos) = s.id.uuid().get_timestamp().unwrap().to_unix();
    assert_eq!((secs, nanos), (1_000, 0), "the mocked clock's second 1000");
    assert_eq!(s.created_at.unix_seconds(), 1_000);
}

#[test]
fn chain_cross_check_must_match_the_key_mode() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let h = Harness::new(vec![wallet(&c, 1)], 0);
    let err = h
        .run(
            &c,
            NewSessionRequest {
                chain: Some(ChainId::Base),
                ..request()
            },
        )
        .unwrap_err();
    assert_eq!(fields(err), ["chain"]);
}

pub(crate) fn plan(recipient: Address) -> OnChainPlan {
    OnChainPlan {
        plan_id: 7,
        creator: recipient,
        token: Address::from_bytes([0xbb; 20]),
        recipient,
        amount: 9_990_000,
        interval_seconds: 30 * 86_400,
    }
}

pub(crate) fn subscription_request(plan_id: u128) -> NewSessionRequest {
    NewSessionRequest {
        terms: subscription_terms(plan_id),
        ..request()
    }
}

#[test]
fn a_subscription_session_carries_the_plan_terms_and_registers_the_plan() {
    let c = ctx(Mode::Live, FeeTier::Standard);
    let w = wallet(&c, 1);
    let mut h = Harness::new(vec![w.clone()], 1);
    let on_chain = plan(w.address);
    h.chain
        .expect_subscription_plan()
        .withf(|chain, manager, id| {
            *chain == ChainId::Base && *manager == Address::from_bytes(MANAGER) && *id == 7
        })
        .returning(move |_, _, _| Ok(Some(on_chain.clone())));
    h.subscriptions
        .expect_register_plan()
        .times(1)
        .withf(|p| p.terms.plan_id == 7 && p.manager == Address::from_bytes(MANAGER))
        .returning(|_| Ok(()));
    let s = h.run(&c, subscription_request(7)).unwrap();
    assert_eq!(s.amount, Amount::parse("9.99").unwrap());
    assert_eq!(s.interval_seconds, Some(30 * 86_400));
    assert_eq!(s.chain_plan_id.as_deref(), Some("7"));
    assert_eq!(s.recipient_address, w.address);
    assert_eq!(
        (s.fee_bps, s.fee_micros, s.net_micros),
        (100, 99_900, 9_890_100)
    );
}

#[test]
fn subscription_plans_are_refused_on_the_field_that_disagrees() {
    let c = ctx(Mode::Live, FeeTier::Standard);
    let w = wallet(&c, 1);
    // An unknown plan id; USDT; a failing cross-check. (Missing and malformed plan ids
    // never get here: `SessionTerms` and `ChainPlanId` refuse them where they are parsed.)
    let mut h = Harness::new(vec![w.clone()], 0);
    let on_chain = plan(w.address);
    h.chain
        .expect_subscription_plan()
        .returning(move |_, _, id| Ok((id == 7).then(|| on_chain.clone())));
    assert_eq!(
        fields(h.run(&c, subscription_request(8)).unwrap_err()),
        ["chain_plan_id"]
    );
    let usdt = NewSessionRequest {
        currency: Some(Currency::Usdt),
        ..subscription_request(7)
    };
    assert!(h.run(&c, usdt).is_err());
    let wrong_amount = NewSessionRequest {
        terms: SessionTerms::Subscription {
            plan: ChainPlanId::from_u128(7).unwrap(),
            amount: Some(Amount::parse("10").unwrap()),
            interval_seconds: Some(60),
            price: None,
        },
        ..request()
    };
    assert_eq!(
        fields(h.run(&c, wrong_amount).unwrap_err()),
        ["amount", "interval_seconds"]
    );
}

#[test]
fn an_unreachable_chain_is_not_a_verdict_on_the_plan() {
    let c = ctx(Mode::Live, FeeTier::Standard);
    let mut h = Harness::new(vec![wallet(&c, 1)], 0);
    h.chain
        .expect_subscription_plan()
        .returning(|_, _, _| Err(ChainError::Unavailable("timeout".into())));
    let err = h.run(&c, subscription_request(7)).unwrap_err();
    assert!(matches!(err, CreateSessionError::ChainUnavailable(_)));
}

fn tolerance(bps: u16) -> UnderpaymentTolerance {
    UnderpaymentTolerance::from_bps(bps).unwrap()
}

#[test]
fn a_payment_session_takes_the_requested_tolerance_else_the_merchants_default() {
    let c = AuthContext {
        underpayment_tolerance: tolerance(50),
        ..ctx(Mode::Test, FeeTier::Standard)
    };
    let h = Harness::new(vec![wallet(&c, 1)], 3);
    let by_default = h.run(&c, request()).unwrap();
    assert_eq!(by_default.underpayment_tolerance, tolerance(50));
    for asked in [0, 500] {
        let s = h
            .run(
                &c,
                NewSessionRequest {
                    underpayment_tolerance: Some(tolerance(asked)),
                    payment_link: None,
                    requoted_from: None,
                    ..request()
                },
            )
            .unwrap();
        assert_eq!(s.underpayment_tolerance, tolerance(asked));
    }
}

#[test]
fn a_subscription_session_refuses_a_tolerance_and_ignores_the_merchants_default() {
    let c = AuthContext {
        underpayment_tolerance: tolerance(50),
        ..ctx(Mode::Live, FeeTier::Standard)
    };
    let w = wallet(&c, 1);
    let mut h = Harness::new(vec![w.clone()], 2);
    let on_chain = plan(w.address);
    h.chain
        .expect_subscription_plan()
        .returning(move |_, _, _| Ok(Some(on_chain.clone())));
    h.subscriptions.expect_register_plan().returning(|_| Ok(()));
    let asked = NewSessionRequest {
        underpayment_tolerance: Some(tolerance(1)),
        payment_link: None,
        requoted_from: None,
        ..subscription_request(7)
    };
    assert_eq!(
        fields(h.run(&c, asked).unwrap_err()),
        ["underpayment_tolerance_bps"]
    );
    for exact in [None, Some(UnderpaymentTolerance::NONE)] {
        let s = h
            .run(
                &c,
                NewSessionRequest {
                    underpayment_tolerance: exact,
                    payment_link: None,
                    requoted_from: None,
                    ..subscription_request(7)
                },
            )
            .unwrap();
        assert_eq!(s.underpayment_tolerance, UnderpaymentTolerance::NONE);
    }
}

#[test]
fn unconfigured_currency_is_refused() {
    let c = ctx(Mode::Live, FeeTier::Standard);
    let h = Harness::new(vec![wallet(&c, 1)], 0);
    let err = h
        .run(
            &c,
            NewSessionRequest {
                currency: Some(Currency::Usdt),
                ..request()
            },
        )
        .unwrap_err();
    assert_eq!(fields(err), ["currency"]);
}

#[test]
fn recipient_rules() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let (a, b) = (wallet(&c, 1), wallet(&c, 2));
    // Several verified wallets: recipient required.
    let h = Harness::new(vec![a.clone(), b.clone()], 1);
    assert_eq!(fields(h.run(&c, request()).unwrap_err()), ["recipient"]);
    let s = h
        .run(
            &c,
            NewSessionRequest {
                recipient: Some(b.address),
                ..request()
            },
        )
        .unwrap();
    assert_eq!(s.recipient_address, b.address);
    // An address that is not a verified wallet of this merchant.
    let h = Harness::new(vec![a], 0);
    let err = h
        .run(
            &c,
            NewSessionRequest {
                recipient: Some(Address::from_bytes([9; 20])),
                ..request()
            },
        )
        .unwrap_err();
    assert_eq!(fields(err), ["recipient"]);
    // No wallet at all.
    let h = Harness::new(vec![], 0);
    assert_eq!(fields(h.run(&c, request()).unwrap_err()), ["recipient"]);
}

#[test]
fn a_live_default_recipient_is_only_ever_a_wallet_verified_in_live_mode() {
    let live = ctx(Mode::Live, FeeTier::Standard);
    let test = AuthContext {
        mode: Mode::Test,
        ..live.clone()
    };
    let verified_live = wallet(&live, 1);
    let verified_test = Wallet {
        verified_mode: Some(Mode::Test),
        ..wallet(&live, 2)
    };
    // One live-verified and one test-verified wallet: the live default is the live one.
    let h = Harness::new(vec![verified_live.clone(), verified_test.clone()], 1);
    let s = h.run(&live, request()).unwrap();
    assert_eq!(s.recipient_address, verified_live.address);
    // Only a test-verified wallet: a live session cannot pay it, named or defaulted; a
    // test session defaults to it.
    let h = Harness::new(vec![verified_test.clone()], 1);
    let err = h.run(&live, request()).unwrap_err();
    let CreateSessionError::Invalid(v) = err else {
        panic!("expected a validation error")
    };
    assert_eq!(v.0[0].field, "recipient");
    assert!(v.0[0].message.contains("live key"), "{}", v.0[0].message);
    let named = NewSessionRequest {
        recipient: Some(verified_test.address),
        ..request()
    };
    let CreateSessionError::Invalid(v) = h.run(&live, named).unwrap_err() else {
        panic!("expected a validation error")
    };
    assert_eq!(v.0[0].field, "recipient");
    assert!(v.0[0].message.contains("live key"), "{}", v.0[0].message);
    assert_eq!(
        h.run(&test, request()).unwrap().recipient_address,
        verified_test.address
    );
    // Two test-verified wallets and none live: still required in test mode by count.
    let h = Harness::new(
        vec![
            verified_test,
            Wallet {
                verified_mode: Some(Mode::Test),
                ..wallet(&live, 3)
            },
        ],
        0,
    );
    assert_eq!(fields(h.run(&test, request()).unwrap_err()), ["recipient"]);
}

#[test]
fn a_payment_session_gets_the_deposit_address_of_its_terms_where_a_factory_is() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let mut h = Harness::new(vec![wallet(&c, 1)], 2);
    let s = h.run(&c, request()).unwrap();
    assert_eq!(s.deposit_address, None, "no factory on this chain");

    let factory = Address::from_bytes([0x5f; 20]);
    h.chains = ChainDirectory::new(vec![ChainContracts {
        chain: ChainId::BaseSepolia,
        checkout_router: Address::from_bytes([0x4; 20]),
        treasury: Address::from_bytes([0x3; 20]),
        subscription_manager: None,
        deposit_factory: Some(factory),
        confirmations: 2,
    }]);
    let s = h.run(&c, request()).unwrap();
    let expected = DepositTerms {
        reference: eip712::session_ref(&s.id),
        token: s.token_address,
        recipient: s.recipient_address,
        fee_amount: u128::from(s.fee_micros),
        fee_bps: s.fee_bps,
    }
    .address(&factory);
    assert_eq!(s.deposit_address, Some(expected));
    assert_eq!(s.amount_received_micros, 0);
}

/// A price in euros, answered by feeds at `eur_usd` and `eurc_usd` (8 decimals) updated
/// `age` seconds before the clock's now.
pub(crate) fn priced(h: &mut Harness, eur_usd: i128, eurc_usd: i128, age: i64) {
    h.chain
        .expect_price_feed_round()
        .returning(move |chain, feed| {
            assert_eq!(chain, ChainId::BaseSepolia);
            let answer = match FeedPair::ALL.into_iter().find(|p| feed_of(*p) == feed) {
                Some(FeedPair::EurUsd) => eur_usd,
                Some(FeedPair::EurcUsd) => eurc_usd,
                Some(_) => 100_000_000,
                None => return Ok(None),
            };
            Ok(Some(FeedRound {
                feed,
                round_id: 42,
                answer,
                decimals: 8,
                updated_at: Timestamp::from_unix_seconds(1_000 - age).unwrap(),
            }))
        });
}

pub(crate) fn euros(amount: &str, currency: Option<Currency>) -> NewSessionRequest {
    NewSessionRequest {
        terms: SessionTerms::PricedPayment {
            price: Price {
                amount: Amount::parse(amount).unwrap(),
                fiat: Fiat::Eur,
            },
        },
        currency,
        ..request()
    }
}

#[test]
fn a_euro_price_is_quoted_into_the_token_and_kept_on_the_session() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    let mut h = Harness::new(vec![wallet(&c, 1)], 2);
    priced(&mut h, 108_250_000, 108_200_000, 60);
    // In USDC at EUR/USD: 20 × 1.0825, the quote expiring after the default 30 minutes.
    let s = h.run(&c, euros("20", Some(Currency::Usdc))).unwrap();
    assert_eq!(
        (s.amount.micros(), s.currency),
        (21_650_000, Currency::Usdc)
    );
    assert_eq!(s.fee_micros + s.net_micros, 21_650_000);
    let p = s.priced.unwrap();
    assert_eq!(
        (p.price.amount.micros(), p.price.fiat),
        (20_000_000, Fiat::Eur)
    );
    assert_eq!(
        (p.quote.pair, p.quote.rate_e8),
        (FeedPair::EurUsd, 108_250_000)
    );
    assert_eq!(
        (p.quote.feed, p.quote.round_id),
        (feed_of(FeedPair::EurUsd), 42)
    );
    assert_eq!(p.quote.expires_at.map(|t| t.unix_seconds()), Some(2_800));
    // Without a currency a euro price is paid in EURC, 1:1 and without expiry.
    let s = h.run(&c, euros("20", None)).unwrap();
    assert_eq!(
        (s.amount.micros(), s.currency),
        (20_000_000, Currency::Eurc)
    );
    assert_eq!(s.token_address, Address::from_bytes([0xee; 20]));
    assert_eq!(s.priced.unwrap().quote.expires_at, None);
}

#[test]
fn a_price_that_cannot_be_quoted_is_refused_with_the_reason() {
    let c = ctx(Mode::Test, FeeTier::Standard);
    // A stale EUR/USD (over its hour): unavailable now, nothing stored.
    let mut h = Harness::new(vec![wallet(&c, 1)], 0);
    priced(&mut h, 108_250_000, 108_200_000, 3_601);
    match h.run(&c, euros("20", Some(Currency::Usdc))).unwrap_err() {
        CreateSessionError::PriceUnavailable(why) => {
            assert!(
                why.contains("EUR/USD") && why.contains("heartbeat"),
                "{why}"
            )
        }
        other => panic!("{other:?}"),
    }
    // EURC 3 % under the euro: the token is refused, on `currency`.
    let mut h = Harness::new(vec![wallet(&c, 1)], 0);
    priced(&mut h, 108_250_000, 105_000_000, 60);
    assert_eq!(
        fields(h.run(&c, euros("20", None)).unwrap_err()),
        ["currency"]
    );
    // The node fails: unknown, never a rate.
    let mut h = Harness::new(vec![wallet(&c, 1)], 0);
    h.chain
        .expect_price_feed_round()
        .returning(|_, _| Err(ChainError::Unavailable("timed out".into())));
    assert!(matches!(
        h.run(&c, euros("20", None)).unwrap_err(),
        CreateSessionError::ChainUnavailable(_)
    ));
    // No EUR/USD feed on Base: the request's problem, on `price`, before any read.
    let live = ctx(Mode::Live, FeeTier::Standard);
    let h = Harness::new(vec![wallet(&live, 1)], 0);
    assert_eq!(
        fields(h.run(&live, euros("20", Some(Currency::Usdc))).unwrap_err()),
        ["price"]
    );
}
