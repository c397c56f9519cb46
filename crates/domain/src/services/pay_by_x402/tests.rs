//! `pay_by_x402` with mocked ports: a valid payment is relayed once and waited for; every
//! refusal sends nothing; a retried signature gets the relayed transaction back.

use std::ops::{Deref, DerefMut};

use futures_executor::block_on;

use super::*;
use crate::model::{Mode, SessionStatus, Timestamp};
use crate::ports::{MockDepositStore, MockSessionRepository, Relayed, RelayedAuthorization};
use crate::rules::eip191;
use crate::rules::eip3009::TransferAuthorization;
use crate::services::fixtures::hosted::{
    addr, domain, open_session, HostedWorld, CHAIN, GROSS, NOW, PAYER_KEY,
};

fn payer() -> Address {
    eip191::address_of_private_key(&PAYER_KEY).unwrap()
}

fn nothing_arriving() -> MockDepositStore {
    let mut deposits = MockDepositStore::new();
    deposits
        .expect_deposit_transfers()
        .returning(|_| Ok(vec![]));
    deposits
}

/// The world one x402 payment sees (a session paid at its deposit address `addr(0xde)`,
/// its recipient verified in test mode, nothing arriving there yet).
struct World(HostedWorld);

impl Deref for World {
    type Target = HostedWorld;
    fn deref(&self) -> &HostedWorld {
        &self.0
    }
}

impl DerefMut for World {
    fn deref_mut(&mut self) -> &mut HostedWorld {
        &mut self.0
    }
}

impl World {
    fn new() -> Self {
        let mut world =
            HostedWorld::new(open_session(Some(addr(0xde))), Mode::Test, Some(addr(0x14)));
        world.deposits = nothing_arriving();
        // The fast booking path finds no receipt: the watcher books it (not under test).
        world.chain.expect_receipt().returning(|_, _| Ok(None));
        Self(world)
    }

    /// Nothing relayed yet; the payer holds 50 USDC; the relayer is ready; it simulates.
    fn checks_pass(&mut self) {
        self.relayer
            .expect_relayed_authorization()
            .returning(|_| Ok(None));
        self.chain
            .expect_token_balance()
            .returning(|_, _, _| Ok(50_000_000));
        self.relayer
            .expect_readiness()
            .returning(|_| Ok(RelayerReadiness::Ready));
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
            hosted: self.hosted_deps(None),
            relayer: Some(&self.relayer),
            inclusion_wait: Duration::from_secs(5),
        };
        block_on(pay_by_x402(
            self.session.id,
            payment,
            crate::model::ScreeningPath::X402,
            &deps,
        ))
    }
}

/// One transfer of `micros` recorded at the session's deposit address.
fn arriving(s: &CheckoutSession, micros: u64, confirmed: bool) -> MockDepositStore {
    let s = s.clone();
    let mut deposits = MockDepositStore::new();
    deposits.expect_deposit_transfers().returning(move |_| {
        Ok(vec![crate::ports::DepositTransfer {
            chain: CHAIN,
            tx_hash: TxHash::from_bytes([3; 32]),
            session: s.id,
            token: s.token_address,
            from: addr(0x44),
            amount_micros: micros,
            log_index: 0,
            block_number: 7,
            block_hash: crate::model::BlockHash::from_bytes([4; 32]),
            confirmed,
            payment: None,
            arrived_at: s.created_at,
            swept_by: None,
        }])
    });
    deposits
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
        .withf(|_, _, t, _| t.authorization.value == u128::from(GROSS) && t.token == addr(0x12))
        .returning(move |_, _, _, _| Ok(Relayed::Submitted(tx)));
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
    w.relayer
        .expect_readiness()
        .returning(|_| Ok(RelayerReadiness::Ready));
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
    let mut w = World::new();
    let relayed = RelayedAuthorization {
        tx,
        payer: Some(payer()),
        nonce: Some([1; 32]),
        terms: x402::payload_terms(&w.payment(&PAYER_KEY, GROSS, 1)),
    };
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
    // A forged copy: the relayed payment's `from` and nonce, another value and a junk
    // signature. It is not the relayed payment, so it is not answered as settled.
    let mut forged = w.payment(&PAYER_KEY, GROSS, 1);
    forged.payload.authorization.value = "1".into();
    forged.payload.signature = format!("0x{}", "11".repeat(65));
    assert_eq!(reason(w.pay(&forged)), "settlement_in_progress");
    // Each signed field (and the signature) alone makes it another payment.
    let original = w.payment(&PAYER_KEY, GROSS, 1);
    let edits: [fn(&mut PaymentPayload); 5] = [
        |p| p.payload.authorization.value = "1".into(),
        |p| p.payload.authorization.valid_after = "1".into(),
        |p| p.payload.authorization.valid_before = "1".into(),
        |p| p.payload.authorization.to = format!("0x{}", "ab".repeat(20)),
        |p| p.payload.signature = format!("0x{}", "11".repeat(65)),
    ];
    for edit in edits {
        let mut copy = original.clone();
        edit(&mut copy);
        assert_ne!(
            x402::payload_terms(&copy),
            x402::payload_terms(&original),
            "{copy:?}"
        );
    }
}

