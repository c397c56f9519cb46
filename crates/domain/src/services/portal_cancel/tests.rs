//! Tests of the portal cancel with mocked ports: the message, a cancel signed by the
//! subscriber wallet (EOA or ERC-1271), a repeat, and signatures that are not the
//! subscriber's.

use futures_executor::block_on;

use super::*;
use crate::model::{Address, ChainId, EventType, SubscriptionStatus};
use crate::ports::{BillingWrite, MockSettlementStore, MockSubscriptionStore, SettlementWrite};
use crate::rules::eip191;

use crate::services::fixtures::subscriptions::*;

/// The subscriber's key, and someone else's.
const KEY: [u8; 32] = [0x11; 32];
const OTHER_KEY: [u8; 32] = [0x22; 32];

fn wallet_of(key: &[u8; 32]) -> Address {
    eip191::address_of_private_key(key).unwrap()
}

/// `record(status)` held by the wallet of `KEY`.
fn owned(status: SubscriptionStatus) -> SubscriptionRecord {
    let mut rec = record(status);
    rec.subscription.wallet_address = wallet_of(&KEY);
    rec
}

fn signed(rec: &SubscriptionRecord, key: &[u8; 32]) -> Signature {
    eip191::sign(cancel_message(rec).as_bytes(), key).unwrap()
}

/// A harness whose store answers `answers` in order for `id`, one per read.
fn reading(id: SubscriptionId, answers: Vec<Option<SubscriptionRecord>>) -> Harness {
    let mut h = Harness::new(MockSettlementStore::new(), MockSubscriptionStore::new());
    let reads = answers.len();
    let mut answers = answers.into_iter();
    h.subscriptions
        .expect_subscription_public()
        .withf(move |s| *s == id)
        .times(reads)
        .returning(move |_| Ok(answers.next().flatten()));
    h
}

fn cancel(
    h: &Harness,
    id: SubscriptionId,
    sig: &Signature,
) -> Result<SubscriptionRecord, PortalError> {
    let deps = PortalDeps {
        subscriptions: &h.subscriptions,
        chain: &h.chain,
        clock: &h.clock,
    };
    block_on(cancel_by_subscriber(id, sig, &deps))
}

/// `rec` as the cancel at `now()` leaves it.
fn canceled_at_now(rec: &SubscriptionRecord) -> SubscriptionRecord {
    let mut done = rec.clone();
    done.subscription.status = SubscriptionStatus::Canceled;
    done.subscription.canceled_at = Some(now());
    done.subscription.next_payment_at = None;
    done
}

fn assert_cancel_write(w: &BillingWrite, rec: &SubscriptionRecord) {
    assert_eq!(
        w.subscription,
        canceled_at_now(rec),
        "same version, canceled now"
    );
    assert_eq!((&w.payment, &w.attempt), (&None, &None));
    assert_eq!((w.settles_charge_tx, w.hold_until), (None, None));
    assert_eq!(event_types(&w.events), [EventType::SubscriptionCanceled]);
    let body = json(&w.events[0]);
    assert_eq!(body["id"], rec.subscription.id.to_string());
    assert_eq!(body["status"], "canceled");
}

#[test]
fn the_cancel_message_names_the_service_the_subscription_the_wallet_and_the_chain() {
    let rec = owned(SubscriptionStatus::Active);
    let sub = &rec.subscription;
    let message = cancel_message(&rec);
    assert_eq!(
        message,
        format!(
            "stablepay: cancel subscription\n\nSubscription: {}\nSubscriber wallet: {}\nChain: base-sepolia (84532)\n\nNo further payments will be taken for this subscription.",
            sub.id,
            wallet_of(&KEY).to_checksum()
        )
    );
    // Another subscription of the same wallet, or the same one on another chain, signs
    // another message.
    let other = owned(SubscriptionStatus::Active);
    assert_ne!(cancel_message(&other), message);
    let mut live = rec.clone();
    live.subscription.chain = ChainId::Base;
    assert!(cancel_message(&live).contains("Chain: base (8453)"));
}

#[test]
fn the_subscriber_wallet_cancels_with_one_subscription_canceled_event() {
    let rec = owned(SubscriptionStatus::Active);
    let id = rec.subscription.id;
    let after = canceled_at_now(&rec);
    let mut h = reading(id, vec![Some(rec.clone()), Some(after.clone())]);
    h.chain.expect_is_contract().never();
    let seen = expect_billing(&mut h.subscriptions);
    let answer = cancel(&h, id, &signed(&rec, &KEY)).unwrap();
    assert_eq!(answer, after, "the state read back after the write");
    assert_cancel_write(&written(&seen)[0], &rec);
}

