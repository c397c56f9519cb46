//! The one place a verified router payment becomes a payment, a completed session and
//! their events (D8, D17). Used by the hosted page's fast path, the chain watcher and the
//! pending re-checks; the store re-checks under row locks, so racing paths settle once.

use crate::deployment::{ChainContracts, ChainDirectory};
use crate::model::{
    Address, ChainId, ChargeType, CheckoutSession, EventType, Payment, PaymentId, PaymentStatus,
    SessionStatus, TxHash,
};
use crate::ports::{
    ChainError, ChainReader, ChainReceipt, CheckoutPaid, CheckoutSettlement, Clock, EventDraft,
    SettlementStore, SettlementWrite, StoreError,
};
use crate::representation::{CheckoutSessionResource, PaymentResource};
use crate::rules::confirmations::is_confirmed;
use crate::rules::ledger::MoneyIn;
use crate::services::book_ledger::entries_for_payment;
use crate::services::WRITE_ATTEMPTS;

#[derive(Debug, thiserror::Error)]
pub enum SettleError {
    #[error("chain {0} has no checkout router configured")]
    ChainNotConfigured(u64),
    #[error(transparent)]
    Chain(#[from] ChainError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The records kept changing under concurrent writers; retried on the next tick.
    #[error("the payment kept changing while it was being settled")]
    Contended,
}

/// What happened to one router payment (or to one transaction).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettleOutcome {
    /// The node returned no receipt: unknown, never a verdict; retried later.
    ReceiptUnknown,
    /// Recorded (or still) below confirmation depth.
    Pending(PaymentId),
    /// Confirmed now: the session is complete and the events are written.
    Confirmed(PaymentId),
    /// Already in this state (another path won, or nothing changed).
    AlreadyRecorded(PaymentId),
    /// A router log that does not match its session (or no session): nothing recorded.
    Rejected(String),
    /// A pending payment whose transaction is provably not in the canonical chain.
    Failed(PaymentId),
    /// A subscription event below confirmation depth: nothing is written until it is deep.
    AwaitingDepth,
    /// A subscription start or cancel is recorded (now or earlier).
    SubscriptionRecorded(crate::model::SubscriptionId),
    /// Depends on a record not written yet (a charge before its subscribe): retried.
    Deferred(String),
    /// A transfer to a deposit address, recorded below confirmation depth (not counted).
    DepositPending,
    /// Deposit money confirmed (and, when it called for one, the first payment it made).
    DepositRecorded(Option<PaymentId>),
    /// A pending deposit transfer whose transaction left the canonical chain: dropped.
    DepositDropped,
}

pub struct SettleDeps<'a> {
    pub chain: &'a dyn ChainReader,
    pub store: &'a dyn SettlementStore,
    pub deposits: &'a dyn crate::ports::DepositStore,
    pub subscriptions: &'a dyn crate::ports::SubscriptionStore,
    pub clock: &'a dyn Clock,
    pub chains: &'a ChainDirectory,
    /// The configured tokens: other tokens sent to a deposit address are recorded only
    /// when configured (anyone can mint a token that logs a Transfer).
    pub tokens: &'a crate::deployment::TokenDirectory,
    /// The deployment's sanctions sources and screened modes (D33).
    pub screening: &'a crate::services::PayerScreening,
    /// Where every screening answer is kept.
    pub screening_log: &'a dyn crate::ports::ScreeningLog,
}

impl<'a> SettleDeps<'a> {
    /// What screening a payer needs, from these dependencies.
    pub fn screening_deps(&self) -> crate::services::ScreeningDeps<'a> {
        crate::services::ScreeningDeps {
            screening: self.screening,
            log: self.screening_log,
            clock: self.clock,
        }
    }

    pub(crate) fn contracts(&self, chain: ChainId) -> Result<ChainContracts, SettleError> {
        self.chains
            .get(chain)
            .copied()
            .ok_or(SettleError::ChainNotConfigured(chain.id()))
    }
}

/// Checks the on-chain facts against the session snapshot: emitter, status, token,
/// recipient, exact amounts, and both Transfer legs (from the payer, or through the
/// router after the payer's transfer of the total to it).
fn verify(
    session: &CheckoutSession,
    receipt: &ChainReceipt,
    log: &CheckoutPaid,
    treasury: Address,
) -> Result<(), String> {
    if !receipt.succeeded {
        return Err("the transaction reverted".into());
    }
    if log.token != session.token_address {
        return Err(format!(
            "token {} is not the session's {}",
            log.token, session.token_address
        ));
    }
    if log.recipient != session.recipient_address {
        return Err(format!(
            "recipient {} is not the session's {}",
            log.recipient, session.recipient_address
        ));
    }
    if log.net_amount != u128::from(session.net_micros)
        || log.fee_amount != u128::from(session.fee_micros)
    {
        return Err(format!(
            "amounts {}/{} differ from the session's {}/{}",
            log.net_amount, log.fee_amount, session.net_micros, session.fee_micros
        ));
    }
    let leg = |from, to, value: u128| {
        receipt.transfers.iter().any(|t| {
            t.token == session.token_address && t.from == from && t.to == to && t.value == value
        })
    };
    // `pay` moves both legs from the payer; a one-signature payment (D23) moves the total
    // from the payer to the router, which then moves both legs.
    let total = log.net_amount + log.fee_amount;
    let from = if leg(log.payer, log.router, total) {
        log.router
    } else {
        log.payer
    };
    if !leg(from, session.recipient_address, log.net_amount) {
        return Err("no Transfer of the net amount to the recipient".into());
    }
    if log.fee_amount > 0 && !leg(from, treasury, log.fee_amount) {
        return Err("no Transfer of the fee to the treasury".into());
    }
    Ok(())
}

