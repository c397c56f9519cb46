//! `screen_payer` with mocked sources and log: every configured source that covers the
//! chain is asked and its answer stored; the decision follows the table.

use std::sync::Arc;

use futures_executor::block_on;

use super::*;
use crate::model::{CheckoutSessionId, MerchantId, Mode, ScreeningSource, Timestamp};
use crate::ports::{MockClock, MockSanctionsSource, MockScreeningLog};
use crate::rules::screening::ScreenedModes;

fn payer(mode: Mode) -> ScreenedPayer {
    ScreenedPayer {
        merchant_id: MerchantId::generate(),
        mode,
        chain: mode.chain(),
        address: Address::from_bytes([0x5a; 20]),
        subject: crate::model::ScreeningSubject::Session(CheckoutSessionId::generate()),
    }
}

fn source(name: &str, covers: bool, answer: Option<ScreeningAnswer>) -> Arc<dyn SanctionsSource> {
    let mut s = MockSanctionsSource::new();
    s.expect_covers().return_const(covers);
    let name = name.to_owned();
    match answer {
        Some(answer) => {
            s.expect_check()
                .times(1)
                .returning(move |_, _| SourceAnswer {
                    source: ScreeningSource {
                        name: name.clone(),
                        version: Some(3),
                    },
                    answer: answer.clone(),
                });
        }
        None => {
            s.expect_check().never();
        }
    }
    Arc::new(s)
}

fn clock() -> MockClock {
    let mut clock = MockClock::new();
    clock
        .expect_now()
        .return_const(Timestamp::from_unix_seconds(1_800_000_000).unwrap());
    clock
}

/// `screen_payer` on the one-signature path for a payer of `mode`.
fn one_signature(
    screening: &PayerScreening,
    log: &MockScreeningLog,
    clock: &MockClock,
    mode: Mode,
) -> Result<ScreeningDecision, StoreError> {
    let deps = ScreeningDeps {
        screening,
        log,
        clock,
    };
    block_on(screen_payer(
        payer(mode),
        ScreeningPath::OneSignature,
        &deps,
    ))
}

fn listed() -> ScreeningAnswer {
    ScreeningAnswer::Listed {
        list: "ofac_sdn".into(),
        entry: Some("SDN 12345".into()),
    }
}

#[test]
fn every_covering_source_is_asked_and_every_answer_stored() {
    let screening = PayerScreening::new(
        vec![
            source("oracle", true, Some(ScreeningAnswer::Clear)),
            source("ofac_sdn", true, Some(listed())),
            source("other_chain_oracle", false, None),
        ],
        ScreenedModes::LIVE,
    );
    let mut log = MockScreeningLog::new();
    log.expect_record_checks()
        .times(1)
        .withf(|checks| {
            checks.len() == 2
                && checks[0].answer == ScreeningAnswer::Clear
                && checks[1].answer == listed()
                && checks[1].source.version == Some(3)
                && checks.iter().all(|c| {
                    c.path == ScreeningPath::Deposit && c.checked_at.unix_seconds() == 1_800_000_000
                })
        })
        .returning(|_| Ok(()));
    let clock = clock();
    let deps = ScreeningDeps {
        screening: &screening,
        log: &log,
        clock: &clock,
    };
    let decision = block_on(screen_payer(
        payer(Mode::Live),
        ScreeningPath::Deposit,
        &deps,
    ));
    assert_eq!(decision, Ok(ScreeningDecision::Hold(listed())));
}

#[test]
fn an_unscreened_mode_or_no_source_proceeds_with_nothing_stored() {
    let mut log = MockScreeningLog::new();
    log.expect_record_checks().never();
    let clock = clock();
    for (screening, mode) in [
        (
            PayerScreening::new(vec![source("oracle", true, None)], ScreenedModes::LIVE),
            Mode::Test,
        ),
        (PayerScreening::none(), Mode::Live),
        (
            PayerScreening::new(vec![source("oracle", false, None)], ScreenedModes::LIVE),
            Mode::Live,
        ),
    ] {
        assert_eq!(
            one_signature(&screening, &log, &clock, mode),
            Ok(ScreeningDecision::Proceed)
        );
    }
}

#[test]
fn before_sending_a_listed_or_unknown_payer_is_blocked_and_a_lost_proof_is_an_error() {
    let clock = clock();
    for (answer, expected) in [
        (ScreeningAnswer::Clear, Ok(())),
        (
            listed(),
            Err(PayerBlocked::Listed(
                Address::from_bytes([0x5a; 20]),
                "ofac_sdn".into(),
            )),
        ),
        (
            ScreeningAnswer::Unknown,
            Err(PayerBlocked::Unscreened(Address::from_bytes([0x5a; 20]))),
        ),
    ] {
        let screening = PayerScreening::new(
            vec![source("oracle", true, Some(answer))],
            ScreenedModes::LIVE,
        );
        let mut log = MockScreeningLog::new();
        log.expect_record_checks().times(1).returning(|_| Ok(()));
        let deps = ScreeningDeps {
            screening: &screening,
            log: &log,
            clock: &clock,
        };
        let got = block_on(screen_before_sending(
            payer(Mode::Live),
            ScreeningPath::X402,
            &deps,
        ));
        assert_eq!(got, Ok(expected));
    }
    // The check could not be stored: no decision at all (the caller answers 503).
    let screening = PayerScreening::new(
        vec![source("oracle", true, Some(ScreeningAnswer::Clear))],
        ScreenedModes::LIVE,
    );
    let mut log = MockScreeningLog::new();
    log.expect_record_checks()
        .returning(|_| Err(StoreError::Unavailable("down".into())));
    let deps = ScreeningDeps {
        screening: &screening,
        log: &log,
        clock: &clock,
    };
    assert!(block_on(screen_before_sending(
        payer(Mode::Live),
        ScreeningPath::OneSignature,
        &deps
    ))
    .is_err());
}

#[test]
fn a_merchant_s_choice_counts_only_in_modes_the_operator_does_not_require() {
    use crate::rules::screening::MerchantScreening;
    let clock = clock();
    // Test mode on by default, live required; each case: (mode, the merchant's choice,
    // whether it is read, whether the payer is screened).
    for (mode, choice, read, screened) in [
        (Mode::Test, Some(false), true, false),
        (Mode::Test, None, true, true),
        (Mode::Live, Some(false), false, true),
    ] {
        let screening = PayerScreening::new(
            vec![source(
                "oracle",
                true,
                screened.then_some(ScreeningAnswer::Clear),
            )],
            ScreenedModes::parse("test,live").unwrap(),
        )
        .with_merchant_choice(ScreenedModes::LIVE);
        let mut log = MockScreeningLog::new();
        log.expect_merchant_screening()
            .times(usize::from(read))
            .returning(move |_| {
                Ok(MerchantScreening {
                    test: choice,
                    live: choice,
                })
            });
        log.expect_record_checks()
            .times(usize::from(screened))
            .returning(|_| Ok(()));
        assert_eq!(
            one_signature(&screening, &log, &clock, mode),
            Ok(ScreeningDecision::Proceed),
            "{mode:?} {choice:?}"
        );
    }
}
