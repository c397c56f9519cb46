//! `submit_authorization` with mocked ports: the checks run in order, each failure stops
//! before anything costs gas, and a relayed session answers with its transaction.

use std::ops::{Deref, DerefMut};

use futures_executor::block_on;

use super::*;
use crate::model::{Mode, PrivateKey, TxHash};
use crate::rules::eip191;
use crate::rules::eip712::{self, Domain};
use crate::services::fixtures::hosted::{
    addr, domain, open_session, HostedWorld, CHAIN, NOW, PAYER_KEY,
};

const OPERATOR: [u8; 32] = [0x07; 32];

/// The world one submission sees (a session without a deposit address, its recipient
/// verified in live mode, nothing relayed yet); each test narrows what the chain and
/// relayer answer.
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
        let mut world = HostedWorld::new(open_session(None), Mode::Live, None);
        world.relayer.expect_relayed().returning(|_| Ok(None));
        Self(world)
    }

    /// Every check before the relay passes: the payer holds 50 USDC, the relayer is above
    /// its floor and the simulation succeeds.
    fn checks_pass(&mut self) {
        self.chain
            .expect_token_balance()
            .returning(|_, _, _| Ok(50_000_000));
        self.relayer
            .expect_readiness()
            .returning(|_| Ok(RelayerReadiness::Ready));
        self.relayer
            .expect_simulate()
            .returning(|_, _| Ok(RelaySimulation::Succeeds));
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
        let key = PrivateKey::from_bytes(OPERATOR);
        let deps = AuthorizationDeps {
            hosted: self.hosted_deps(Some(&key)),
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
    w.relayer
        .expect_readiness()
        .returning(|_| Ok(RelayerReadiness::Unavailable));
    w.relayer.expect_relay().never();
    assert!(matches!(
        w.submit(&PAYER_KEY).unwrap_err(),
        AuthorizationError::RelayerUnavailable
    ));

    let mut w = World::new();
    w.chain
        .expect_token_balance()
        .returning(|_, _, _| Ok(50_000_000));
    w.relayer
        .expect_readiness()
        .returning(|_| Ok(RelayerReadiness::Ready));
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
        .withf(move |chain, _, p, balance| {
            *chain == CHAIN
                && *balance == 50_000_000
                && p.payer == payer
                && p.router == addr(0x10)
                && p.intent.net_amount == 12_375_000
                && p.intent.fee_amount == 125_000
                && p.intent.deadline == p.valid_before
                && signer_over(p, p.intent.payer_struct_hash(&payer)) == Some(operator)
                && signer_over(p, p.intent.struct_hash()) != Some(operator)
        })
        .times(1)
        .returning(|_, _, _, _| Ok(Relayed::Submitted(TxHash::from_bytes([9; 32]))));
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
    let key = PrivateKey::from_bytes(OPERATOR);
    let deps = AuthorizationDeps {
        hosted: w.hosted_deps(Some(&key)),
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
fn a_payer_the_relayer_refuses_is_told_why_and_a_send_time_revert_is_a_rejection() {
    let until = crate::model::Timestamp::from_unix_seconds(1_800_003_600).unwrap();
    let refusals = [
        RelayError::PayerRefused(crate::ports::PayerRefusal::CoolingDown {
            payer: addr(0x44),
            until,
        }),
        RelayError::PayerRefused(crate::ports::PayerRefusal::Overcommitted {
            payer: addr(0x44),
            promised: 12_500_000,
            balance: 12_500_000,
        }),
    ];
    for refusal in refusals {
        let mut w = World::new();
        w.checks_pass();
        let r = refusal.clone();
        w.relayer
            .expect_relay()
            .times(1)
            .returning(move |_, _, _, _| Err(r.clone()));
        let err = w.submit(&PAYER_KEY).unwrap_err();
        assert!(
            matches!(err, AuthorizationError::PayerRefused(_)),
            "{err:?}"
        );
        assert!(err.to_string().contains(&addr(0x44).to_string()), "{err}");
    }
    // The exact simulation at send time reverted: nothing was sent, the buyer is told.
    let mut w = World::new();
    w.checks_pass();
    w.relayer
        .expect_relay()
        .times(1)
        .returning(|_, _, _, _| Err(RelayError::WouldRevert("out of gas".into())));
    assert!(matches!(
        w.submit(&PAYER_KEY).unwrap_err(),
        AuthorizationError::Rejected(why) if why == "out of gas"
    ));
}