/// The fast path: fetch the receipt and the head, then settle (router payments and
/// subscription-manager events alike).
pub async fn settle_checkout(
    chain: ChainId,
    tx: TxHash,
    deps: &SettleDeps<'_>,
) -> Result<Vec<SettleOutcome>, SettleError> {
    let Some(receipt) = deps.chain.receipt(chain, tx).await? else {
        return Ok(vec![SettleOutcome::ReceiptUnknown]);
    };
    let head = deps.chain.block_number(chain).await?;
    crate::services::settle_any_receipt(chain, &receipt, head, deps).await
}

/// Settles every router payment of an already-fetched receipt, given the chain head.
/// A stale head only delays confirmation, so callers may reuse one head for many receipts.
pub async fn settle_receipt(
    chain: ChainId,
    receipt: &ChainReceipt,
    head: u64,
    deps: &SettleDeps<'_>,
) -> Result<Vec<SettleOutcome>, SettleError> {
    let contracts = deps.contracts(chain)?;
    let confirmed = is_confirmed(head, receipt.block_number, contracts.confirmations);
    let mut outcomes = Vec::new();
    for log in receipt
        .checkout_paid
        .iter()
        .filter(|l| l.router == contracts.checkout_router)
    {
        outcomes.push(settle_log(chain, receipt, log, confirmed, contracts.treasury, deps).await?);
    }
    if outcomes.is_empty() {
        outcomes.push(SettleOutcome::Rejected(if receipt.succeeded {
            "the transaction has no CheckoutPaid event from the router".into()
        } else {
            "the transaction reverted".into()
        }));
    }
    Ok(outcomes)
}

async fn settle_log(
    chain: ChainId,
    receipt: &ChainReceipt,
    log: &CheckoutPaid,
    confirmed: bool,
    treasury: Address,
    deps: &SettleDeps<'_>,
) -> Result<SettleOutcome, SettleError> {
    for _ in 0..WRITE_ATTEMPTS {
        let Some(session) = deps.store.session_by_ref(log.reference).await? else {
            return Ok(SettleOutcome::Rejected(
                "no checkout session has this reference".into(),
            ));
        };
        if session.chain != chain {
            return Ok(SettleOutcome::Rejected(
                "the session belongs to another chain".into(),
            ));
        }
        if let Err(why) = verify(&session, receipt, log, treasury) {
            return Ok(SettleOutcome::Rejected(why));
        }
        let existing = deps
            .store
            .payment_for_session_tx(chain, receipt.tx_hash, session.id)
            .await?;
        if let Some(p) = &existing {
            let unchanged = p.block_number == Some(receipt.block_number)
                && p.block_hash == Some(receipt.block_hash)
                && p.log_index == Some(log.log_index);
            match p.status {
                PaymentStatus::Confirmed | PaymentStatus::Refunded => {
                    return Ok(SettleOutcome::AlreadyRecorded(p.id))
                }
                PaymentStatus::Failed if !p.is_revivable() => {
                    return Ok(SettleOutcome::AlreadyRecorded(p.id))
                }
                PaymentStatus::Pending if !confirmed && unchanged => {
                    return Ok(SettleOutcome::AlreadyRecorded(p.id))
                }
                // Pending that moved or reached depth; failed that is back (revived).
                PaymentStatus::Pending | PaymentStatus::Failed => {}
            }
        }
        let settlement = decide(&session, existing.as_ref(), receipt, log, confirmed, deps).await?;
        let id = settlement.payment.id;
        // A payer no source could answer for stays pending at depth (D33): not booked yet.
        let booked = settlement.payment.status == PaymentStatus::Confirmed;
        match deps.store.record_checkout_settlement(&settlement).await? {
            SettlementWrite::Written if booked => return Ok(SettleOutcome::Confirmed(id)),
            SettlementWrite::Written => return Ok(SettleOutcome::Pending(id)),
            SettlementWrite::Stale => continue,
        }
    }
    Err(SettleError::Contended)
}