#[test]
fn a_repeated_cancel_answers_the_canceled_subscription_without_a_write() {
    let mut rec = owned(SubscriptionStatus::Canceled);
    rec.subscription.canceled_at = Some(now().plus_seconds(-60));
    let id = rec.subscription.id;
    let mut h = reading(id, vec![Some(rec.clone())]);
    h.subscriptions.expect_record_billing().never();
    assert_eq!(cancel(&h, id, &signed(&rec, &KEY)).unwrap(), rec);
}

#[test]
fn another_signer_is_not_the_subscriber() {
    let rec = owned(SubscriptionStatus::Active);
    let id = rec.subscription.id;
    let mut h = reading(id, vec![Some(rec.clone())]);
    let wallet = wallet_of(&KEY);
    h.chain
        .expect_is_contract()
        .withf(move |c, a| (*c, *a) == (CHAIN, wallet))
        .times(1)
        .return_const(Ok(false));
    h.chain.expect_is_valid_signature().never();
    h.subscriptions.expect_record_billing().never();
    let err = cancel(&h, id, &signed(&rec, &OTHER_KEY)).unwrap_err();
    assert!(
        matches!(&err, PortalError::NotSubscriber(w) if *w == wallet.to_string()),
        "{err:?}"
    );
}

#[test]
fn the_subscribers_signature_for_another_subscription_cancels_nothing() {
    let (rec, other) = (
        owned(SubscriptionStatus::Active),
        owned(SubscriptionStatus::Active),
    );
    let id = rec.subscription.id;
    let mut h = reading(id, vec![Some(rec)]);
    h.chain
        .expect_is_contract()
        .times(1)
        .return_const(Ok(false));
    h.subscriptions.expect_record_billing().never();
    let err = cancel(&h, id, &signed(&other, &KEY)).unwrap_err();
    assert!(matches!(err, PortalError::NotSubscriber(_)), "{err:?}");
}

#[test]
fn a_contract_wallet_cancels_through_erc1271() {
    // A smart wallet: its address has no key; an owner key signs and the wallet vouches.
    let rec = record(SubscriptionStatus::PastDue);
    let (id, wallet) = (rec.subscription.id, rec.subscription.wallet_address);
    let sig = signed(&rec, &OTHER_KEY);
    let hash = eip191::hash_message(cancel_message(&rec).as_bytes());
    let mut h = reading(id, vec![Some(rec.clone()), Some(canceled_at_now(&rec))]);
    h.chain
        .expect_is_contract()
        .withf(move |c, a| (*c, *a) == (CHAIN, wallet))
        .times(1)
        .return_const(Ok(true));
    let expected = sig.clone();
    h.chain
        .expect_is_valid_signature()
        .withf(move |c, w, hs, s| (*c, *w, *hs) == (CHAIN, wallet, hash) && *s == expected)
        .times(1)
        .return_const(Ok(true));
    let seen = expect_billing(&mut h.subscriptions);
    cancel(&h, id, &sig).unwrap();
    let w = &written(&seen)[0];
    assert_cancel_write(w, &rec);
    assert_eq!(
        w.subscription.subscription.retry_count,
        rec.subscription.retry_count
    );
}

#[test]
fn a_contract_wallet_whose_chain_cannot_be_reached_is_chain_unavailable() {
    let rec = record(SubscriptionStatus::Active);
    let id = rec.subscription.id;
    let mut h = reading(id, vec![Some(rec.clone())]);
    h.chain
        .expect_is_contract()
        .times(1)
        .return_const(Err(ChainError::Unavailable("timeout".into())));
    h.subscriptions.expect_record_billing().never();
    let err = cancel(&h, id, &signed(&rec, &OTHER_KEY)).unwrap_err();
    assert!(matches!(err, PortalError::ChainUnavailable(_)), "{err:?}");
}

#[test]
fn an_unknown_subscription_is_not_found() {
    let rec = owned(SubscriptionStatus::Active);
    let id = rec.subscription.id;
    let mut h = reading(id, vec![None]);
    h.chain.expect_is_contract().never();
    h.subscriptions.expect_record_billing().never();
    let err = cancel(&h, id, &signed(&rec, &KEY)).unwrap_err();
    assert!(matches!(err, PortalError::NotFound(_)), "{err:?}");
}

#[test]
fn a_cancel_that_loses_a_race_answers_the_state_the_winner_wrote() {
    // The watcher recorded the on-chain cancel between the read and the write.
    let rec = owned(SubscriptionStatus::Active);
    let id = rec.subscription.id;
    let mut winner = canceled_at_now(&rec);
    winner.subscription.canceled_at = Some(now().plus_seconds(-1));
    winner.version += 1;
    let mut h = reading(id, vec![Some(rec.clone()), Some(winner.clone())]);
    let seen = expect_billings(&mut h.subscriptions, vec![SettlementWrite::Stale]);
    assert_eq!(cancel(&h, id, &signed(&rec, &KEY)).unwrap(), winner);
    assert_eq!(written(&seen).len(), 1, "no second write");
}
