//! The one rule for unmined sent work, on mocked ports.

use futures_executor::block_on;

use super::*;
use crate::ports::{MinedAttempt, WorkKind};
use crate::services::fixtures::sending::{gas, tx, work, Ports, NONCE, SENT_BLOCK};
use crate::services::fixtures::settlement::now;

async fn wanted(yes: bool) -> Result<bool, SendError> {
    Ok(yes)
}

/// Whether the work is wanted, in a test where that must not be asked.
async fn unasked(why: &'static str) -> Result<bool, SendError> {
    Err(SendError::Signing(format!("asked although {why}")))
}

#[test]
fn work_not_yet_due_waits_and_nothing_is_asked_or_sent() {
    let mut p = Ports::new();
    p.receipts.expect_mined_nonce().never();
    p.sender.expect_resend().never();
    let followed = block_on(follow_unmined(
        &work(WorkKind::Relay),
        SENT_BLOCK + 2,
        unasked("not due"),
        p.deps(),
    ));
    assert_eq!(followed, Ok(Unmined::Waiting));
}

#[test]
fn due_work_still_wanted_is_replaced_and_unwanted_work_is_filled() {
    for (yes, outcome) in [
        (true, Resent::Replaced(tx(2))),
        (false, Resent::Filled(tx(3))),
    ] {
        let mut p = Ports::new();
        p.mined_nonce(NONCE);
        p.sender
            .expect_resend()
            .withf(move |_, _, newest, wanted| *newest == tx(1) && *wanted == yes)
            .times(1)
            .return_const(Ok(outcome));
        let followed = block_on(follow_unmined(
            &work(WorkKind::Charge),
            SENT_BLOCK + 3,
            wanted(yes),
            p.deps(),
        ));
        assert_eq!(followed, Ok(Unmined::Resent(outcome)));
    }
}

#[test]
fn twelve_seconds_without_a_block_make_work_due() {
    let mut p = Ports::new();
    p.mined_nonce(NONCE);
    p.sender
        .expect_resend()
        .times(1)
        .return_const(Ok(Resent::Unchanged));
    let mut old = work(WorkKind::Sweep);
    old.last_broadcast_at = now().plus_seconds(-12);
    let followed = block_on(follow_unmined(&old, SENT_BLOCK, wanted(true), p.deps()));
    assert_eq!(followed, Ok(Unmined::Resent(Resent::Unchanged)));
}

#[test]
fn a_nonce_mined_past_with_no_attempt_mined_is_lost_and_nothing_is_sent() {
    let mut p = Ports::new();
    p.mined_nonce(NONCE + 1);
    p.attempts
        .expect_attempts_at()
        .withf(|_, _, nonce| *nonce == NONCE)
        .return_const(Ok(vec![]));
    p.receipts
        .expect_mined_attempt()
        .withf(|_, attempts| attempts.len() == 1 && attempts[0].tx_hash == tx(1))
        .return_const(Ok(None));
    p.sender.expect_resend().never();
    let followed = block_on(follow_unmined(
        &work(WorkKind::Relay),
        SENT_BLOCK + 3,
        unasked("the nonce was lost"),
        p.deps(),
    ));
    assert_eq!(followed, Ok(Unmined::NonceLost));
}

#[test]
fn a_replacement_stored_by_another_worker_and_mined_keeps_the_work_alive() {
    // The nonce is past, but an attempt this worker did not know of was mined: the work
    // went through and is never written off; it is sent again (and the store finds it
    // replaced) rather than dropped.
    let mut p = Ports::new();
    p.mined_nonce(NONCE + 1);
    p.attempts
        .expect_attempts_at()
        .return_const(Ok(vec![ChargeAttempt {
            tx_hash: tx(9),
            fill: false,
        }]));
    p.receipts
        .expect_mined_attempt()
        .withf(|_, attempts| attempts.iter().any(|a| a.tx_hash == tx(9)))
        .return_const(Ok(Some(MinedAttempt {
            attempt: ChargeAttempt {
                tx_hash: tx(9),
                fill: false,
            },
            gas: gas(),
        })));
    assert_eq!(
        block_on(nonce_lost(&work(WorkKind::Relay), p.deps())),
        Ok(false)
    );
}

#[test]
fn an_unknown_nonce_or_receipt_is_an_error_never_a_verdict() {
    let mut p = Ports::new();
    p.receipts
        .expect_mined_nonce()
        .returning(|_, _| Err(crate::ports::ChainError::Unavailable("timeout".into())));
    p.sender.expect_resend().never();
    let followed = block_on(follow_unmined(
        &work(WorkKind::Relay),
        SENT_BLOCK + 3,
        wanted(true),
        p.deps(),
    ));
    assert!(matches!(followed, Err(SendError::Chain(_))), "{followed:?}");
}

#[test]
fn without_a_key_work_is_only_waited_on() {
    let p = Ports::new();
    let deps = SendingDeps {
        sender: None,
        ..p.deps()
    };
    let followed = block_on(follow_unmined(
        &work(WorkKind::Relay),
        SENT_BLOCK + 30,
        wanted(true),
        deps,
    ));
    assert_eq!(followed, Ok(Unmined::Waiting));
}
