//! Following relayed payments, on mocked ports.

use futures_executor::block_on;

use super::*;
use crate::model::CheckoutSession;
use crate::ports::{
    ChainError, ChargeAttempt, MinedAttempt, MockChainReader, MockDepositStore, MockSentRelays,
    NewestAttempt,
};
use crate::services::fixtures::sending::{gas, tx, work, Ports, CHAIN, NONCE, SENT_BLOCK};
use crate::services::fixtures::settlement::{self, now};

struct Relays {
    sending: Ports,
    relays: MockSentRelays,
    deposits: MockDepositStore,
    chain: MockChainReader,
}

/// A relay of an open session, its one attempt unmined; the head as the node answers it.
fn relays(head: Result<u64, ChainError>, session: &CheckoutSession) -> Relays {
    let mut relay = work(WorkKind::Relay);
    relay.session = Some(session.id);
    let mut r = Relays {
        sending: Ports::new(),
        relays: MockSentRelays::new(),
        deposits: MockDepositStore::new(),
        chain: MockChainReader::new(),
    };
    let listed = relay.clone();
    r.relays
        .expect_sent_relays()
        .returning(move |_| Ok(vec![listed.clone()]));
    r.chain
        .expect_block_number()
        .returning(move |_| head.clone());
    r
}

impl Relays {
    fn follow(&self) -> RelayReport {
        let deps = RelayDeps {
            sending: self.sending.deps(),
            relays: &self.relays,
            deposits: &self.deposits,
            chain: &self.chain,
        };
        block_on(follow_relays(CHAIN, &deps)).expect("followed")
    }

    fn mined(&mut self, mined: Option<MinedAttempt>) {
        self.sending
            .receipts
            .expect_mined_attempt()
            .return_const(Ok(mined));
    }

    /// The session as read afresh, with `deposited` money of its token at its address.
    fn session_now(&mut self, session: &CheckoutSession, deposited: bool) {
        let s = session.clone();
        self.deposits
            .expect_deposit_session()
            .returning(move |_| Ok(Some(s.clone())));
        let (id, token) = (session.id, session.token_address);
        self.deposits
            .expect_deposit_transfers()
            .returning(move |_| {
                Ok(if deposited {
                    vec![deposit(id, token)]
                } else {
                    vec![]
                })
            });
    }

    fn newest_simulates(&mut self, succeeds: bool) {
        self.sending
            .attempts
            .expect_newest_attempt()
            .return_const(Ok(Some(NewestAttempt {
                sender: work(WorkKind::Relay).sender,
                nonce: NONCE,
                tx_hash: tx(1),
                raw: vec![0x02, 0xc0],
                fees: crate::ports::AttemptFees {
                    max_fee_wei: 2,
                    priority_fee_wei: 1,
                    sent_block: SENT_BLOCK,
                },
                fill: false,
            })));
        self.sending
            .receipts
            .expect_simulate_signed()
            .return_const(Ok(if succeeds {
                RelaySimulation::Succeeds
            } else {
                RelaySimulation::Reverts("FiatTokenV2: authorization is used or canceled".into())
            }));
    }
}

fn deposit(
    session: crate::model::CheckoutSessionId,
    token: crate::model::Address,
) -> crate::ports::DepositTransfer {
    crate::ports::DepositTransfer {
        chain: CHAIN,
        tx_hash: tx(0x44),
        session,
        token,
        from: settlement::payer(),
        amount_micros: 10_000_000,
        log_index: 0,
        block_number: SENT_BLOCK + 1,
        block_hash: settlement::bhash(1),
        confirmed: false,
        payment: None,
        arrived_at: now(),
        swept_by: None,
    }
}

fn attempt(n: u8, fill: bool) -> ChargeAttempt {
    ChargeAttempt {
        tx_hash: tx(n),
        fill,
    }
}

#[test]
fn a_mined_attempt_is_recorded_with_its_gas_whether_it_succeeded_or_reverted() {
    for succeeded in [true, false] {
        let session = settlement::session();
        let mut r = relays(Ok(SENT_BLOCK + 1), &session);
        let receipt = GasReceipt { succeeded, ..gas() };
        r.mined(Some(MinedAttempt {
            attempt: attempt(2, false),
            gas: receipt,
        }));
        r.relays
            .expect_relay_mined()
            .withf(move |relay, mined, g, _| {
                relay.tx_hash == tx(1) && *mined == tx(2) && *g == receipt
            })
            .times(1)
            .return_const(Ok(()));
        r.relays.expect_relay_dropped().never();
        r.sending.sender.expect_resend().never();
        let report = r.follow();
        assert_eq!(
            report.followed,
            vec![(tx(1), RelayFollowed::Mined(tx(2), receipt))]
        );
    }
}

