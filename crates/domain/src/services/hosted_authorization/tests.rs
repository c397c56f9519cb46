//! `submit_authorization` with mocked ports: the checks run in order, each failure stops
//! before anything costs gas, and a relayed session answers with its transaction.

use crate::ports::MockDepositStore;
use chrono::{TimeZone, Utc};
use futures_executor::block_on;

use super::*;
use crate::model::{
    Amount, ChainId, CheckoutSessionId, Currency, MerchantId, Mode, PrivateKey, SessionStatus,
    Timestamp, TxHash, Wallet, WalletId, WalletStatus,
};
use crate::ports::{
    MockChainReader, MockClock, MockPaymentRelayer, MockSessionRepository, MockSettlementStore,
    MockSubscriptionStore, MockWalletRepository,
};
use crate::rules::eip191;
use crate::rules::eip712::{self, Domain};
use crate::services::{ChainContracts, ChainDirectory, SettleDeps};

const PAYER_KEY: [u8; 32] = [0x21; 32];
const OPERATOR: [u8; 32] = [0x07; 32];
const CHAIN: ChainId = ChainId::BaseSepolia;
const NOW: i64 = 1_800_000_000;

fn addr(n: u8) -> Address {
    Address::from_bytes([n; 20])
}

fn session() -> CheckoutSession {
    let at = |s: i64| Timestamp::new(Utc.timestamp_opt(NOW + s, 0).unwrap());
    CheckoutSession {
        id: CheckoutSessionId::generate(),
        merchant_id: MerchantId::generate(),
        mode: Mode::Test,
        session_mode: SessionMode::Payment,
        status: SessionStatus::Open,
        title: "Beans".into(),
        description: None,
        amount: Amount::from_micros(12_500_000).unwrap(),
        currency: Currency::Usdc,
        fee_bps: 100,
        fee_micros: 125_000,
        net_micros: 12_375_000,
        fee_tier: "standard".into(),
        chain: CHAIN,
        token_address: addr(0x12),
        interval_seconds: None,
        chain_plan_id: None,
        recipient_address: addr(0x13),
        customer: None,
        subscription: None,
        customer_reference: None,
        success_url: None,
        cancel_url: None,
        wallet_address: None,
        tx_hash: None,
        metadata: "{}".into(),
        expires_at: at(3600),
        completed_at: None,
        created_at: at(-60),
        deposit_address: None,
        amount_received_micros: 0,
    }
}

fn domain() -> TokenDomain {
    TokenDomain {
        name: "USD Coin".into(),
        version: "2".into(),
        chain_id: CHAIN.id(),
        token: addr(0x12),
    }
}

/// The world one submission sees; each test narrows what the chain and relayer answer.
struct World {
    sessions: MockSessionRepository,
    wallets: MockWalletRepository,
    chain: MockChainReader,
    store: MockSettlementStore,
    deposits: MockDepositStore,
    subscriptions: MockSubscriptionStore,
    clock: MockClock,
    chains: ChainDirectory,
    tokens: crate::services::TokenDirectory,
    key: PrivateKey,
    relayer: MockPaymentRelayer,
    session: CheckoutSession,
}

impl World {
    /// Every check before the relay passes: the payer holds 50 USDC, the relayer is above
    /// its floor and the simulation succeeds.
    fn checks_pass(&mut self) {
        self.chain
            .expect_token_balance()
            .returning(|_, _, _| Ok(50_000_000));
        self.relayer.expect_ready().returning(|_| Ok(true));
        self.relayer
            .expect_simulate()
            .returning(|_, _| Ok(RelaySimulation::Succeeds));
    }

