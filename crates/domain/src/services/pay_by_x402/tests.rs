//! `pay_by_x402` with mocked ports: a valid payment is relayed once and waited for; every
//! refusal sends nothing; a retried signature gets the relayed transaction back.

use chrono::{TimeZone, Utc};
use futures_executor::block_on;

use super::*;
use crate::model::{
    Amount, ChainId, Currency, MerchantId, Mode, SessionMode, SessionStatus, Timestamp, Wallet,
    WalletId, WalletStatus,
};
use crate::ports::{
    MockChainReader, MockClock, MockDepositStore, MockPaymentRelayer, MockSessionRepository,
    MockSettlementStore, MockSubscriptionStore, MockWalletRepository, Relayed,
    RelayedAuthorization,
};
use crate::rules::eip191;
use crate::rules::eip3009::TransferAuthorization;
use crate::services::{ChainContracts, ChainDirectory, SettleDeps};

const PAYER_KEY: [u8; 32] = [0x21; 32];
const CHAIN: ChainId = ChainId::BaseSepolia;
const NOW: i64 = 1_800_000_000;
const GROSS: u64 = 12_500_000;

fn addr(n: u8) -> Address {
    Address::from_bytes([n; 20])
}

fn payer() -> Address {
    eip191::address_of_private_key(&PAYER_KEY).unwrap()
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
        amount: Amount::from_micros(GROSS).unwrap(),
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
        deposit_address: Some(addr(0xde)),
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

fn nothing_arriving() -> MockDepositStore {
    let mut deposits = MockDepositStore::new();
    deposits
        .expect_deposit_transfers()
        .returning(|_| Ok(vec![]));
    deposits
}

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
    relayer: MockPaymentRelayer,
    session: CheckoutSession,
}

impl World {
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
                verified_mode: Some(Mode::Test),
                revoked_at: None,
                created_at: Timestamp::from_unix_seconds(NOW).unwrap(),
            }])
        });
        let mut chain = MockChainReader::new();
        chain
            .expect_authorization_domain()
            .returning(|_, _| Ok(Some(domain())));
        // The fast booking path finds no receipt: the watcher books it (not under test).
        chain.expect_receipt().returning(|_, _| Ok(None));
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .return_const(Timestamp::from_unix_seconds(NOW).unwrap());
        Self {
            sessions,
            wallets,
            chain,
            store: MockSettlementStore::new(),
            deposits: nothing_arriving(),
            subscriptions: MockSubscriptionStore::new(),
            clock,
            tokens: Default::default(),
            chains: ChainDirectory::new(vec![ChainContracts {
                chain: CHAIN,
                checkout_router: addr(0x10),
                treasury: addr(0x11),
                subscription_manager: None,
                deposit_factory: Some(addr(0x14)),
                confirmations: 2,
            }]),
            relayer: MockPaymentRelayer::new(),
            session: s,
        }
    }

    /// Nothing relayed yet; the payer holds 50 USDC; the relayer is ready; it simulates.
    fn checks_pass(&mut self) {
        self.relayer
            .expect_relayed_authorization()
            .returning(|_| Ok(None));
        self.chain
            .expect_token_balance()
            .returning(|_, _, _| Ok(50_000_000));
        self.relayer.expect_ready().returning(|_| Ok(true));
        self.relayer
            .expect_simulate_transfer()
            .returning(|_, _| Ok(RelaySimulation::Succeeds));
    }

    /// A payment of `value` to `to`, signed by `key`, as the SDK sends it.
    fn payment(&self, key: &[u8; 32], value: u64, nonce: u8) -> PaymentPayload {
        let requirements = x402::requirements(
            &self.session,
            &domain(),
            Timestamp::from_unix_seconds(NOW).unwrap(),
        )
        .unwrap();
        let authorization = TransferAuthorization {
            from: payer(),
            to: addr(0xde),
            value: value.into(),
            valid_after: 0,
            valid_before: (NOW + 600) as u64,
            nonce: [nonce; 32],
        };
        let signature = eip191::sign_hash(&authorization.digest(&domain()), key).unwrap();
        PaymentPayload::exact(requirements, &authorization, &signature)
    }

    fn pay(&self, payment: &PaymentPayload) -> Result<X402Paid, X402Error> {
        let deps = X402Deps {
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
                operator_key: None,
                intent_ttl_secs: 900,
            },
            relayer: Some(&self.relayer),
            inclusion_wait: Duration::from_secs(5),
        };
        block_on(pay_by_x402(self.session.id, payment, &deps))
    }
}

fn reason(result: Result<X402Paid, X402Error>) -> &'static str {
    match result {
        Err(X402Error::Refused(r)) => r.reason,
        other => panic!("not a refusal: {other:?}"),
    }
}

#[test]
fn a_valid_payment_is_relayed_once_and_answered_when_mined() {
    let mut w = World::new();
    w.checks_pass();
    let tx = TxHash::from_bytes([0x77; 32]);
    w.relayer
        .expect_relay_transfer()
        .times(1)
        .withf(|_, _, t| t.authorization.value == u128::from(GROSS) && t.token == addr(0x12))
        .returning(move |_, _, _| Ok(Relayed::Submitted(tx)));
    w.relayer
        .expect_await_inclusion()
        .times(1)
        .returning(move |_, _, _| Ok(Inclusion::Mined(tx)));
    let paid = w.pay(&w.payment(&PAYER_KEY, GROSS, 1)).unwrap();
    assert_eq!((paid.tx, paid.payer), (tx, payer()));
}