#[test]
fn a_mined_fill_gives_the_payment_up() {
    let session = settlement::session();
    let mut r = relays(Ok(SENT_BLOCK + 1), &session);
    r.mined(Some(MinedAttempt {
        attempt: attempt(3, true),
        gas: gas(),
    }));
    r.relays.expect_relay_mined().never();
    r.relays
        .expect_relay_dropped()
        .times(1)
        .return_const(Ok(()));
    let report = r.follow();
    assert_eq!(
        report.followed,
        vec![(tx(1), RelayFollowed::Filled(tx(3), gas()))]
    );
}

/// A relay of `session` stuck past its due time (nothing mined, its nonce still free), with
/// the session as read afresh `now`, `deposited` at its address or not.
fn stuck(session: &CheckoutSession, now: &CheckoutSession, deposited: bool) -> Relays {
    let mut r = relays(Ok(SENT_BLOCK + 3), session);
    r.mined(None);
    r.sending.mined_nonce(NONCE);
    r.session_now(now, deposited);
    r
}

/// The relay is resent `wanted` (replaced) or not (filled) as `outcome`, once.
fn resent(r: &mut Relays, wanted: bool, outcome: Resent) {
    r.sending
        .sender
        .expect_resend()
        .withf(move |_, _, _, w| *w == wanted)
        .times(1)
        .return_const(Ok(outcome));
}

#[test]
fn a_stuck_relay_whose_session_is_open_and_would_still_pay_is_replaced() {
    let session = settlement::session();
    let mut r = stuck(&session, &session, false);
    r.newest_simulates(true);
    resent(&mut r, true, Resent::Replaced(tx(4)));
    assert_eq!(
        r.follow().followed,
        vec![(tx(1), RelayFollowed::Resent(Resent::Replaced(tx(4))))]
    );
}

#[test]
fn a_stuck_relay_is_filled_once_the_buyer_paid_by_deposit_or_the_payment_would_revert() {
    let session = settlement::session();
    let filled = vec![(tx(1), RelayFollowed::Resent(Resent::Filled(tx(5))))];
    // Paid meanwhile at the deposit address: never paid twice (and never simulated).
    let mut r = stuck(&session, &session, true);
    r.sending.receipts.expect_simulate_signed().never();
    resent(&mut r, false, Resent::Filled(tx(5)));
    assert_eq!(r.follow().followed, filled);
    // The authorization was used elsewhere: the relay would revert.
    let mut r = stuck(&session, &session, false);
    r.newest_simulates(false);
    resent(&mut r, false, Resent::Filled(tx(5)));
    assert_eq!(r.follow().followed, filled);
    // The session expired meanwhile.
    let mut expired = session.clone();
    expired.status = crate::model::SessionStatus::Expired;
    let mut r = stuck(&session, &expired, false);
    resent(&mut r, false, Resent::Filled(tx(5)));
    assert_eq!(r.follow().followed, filled);
}

#[test]
fn a_relay_whose_nonce_went_elsewhere_is_dropped_so_the_session_can_be_paid_again() {
    let session = settlement::session();
    let mut r = relays(Ok(SENT_BLOCK + 3), &session);
    r.mined(None);
    r.sending.mined_nonce(NONCE + 1);
    r.sending
        .attempts
        .expect_attempts_at()
        .return_const(Ok(vec![attempt(1, false)]));
    r.relays
        .expect_relay_dropped()
        .times(1)
        .return_const(Ok(()));
    r.sending.sender.expect_resend().never();
    assert_eq!(r.follow().followed, vec![(tx(1), RelayFollowed::Dropped)]);
}

#[test]
fn an_unknown_receipt_leaves_the_relay_as_it_is() {
    let session = settlement::session();
    let mut r = relays(Ok(SENT_BLOCK + 3), &session);
    r.sending
        .receipts
        .expect_mined_attempt()
        .return_const(Err(ChainError::Unavailable(
            "eth_getTransactionReceipt: timed out".into(),
        )));
    r.relays.expect_relay_mined().never();
    r.relays.expect_relay_dropped().never();
    r.sending.sender.expect_resend().never();
    let report = r.follow();
    assert!(report.followed.is_empty());
    assert_eq!(report.errors.len(), 1);
}

#[test]
fn an_unknown_head_still_records_a_mined_relay() {
    let session = settlement::session();
    let unknown = ChainError::Unavailable("eth_blockNumber: timed out".into());
    let mut r = relays(Err(unknown), &session);
    r.mined(Some(MinedAttempt {
        attempt: attempt(1, false),
        gas: gas(),
    }));
    r.relays.expect_relay_mined().times(1).return_const(Ok(()));
    assert_eq!(
        r.follow().followed,
        vec![(tx(1), RelayFollowed::Mined(tx(1), gas()))]
    );
}
