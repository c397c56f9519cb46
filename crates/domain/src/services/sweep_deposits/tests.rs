//! Sweeping deposits, on mocked ports.

use futures_executor::block_on;

use super::*;
use crate::model::CheckoutSession;
use crate::ports::{
    ChainError, ChargeAttempt, MinedSweep, MockChainReader, MockDepositSweeps, Resent, WorkKind,
};
use crate::services::fixtures::sending::{gas, tx, work, Ports, CHAIN, NONCE, SENT_BLOCK};
use crate::services::fixtures::settlement;

const DEPTH: u64 = 2;

fn factory() -> Address {
    Address::from_bytes([0xfa; 20])
}

fn target() -> SweepTarget {
    SweepTarget {
        chain: CHAIN,
        factory: factory(),
        depth: DEPTH,
        batch: 50,
    }
}

/// A session with deposit money at its address of `factory`.
fn deposited(factory: Address) -> CheckoutSession {
    let mut s = settlement::session();
    s.deposit_address = Some(DepositTerms::of_session(&s).address(&factory));
    s
}

struct Sweeps {
    sending: Ports,
    sweeps: MockDepositSweeps,
    chain: MockChainReader,
}

impl Sweeps {
    /// `sent` sweeps in flight, the chain at `head`.
    fn new(sent: Vec<SentWork>, head: u64) -> Self {
        let mut s = Self {
            sending: Ports::new(),
            sweeps: MockDepositSweeps::new(),
            chain: MockChainReader::new(),
        };
        s.sweeps
            .expect_sent_sweeps()
            .returning(move |_| Ok(sent.clone()));
        s.chain.expect_block_number().returning(move |_| Ok(head));
        s
    }

    fn tick(&self) -> Result<SweepReport, SendError> {
        let deps = SweepDeps {
            sending: self.sending.deps(),
            sweeps: &self.sweeps,
            chain: &self.chain,
        };
        block_on(sweep_deposits(target(), &deps))
    }

    fn mined(&mut self, mined: Option<MinedSweep>) {
        self.sending
            .receipts
            .expect_mined_sweep()
            .return_const(Ok(mined));
    }

    fn due(&mut self, sessions: Vec<CheckoutSession>) {
        self.sweeps
            .expect_unswept_deposits()
            .returning(move |_, _, _| {
                Ok(sessions
                    .iter()
                    .map(|s| (s.clone(), s.token_address))
                    .collect())
            });
    }

    fn nothing_new_is_sent(&mut self) {
        self.sweeps.expect_unswept_deposits().never();
        self.sending.sender.expect_send_sweep().never();
    }
}

fn mined_sweep(succeeded: bool, block: u64, failed: usize) -> MinedSweep {
    MinedSweep {
        attempt: ChargeAttempt {
            tx_hash: tx(2),
            fill: false,
        },
        gas: GasReceipt {
            block_number: block,
            succeeded,
            ..gas()
        },
        failed: (0..failed)
            .map(|i| ([i as u8; 32], settlement::token()))
            .collect(),
    }
}

#[test]
fn a_sweep_at_depth_is_settled_and_the_next_batch_of_this_factory_is_sent() {
    let mut s = Sweeps::new(vec![work(WorkKind::Sweep)], SENT_BLOCK + DEPTH);
    let mined = mined_sweep(true, SENT_BLOCK + 1, 1);
    s.mined(Some(mined.clone()));
    s.sweeps
        .expect_sweep_mined()
        .withf(move |sweep, m, _| sweep.tx_hash == tx(1) && *m == mined)
        .times(1)
        .return_const(Ok(()));
    let (ours, theirs) = (
        deposited(factory()),
        deposited(Address::from_bytes([0x0f; 20])),
    );
    s.due(vec![ours.clone(), theirs.clone()]);
    let id = ours.id;
    s.sending
        .sender
        .expect_send_sweep()
        .withf(move |_, f, entries| {
            *f == factory() && entries.len() == 1 && entries[0].session == id
        })
        .times(1)
        .return_const(Ok(Some(tx(9))));
    let report = s.tick().expect("swept");
    assert_eq!(
        report.settled,
        vec![(
            tx(1),
            SweepSettled::Mined {
                tx: tx(2),
                gas: GasReceipt {
                    block_number: SENT_BLOCK + 1,
                    ..gas()
                },
                failed: 1
            }
        )]
    );
    assert_eq!(report.sent, Some((tx(9), 1)));
    assert_eq!(report.foreign, vec![theirs.id]);
}