    fn new() -> Self {
        let s = session();
        let mut sessions = MockSessionRepository::new();
        let found = s.clone();
        sessions
            .expect_get_public()
            .returning(move |_| Ok(Some(found.clone())));
        let mut wallets = MockWalletRepository::new();
        let recipient = s.recipient_address;
        wallets.expect_verified().returning(move |m| {
            Ok(vec![Wallet {
                id: WalletId::generate(),
                merchant_id: m,
                address: recipient,
                chain: CHAIN,
                status: WalletStatus::Verified,
                verified_at: None,
                verified_mode: Some(Mode::Live),
                revoked_at: None,
                created_at: Timestamp::from_unix_seconds(NOW).unwrap(),
            }])
        });
        let mut chain = MockChainReader::new();
        chain
            .expect_authorization_domain()
            .returning(|_, _| Ok(Some(domain())));
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .return_const(Timestamp::from_unix_seconds(NOW).unwrap());
        let mut relayer = MockPaymentRelayer::new();
        relayer.expect_relayed().returning(|_| Ok(None));
        Self {
            sessions,
            wallets,
            chain,
            store: MockSettlementStore::new(),
            deposits: MockDepositStore::new(),
            subscriptions: MockSubscriptionStore::new(),
            clock,
            tokens: Default::default(),
            chains: ChainDirectory::new(vec![ChainContracts {
                chain: CHAIN,
                checkout_router: addr(0x10),
                treasury: addr(0x11),
                subscription_manager: None,
                deposit_factory: None,
                confirmations: 2,
            }]),
            key: PrivateKey::from_bytes(OPERATOR),
            relayer,
            session: s,
        }
    }

    /// The authorization the payer signs (valid for the default 15 minutes).
    fn signed_by(&self, key: &[u8; 32]) -> (Address, u64, Signature) {
        let payer = eip191::address_of_private_key(&PAYER_KEY).unwrap();
        let valid_before = (NOW + 900) as u64;
        let auth = ReceiveAuthorization {
            from: payer,
            to: addr(0x10),
            value: 12_500_000,
            valid_after: 0,
            valid_before,
            nonce: crate::rules::eip712::session_ref(&self.session.id),
        };
        let sig = eip191::sign_hash(&auth.digest(&domain()), key).unwrap();
        (payer, valid_before, sig)
    }

    fn submit(&self, key: &[u8; 32]) -> Result<Relayed, AuthorizationError> {
        let (payer, valid_before, sig) = self.signed_by(key);
        let deps = AuthorizationDeps {
            hosted: HostedDeps {
                sessions: &self.sessions,
                wallets: &self.wallets,
                settle: SettleDeps {
                    chain: &self.chain,
                    store: &self.store,
                    deposits: &self.deposits,
                    subscriptions: &self.subscriptions,
                    clock: &self.clock,
                    chains: &self.chains,
                    tokens: &self.tokens,
                },
                operator_key: Some(&self.key),
                intent_ttl_secs: 900,
            },
            relayer: Some(&self.relayer),
        };
        block_on(submit_authorization(
            self.session.id,
            payer,
            valid_before,
            &sig,
            &deps,
        ))
        .map(|(_, relayed)| relayed)
    }
}

#[test]
fn another_signer_is_refused_before_any_balance_or_relayer_call() {
    let mut w = World::new();
    w.chain.expect_is_contract().returning(|_, _| Ok(false));
    w.chain.expect_token_balance().never();
    w.relayer.expect_relay().never();
    let err = w.submit(&[0x42; 32]).unwrap_err();
    assert!(
        matches!(err, AuthorizationError::SignatureMismatch(_)),
        "{err:?}"
    );
}

#[test]
fn a_payer_short_of_funds_is_told_so_and_nothing_is_simulated() {
    let mut w = World::new();
    w.chain
        .expect_token_balance()
        .returning(|_, _, _| Ok(12_499_999));
    w.relayer.expect_simulate().never();
    let err = w.submit(&PAYER_KEY).unwrap_err();
    assert!(matches!(
        err,
        AuthorizationError::InsufficientFunds {
            has: 12_499_999,
            needs: 12_500_000,
            ..
        }
    ));
}

#[test]
fn a_relayer_under_its_floor_or_a_reverting_simulation_sends_nothing() {
    let mut w = World::new();
    w.chain
        .expect_token_balance()
        .returning(|_, _, _| Ok(50_000_000));
    w.relayer.expect_ready().returning(|_| Ok(false));
    w.relayer.expect_relay().never();
    assert!(matches!(
        w.submit(&PAYER_KEY).unwrap_err(),
        AuthorizationError::RelayerUnavailable
    ));

    let mut w = World::new();
    w.chain
        .expect_token_balance()
        .returning(|_, _, _| Ok(50_000_000));
    w.relayer.expect_ready().returning(|_| Ok(true));
    w.relayer.expect_simulate().returning(|_, _| {
        Ok(RelaySimulation::Reverts(
            "FiatTokenV2: authorization is used or canceled".into(),
        ))
    });
    w.relayer.expect_relay().never();
    let err = w.submit(&PAYER_KEY).unwrap_err();
    assert!(
        matches!(&err, AuthorizationError::Rejected(why) if why.contains("used")),
        "{err:?}"
    );

    // A node that cannot answer is unknown (503), never a verdict.
    let mut w = World::new();
    w.chain
        .expect_token_balance()
        .returning(|_, _, _| Err(ChainError::Unavailable("timeout".into())));
    assert!(matches!(
        w.submit(&PAYER_KEY).unwrap_err(),
        AuthorizationError::ChainUnavailable(_)
    ));
}