#[test]
fn a_short_deposit_leaves_x402_offered() {
    let mut w = World::new();
    w.deposits = arriving(&w.session, 1, true);
    w.checks_pass();
    let tx = TxHash::from_bytes([0x77; 32]);
    w.relayer
        .expect_relay_transfer()
        .times(1)
        .returning(move |_, _, _, _| Ok(Relayed::Submitted(tx)));
    w.relayer
        .expect_await_inclusion()
        .returning(move |_, _, _| Ok(Inclusion::Mined(tx)));
    assert_eq!(w.pay(&w.payment(&PAYER_KEY, GROSS, 1)).unwrap().tx, tx);
}

#[test]
fn a_relay_raced_by_another_authorization_is_not_claimed() {
    let mut w = World::new();
    w.chain
        .expect_token_balance()
        .returning(|_, _, _| Ok(50_000_000));
    w.relayer
        .expect_readiness()
        .returning(|_| Ok(RelayerReadiness::Ready));
    w.relayer
        .expect_simulate_transfer()
        .returning(|_, _| Ok(RelaySimulation::Succeeds));
    let theirs = RelayedAuthorization {
        tx: TxHash::from_bytes([0x66; 32]),
        payer: Some(addr(0x99)),
        nonce: Some([9; 32]),
        terms: Some([9; 32]),
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
        .returning(move |_, _, _, _| Ok(Relayed::AlreadySubmitted(theirs.tx)));
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
    w.deposits = arriving(&w.session, GROSS, false);
    w.relayer
        .expect_relayed_authorization()
        .returning(|_| Ok(None));
    w.relayer.expect_relay_transfer().never();
    assert_eq!(
        reason(w.pay(&w.payment(&PAYER_KEY, GROSS, 1))),
        "session_being_paid"
    );
}

#[test]
fn a_listed_or_unscreenable_payer_has_nothing_sent() {
    use crate::model::ScreeningAnswer;
    for (answer, why) in [
        (
            crate::services::fixtures::screening::listed(),
            "payer_sanctioned",
        ),
        (ScreeningAnswer::Unknown, "payer_screening_unavailable"),
    ] {
        let mut w = World::new();
        w.checks_pass();
        w.screening = crate::services::fixtures::screening::screening_answering(answer.clone());
        let expected = answer.clone();
        w.screening_log
            .expect_record_checks()
            .times(1)
            .withf(move |checks| {
                checks.len() == 1
                    && checks[0].answer == expected
                    && checks[0].path == ScreeningPath::X402
                    && checks[0].payer.address == payer()
            })
            .returning(|_| Ok(()));
        w.relayer.expect_relay_transfer().never();
        assert_eq!(reason(w.pay(&w.payment(&PAYER_KEY, GROSS, 1))), why);
    }
}

#[test]
fn a_clear_payer_is_screened_and_paid_and_an_unscreened_mode_is_not_asked() {
    let mut w = World::new();
    w.checks_pass();
    w.screening = crate::services::fixtures::screening::screening_answering(
        crate::model::ScreeningAnswer::Clear,
    );
    w.screening_log
        .expect_record_checks()
        .times(1)
        .returning(|_| Ok(()));
    let tx = TxHash::from_bytes([9; 32]);
    w.relayer
        .expect_relay_transfer()
        .times(1)
        .returning(move |_, _, _, _| Ok(Relayed::Submitted(tx)));
    w.relayer
        .expect_await_inclusion()
        .returning(move |_, _, _| Ok(Inclusion::Mined(tx)));
    assert_eq!(w.pay(&w.payment(&PAYER_KEY, GROSS, 1)).unwrap().tx, tx);

    // Live mode only: the test-mode session's payer is not asked about (no check stored).
    let mut w = World::new();
    w.checks_pass();
    let mut never = crate::ports::MockSanctionsSource::new();
    never.expect_covers().return_const(true);
    never.expect_check().never();
    w.screening = crate::services::PayerScreening::new(
        vec![std::sync::Arc::new(never)],
        crate::rules::screening::ScreenedModes::LIVE,
    );
    w.screening_log.expect_record_checks().never();
    w.relayer
        .expect_relay_transfer()
        .times(1)
        .returning(move |_, _, _, _| Ok(Relayed::Submitted(tx)));
    w.relayer
        .expect_await_inclusion()
        .returning(move |_, _, _| Ok(Inclusion::Mined(tx)));
    assert!(w.pay(&w.payment(&PAYER_KEY, GROSS, 1)).is_ok());
}