#[test]
fn wrong_amounts_and_signers_send_nothing() {
    for (key, value, why) in [
        (
            PAYER_KEY,
            GROSS - 1,
            "invalid_exact_evm_payload_authorization_value_mismatch",
        ),
        (
            PAYER_KEY,
            GROSS + 1,
            "invalid_exact_evm_payload_authorization_value_mismatch",
        ),
        ([0x42; 32], GROSS, "invalid_exact_evm_payload_signature"),
    ] {
        let mut w = World::new();
        w.checks_pass();
        w.chain.expect_is_contract().returning(|_, _| Ok(false));
        w.relayer.expect_relay_transfer().never();
        assert_eq!(reason(w.pay(&w.payment(&key, value, 1))), why);
    }
}

#[test]
fn an_unfunded_payer_or_a_used_nonce_sends_nothing() {
    let mut w = World::new();
    w.relayer
        .expect_relayed_authorization()
        .returning(|_| Ok(None));
    w.chain.expect_token_balance().returning(|_, _, _| Ok(0));
    w.relayer.expect_relay_transfer().never();
    assert_eq!(
        reason(w.pay(&w.payment(&PAYER_KEY, GROSS, 1))),
        "invalid_exact_evm_insufficient_balance"
    );

    let mut w = World::new();
    w.relayer
        .expect_relayed_authorization()
        .returning(|_| Ok(None));
    w.chain
        .expect_token_balance()
        .returning(|_, _, _| Ok(50_000_000));
    w.relayer.expect_ready().returning(|_| Ok(true));
    w.relayer.expect_simulate_transfer().returning(|_, _| {
        Ok(RelaySimulation::Reverts(
            "FiatTokenV2: authorization is used or canceled".into(),
        ))
    });
    w.relayer.expect_relay_transfer().never();
    assert_eq!(
        reason(w.pay(&w.payment(&PAYER_KEY, GROSS, 1))),
        "invalid_exact_evm_nonce_already_used"
    );
}

#[test]
fn a_retried_signature_waits_for_the_relayed_transfer_and_another_is_refused() {
    let tx = TxHash::from_bytes([0x55; 32]);
    let relayed = RelayedAuthorization {
        tx,
        payer: Some(payer()),
        nonce: Some([1; 32]),
    };
    let mut w = World::new();
    w.relayer
        .expect_relayed_authorization()
        .returning(move |_| Ok(Some(relayed)));
    w.relayer.expect_relay_transfer().never();
    w.relayer.expect_simulate_transfer().never();
    w.relayer
        .expect_await_inclusion()
        .times(1)
        .returning(move |_, _, _| Ok(Inclusion::Mined(tx)));
    assert_eq!(w.pay(&w.payment(&PAYER_KEY, GROSS, 1)).unwrap().tx, tx);
    // Another authorization (another nonce) for the same session: nothing is sent.
    assert_eq!(
        reason(w.pay(&w.payment(&PAYER_KEY, GROSS, 2))),
        "settlement_in_progress"
    );
}

#[test]
fn a_relay_raced_by_another_authorization_is_not_claimed() {
    let mut w = World::new();
    w.chain
        .expect_token_balance()
        .returning(|_, _, _| Ok(50_000_000));
    w.relayer.expect_ready().returning(|_| Ok(true));
    w.relayer
        .expect_simulate_transfer()
        .returning(|_, _| Ok(RelaySimulation::Succeeds));
    let theirs = RelayedAuthorization {
        tx: TxHash::from_bytes([0x66; 32]),
        payer: Some(addr(0x99)),
        nonce: Some([9; 32]),
    };
    let mut seq = mockall::Sequence::new();
    w.relayer
        .expect_relayed_authorization()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_| Ok(None));
    w.relayer
        .expect_relayed_authorization()
        .times(1)
        .in_sequence(&mut seq)
        .returning(move |_| Ok(Some(theirs)));
    w.relayer
        .expect_relay_transfer()
        .returning(move |_, _, _| Ok(Relayed::AlreadySubmitted(theirs.tx)));
    w.relayer.expect_await_inclusion().never();
    assert_eq!(
        reason(w.pay(&w.payment(&PAYER_KEY, GROSS, 1))),
        "settlement_in_progress"
    );
}

#[test]
fn a_completed_session_is_not_offered_and_never_charged() {
    let mut w = World::new();
    let done = CheckoutSession {
        status: SessionStatus::Completed,
        ..w.session.clone()
    };
    w.sessions = MockSessionRepository::new();
    w.sessions
        .expect_get_public()
        .returning(move |_| Ok(Some(done.clone())));
    w.relayer
        .expect_relayed_authorization()
        .returning(|_| Ok(None));
    w.relayer.expect_relay_transfer().never();
    assert_eq!(
        reason(w.pay(&w.payment(&PAYER_KEY, GROSS, 1))),
        "session_not_open"
    );
}

#[test]
fn money_on_its_way_to_the_deposit_address_stops_x402() {
    let mut w = World::new();
    let s = w.session.clone();
    w.deposits = MockDepositStore::new();
    w.deposits.expect_deposit_transfers().returning(move |_| {
        Ok(vec![crate::ports::DepositTransfer {
            chain: CHAIN,
            tx_hash: TxHash::from_bytes([3; 32]),
            session: s.id,
            token: s.token_address,
            from: addr(0x44),
            amount_micros: GROSS,
            log_index: 0,
            block_number: 7,
            block_hash: crate::model::BlockHash::from_bytes([4; 32]),
            confirmed: false,
            payment: None,
            arrived_at: s.created_at,
            swept_by: None,
        }])
    });
    w.relayer
        .expect_relayed_authorization()
        .returning(|_| Ok(None));
    w.relayer.expect_relay_transfer().never();
    assert_eq!(
        reason(w.pay(&w.payment(&PAYER_KEY, GROSS, 1))),
        "session_being_paid"
    );
}