#[test]
fn a_good_authorization_is_relayed_once_and_a_repeat_gets_the_same_transaction() {
    let mut w = World::new();
    w.checks_pass();
    let payer = eip191::address_of_private_key(&PAYER_KEY).unwrap();
    let operator = eip191::address_of_private_key(&OPERATOR).unwrap();
    // The operator signs the intent bound to this payer (`PayerIntent`), not the plain
    // intent a transaction uses, so no other wallet can pay the session with it.
    let signer_over = |p: &OneSignaturePayment, struct_hash: [u8; 32]| {
        let domain = Domain {
            name: eip712::ROUTER_NAME,
            chain_id: CHAIN.id(),
            verifying_contract: addr(0x10),
        };
        eip191::recover_hash(&domain.digest(struct_hash), &p.operator_signature)
    };
    w.relayer
        .expect_relay()
        .withf(move |chain, _, p| {
            *chain == CHAIN
                && p.payer == payer
                && p.router == addr(0x10)
                && p.intent.net_amount == 12_375_000
                && p.intent.fee_amount == 125_000
                && p.intent.deadline == p.valid_before
                && signer_over(p, p.intent.payer_struct_hash(&payer)) == Some(operator)
                && signer_over(p, p.intent.struct_hash()) != Some(operator)
        })
        .times(1)
        .returning(|_, _, _| Ok(Relayed::Submitted(TxHash::from_bytes([9; 32]))));
    assert_eq!(
        w.submit(&PAYER_KEY).unwrap(),
        Relayed::Submitted(TxHash::from_bytes([9; 32]))
    );

    // Relayed before: the same transaction, and no check or send runs again.
    let mut w = World::new();
    w.relayer.checkpoint();
    w.relayer
        .expect_relayed()
        .returning(|_| Ok(Some(TxHash::from_bytes([9; 32]))));
    w.relayer.expect_relay().never();
    w.chain.expect_token_balance().never();
    assert_eq!(
        w.submit(&PAYER_KEY).unwrap(),
        Relayed::AlreadySubmitted(TxHash::from_bytes([9; 32]))
    );
}

#[test]
fn an_authorization_about_to_expire_is_refused_before_anything_is_checked() {
    let w = World::new();
    let (payer, _, sig) = w.signed_by(&PAYER_KEY);
    let deps = AuthorizationDeps {
        hosted: HostedDeps {
            sessions: &w.sessions,
            wallets: &w.wallets,
            settle: SettleDeps {
                chain: &w.chain,
                store: &w.store,
                deposits: &w.deposits,
                subscriptions: &w.subscriptions,
                clock: &w.clock,
                chains: &w.chains,
                tokens: &w.tokens,
            },
            operator_key: Some(&w.key),
            intent_ttl_secs: 900,
        },
        relayer: Some(&w.relayer),
    };
    let soon = (NOW as u64) + MIN_VALIDITY_SECS - 1;
    let err = block_on(submit_authorization(w.session.id, payer, soon, &sig, &deps)).unwrap_err();
    assert!(
        matches!(err, AuthorizationError::ValidBeforePast),
        "{err:?}"
    );
}

#[test]
fn another_wallets_pending_payment_refuses_this_payer_on_the_payer_field() {
    let mut w = World::new();
    w.checks_pass();
    w.relayer.expect_relay().times(1).returning(|_, _, _| {
        Err(RelayError::AnotherPayerPending {
            payer: addr(0x44),
            valid_before: 1_800_000_900,
        })
    });
    let err = w.submit(&PAYER_KEY).unwrap_err();
    assert!(matches!(
        err,
        AuthorizationError::AnotherPayerPending {
            payer,
            valid_before: 1_800_000_900
        } if payer == addr(0x44)
    ));
    assert!(err.to_string().contains("until 1800000900"));
}