#[test]
fn a_sweep_not_yet_deep_enough_stays_in_flight_and_holds_the_next() {
    // Mined in block 101, the head 101: one confirmation of two.
    let mut s = Sweeps::new(vec![work(WorkKind::Sweep)], SENT_BLOCK + DEPTH - 1);
    s.mined(Some(mined_sweep(true, SENT_BLOCK + 1, 0)));
    s.sweeps.expect_sweep_mined().never();
    s.nothing_new_is_sent();
    let report = s.tick().expect("ticked");
    assert_eq!(report.in_flight, 1);
    assert!(report.settled.is_empty());
}

#[test]
fn a_reverted_sweep_at_depth_gives_every_entry_back() {
    let mut s = Sweeps::new(vec![work(WorkKind::Sweep)], SENT_BLOCK + DEPTH);
    s.mined(Some(mined_sweep(false, SENT_BLOCK + 1, 0)));
    s.sweeps.expect_sweep_mined().times(1).return_const(Ok(()));
    s.due(vec![]);
    let report = s.tick().expect("ticked");
    assert!(matches!(
        report.settled[..],
        [(_, SweepSettled::Mined { failed: 1, gas, .. })] if !gas.succeeded
    ));
    assert_eq!(report.sent, None);
}

#[test]
fn a_stuck_sweep_is_always_replaced_never_filled() {
    let mut s = Sweeps::new(vec![work(WorkKind::Sweep)], SENT_BLOCK + 3);
    s.mined(None);
    s.sending.mined_nonce(NONCE);
    s.sending
        .sender
        .expect_resend()
        .withf(|_, _, _, wanted| *wanted)
        .times(1)
        .return_const(Ok(Resent::Replaced(tx(3))));
    s.nothing_new_is_sent();
    let report = s.tick().expect("ticked");
    assert_eq!(report.in_flight, 1);
}

#[test]
fn a_sweep_whose_nonce_went_elsewhere_is_dropped_and_the_next_is_sent() {
    let mut s = Sweeps::new(vec![work(WorkKind::Sweep)], SENT_BLOCK + 3);
    s.mined(None);
    s.sending.mined_nonce(NONCE + 1);
    s.sending
        .attempts
        .expect_attempts_at()
        .return_const(Ok(vec![]));
    s.sending
        .receipts
        .expect_mined_attempt()
        .return_const(Ok(None));
    s.sweeps
        .expect_sweep_dropped()
        .times(1)
        .return_const(Ok(()));
    s.due(vec![deposited(factory())]);
    s.sending
        .sender
        .expect_send_sweep()
        .times(1)
        .return_const(Ok(Some(tx(9))));
    let report = s.tick().expect("ticked");
    assert_eq!(report.settled, vec![(tx(1), SweepSettled::Dropped)]);
    assert_eq!(report.sent, Some((tx(9), 1)));
}

#[test]
fn an_unknown_receipt_counts_in_flight_and_sends_nothing() {
    let mut s = Sweeps::new(vec![work(WorkKind::Sweep)], SENT_BLOCK + 3);
    s.sending
        .receipts
        .expect_mined_sweep()
        .return_const(Err(ChainError::Unavailable("timed out".into())));
    s.sweeps.expect_sweep_mined().never();
    s.sweeps.expect_sweep_dropped().never();
    s.nothing_new_is_sent();
    let report = s.tick().expect("ticked");
    assert_eq!((report.in_flight, report.errors.len()), (1, 1));
}

#[test]
fn only_other_factories_deposits_due_sends_nothing() {
    let mut s = Sweeps::new(vec![], SENT_BLOCK);
    s.due(vec![deposited(Address::from_bytes([0x0f; 20]))]);
    s.sending.sender.expect_send_sweep().never();
    let report = s.tick().expect("ticked");
    assert_eq!((report.sent, report.foreign.len()), (None, 1));
}

#[test]
fn a_new_sweep_that_cannot_be_sent_keeps_what_was_settled() {
    let mut s = Sweeps::new(vec![work(WorkKind::Sweep)], SENT_BLOCK + DEPTH);
    s.mined(Some(mined_sweep(true, SENT_BLOCK + 1, 0)));
    s.sweeps.expect_sweep_mined().times(1).return_const(Ok(()));
    s.due(vec![deposited(factory())]);
    s.sending
        .sender
        .expect_send_sweep()
        .return_const(Err(SendError::Chain(ChainError::Unavailable(
            "eth_feeHistory: timed out".into(),
        ))));
    let report = s.tick().expect("the settled sweep is reported");
    assert_eq!(report.settled.len(), 1);
    assert!(matches!(report.send_error, Some(SendError::Chain(_))));
}