/// What one settlement writes: the payment (new, moved, upgraded or revived) and, the
/// first time it is confirmed, the completed session and the events.
async fn decide(
    session: &CheckoutSession,
    existing: Option<&Payment>,
    receipt: &ChainReceipt,
    log: &CheckoutPaid,
    confirmed: bool,
    deps: &SettleDeps<'_>,
) -> Result<CheckoutSettlement, SettleError> {
    let now = deps.clock.now();
    let customer = deps
        .store
        .customer_for(session.merchant_id, session.mode, log.payer)
        .await?;
    let booking = if confirmed {
        crate::services::screen_booked_payer(
            session,
            log.payer,
            crate::model::ScreeningPath::Router,
            &deps.screening_deps(),
        )
        .await?
    } else {
        crate::services::Booking::Clear
    };
    let confirmed = confirmed && booking != crate::services::Booking::Deferred;
    let payment = Payment {
        id: existing.map_or_else(|| PaymentId::generate_at(now), |p| p.id),
        merchant_id: session.merchant_id,
        mode: session.mode,
        status: if confirmed {
            PaymentStatus::Confirmed
        } else {
            PaymentStatus::Pending
        },
        charge_type: ChargeType::OneTime,
        subscription: None,
        customer: Some(customer),
        checkout_session: Some(session.id),
        customer_reference: session.customer_reference.clone(),
        amount: session.amount,
        currency: session.currency,
        fee_micros: session.fee_micros,
        merchant_micros: session.net_micros,
        refunded_micros: 0,
        overpaid_micros: 0,
        underpaid_micros: 0,
        reversed: false,
        review: match &booking {
            crate::services::Booking::Held(review) => Some(review.clone()),
            _ => None,
        },
        wallet_address: log.payer,
        chain: session.chain,
        token_address: session.token_address,
        tx_hash: Some(receipt.tx_hash),
        log_index: Some(log.log_index),
        block_number: Some(receipt.block_number),
        block_hash: Some(receipt.block_hash),
        period_key: None,
        metadata: session.metadata.clone(),
        created_at: existing.map_or(now, |p| p.created_at),
    };
    let mut events = Vec::new();
    let mut completed_session = None;
    let mut ledger = Vec::new();
    if confirmed && payment.review.is_some() {
        // Held (D33): booked, the session left open, only `payment.requires_review`.
        events = vec![requires_review_event(&payment, now)];
        ledger = entries_for_payment(deps.chain, &payment, MoneyIn::Payment, now).await?;
    } else if confirmed {
        // Money is never dropped: a late payment completes an expired session too. A
        // session some other payment completed only gains this payment.
        if session.status != SessionStatus::Completed {
            completed_session = Some(completed_by(
                session,
                log.payer,
                receipt.tx_hash,
                Some(customer),
                now,
            ));
        }
        events = payment_events(completed_session.as_ref(), &payment, now);
        // Money for a session another payment completed only adds to it: late (D32).
        let kind = if completed_session.is_some() {
            MoneyIn::Payment
        } else {
            MoneyIn::LatePayment
        };
        ledger = entries_for_payment(deps.chain, &payment, kind, now).await?;
    }
    Ok(CheckoutSettlement {
        payment,
        replaces: existing.map(|p| p.status),
        completed_session,
        events,
        ledger,
    })
}

/// `session` completed at `now` by `payer`'s transaction `tx`.
pub(crate) fn completed_by(
    session: &CheckoutSession,
    payer: Address,
    tx: TxHash,
    customer: Option<crate::model::CustomerId>,
    now: crate::model::Timestamp,
) -> CheckoutSession {
    CheckoutSession {
        status: SessionStatus::Completed,
        wallet_address: Some(payer),
        tx_hash: Some(tx),
        completed_at: Some(now),
        customer,
        ..session.clone()
    }
}

/// The events of one confirmed one-time payment, for every way a session is paid:
/// `checkout.session.completed` when it completes `completed`, then `payment.succeeded`.
pub(crate) fn payment_events(
    completed: Option<&CheckoutSession>,
    payment: &Payment,
    now: crate::model::Timestamp,
) -> Vec<EventDraft> {
    let draft = |event_type, object_json| EventDraft {
        merchant_id: payment.merchant_id,
        mode: payment.mode,
        event_type,
        object_json,
        created_at: now,
    };
    let mut events = Vec::with_capacity(2);
    if let Some(done) = completed {
        events.push(draft(
            EventType::CheckoutSessionCompleted,
            to_json(&CheckoutSessionResource::new(done.clone(), "")),
        ));
    }
    events.push(payment_event(EventType::PaymentSucceeded, payment, now));
    events
}

/// An event of `event_type` whose object is `payment`, in its merchant's mode.
fn payment_event(
    event_type: EventType,
    payment: &Payment,
    now: crate::model::Timestamp,
) -> EventDraft {
    EventDraft {
        merchant_id: payment.merchant_id,
        mode: payment.mode,
        event_type,
        object_json: to_json(&PaymentResource::from(payment.clone())),
        created_at: now,
    }
}

/// `payment.requires_review`: `payment` was booked held for the merchant's review (D33).
pub(crate) fn requires_review_event(payment: &Payment, now: crate::model::Timestamp) -> EventDraft {
    payment_event(EventType::PaymentRequiresReview, payment, now)
}

pub(crate) fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "{}".to_owned())
}

#[cfg(test)]
mod screening_tests;
#[cfg(test)]
mod tests;
