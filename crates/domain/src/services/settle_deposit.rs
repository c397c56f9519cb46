//! Money at deposit addresses (D24): the transfers a receipt shows become rows (pending
//! below depth, confirmed at depth), and confirmed money becomes payments by
//! `rules::deposit_books`. The watcher, the pending re-checks and the fast path all come
//! through here; the store re-checks under the session's row lock, so racing paths write
//! each decision once.

use crate::model::{
    ChainId, ChargeType, CheckoutSession, CheckoutSessionId, Payment, PaymentId, PaymentStatus,
    SessionStatus, Timestamp, TxHash, MAX_MICROS,
};
use crate::ports::{
    ChainReceipt, DepositPayment, DepositTransfer, DepositWrite, SettlementWrite, StoreError,
};
use crate::rules::confirmations::{deepest_confirmed_block, is_confirmed};
use crate::rules::deposit_books::{
    other_token_payment, plan_deposit_payments, ConfirmedDeposit, DepositSession, PlannedPayment,
};
use crate::rules::ledger::MoneyIn;
use crate::services::book_ledger::{block_time_of, entries_for_payment};
use crate::services::{
    completed_by, payment_events, requires_review_event, screen_booked_payer, Booking, SettleDeps,
    SettleError, SettleOutcome, WRITE_ATTEMPTS,
};
use std::collections::HashMap;

use crate::model::{Address, PaymentReview, ScreeningPath};

/// Settles what a receipt sent to deposit addresses on `chain` (nothing where the chain
/// has no deposit factory, or the receipt moves no configured token to one): the
/// session's own token counts towards it; another configured token is recorded as a
/// payment of its own (the forwarder passes it on without a fee); unconfigured tokens are
/// ignored (anyone can deploy a token that logs a Transfer).
pub async fn settle_deposit_receipt(
    chain: ChainId,
    receipt: &ChainReceipt,
    head: u64,
    deps: &SettleDeps<'_>,
) -> Result<Vec<SettleOutcome>, SettleError> {
    let contracts = deps.contracts(chain)?;
    if contracts.deposit_factory.is_none() || !receipt.succeeded {
        return Ok(Vec::new());
    }
    let confirmed = is_confirmed(head, receipt.block_number, contracts.confirmations);
    let mut recipients: Vec<_> = receipt.transfers.iter().map(|t| t.to).collect();
    recipients.sort_unstable();
    recipients.dedup();
    let mut outcomes = Vec::new();
    for to in recipients {
        let Some(session) = deps.deposits.session_by_deposit_address(chain, to).await? else {
            continue;
        };
        let mut tokens: Vec<_> = receipt
            .transfers
            .iter()
            .filter(|t| t.to == to)
            .map(|t| t.token)
            .filter(|token| {
                *token == session.token_address || deps.tokens.currency_of(chain, *token).is_some()
            })
            .collect();
        tokens.sort_unstable();
        tokens.dedup();
        for token in tokens {
            let legs: Vec<_> = receipt
                .transfers
                .iter()
                .filter(|t| t.to == to && t.token == token)
                .collect();
            let Some(first) = legs.first() else { continue };
            // A token may log any value: a sum past u128 is refused, never wrapped.
            let total = legs
                .iter()
                .try_fold(0u128, |sum, t| sum.checked_add(t.value));
            let amount = match total.map(u64::try_from) {
                Some(Ok(m)) if m > 0 && m <= MAX_MICROS => m,
                _ => {
                    outcomes.push(SettleOutcome::Rejected(
                        "a deposit outside what a payment can record (0, or over 10^9 units)"
                            .into(),
                    ));
                    continue;
                }
            };
            // Only the session's own token can complete it: only its arrival time matters.
            let arrived_at = if token == session.token_address {
                arrival(&session, receipt, deps).await?
            } else {
                deps.clock.now()
            };
            let transfer = DepositTransfer {
                chain,
                tx_hash: receipt.tx_hash,
                session: session.id,
                token,
                from: first.from,
                amount_micros: amount,
                log_index: first.log_index,
                block_number: receipt.block_number,
                block_hash: receipt.block_hash,
                confirmed,
                payment: None,
                arrived_at,
                swept_by: None,
            };
            // The session just read by address serves the first attempt (no second read
            // on the watcher's path); the store re-checks it under the row lock.
            outcomes.push(
                record_deposit_change(session.id, Some(session.clone()), Some(transfer), deps)
                    .await?,
            );
        }
    }
    Ok(outcomes)
}

/// When money seen now arrived: now, unless the session has expired by now, when its
/// block's time decides (a watcher that lagged past the expiry must not turn money sent
/// in time into late money). A block the node does not know is an error: unknown, so the
/// transaction stays unresolved and is read again, and nothing is written or dropped.
async fn arrival(
    session: &CheckoutSession,
    receipt: &ChainReceipt,
    deps: &SettleDeps<'_>,
) -> Result<Timestamp, SettleError> {
    let now = deps.clock.now();
    if now < session.expires_at || session.status == SessionStatus::Completed {
        return Ok(now);
    }
    let mined = block_time_of(deps.chain, session.chain, receipt.block_hash).await?;
    Ok(mined.min(now))
}

/// Applies `incoming` (a transfer as a receipt shows it now), then books whatever
/// confirmed money calls for a payment, in one write; retried from fresh state when a
/// racing writer won. `read` is the session as the caller just read it, if it did.
async fn record_deposit_change(
    id: CheckoutSessionId,
    mut read: Option<CheckoutSession>,
    incoming: Option<DepositTransfer>,
    deps: &SettleDeps<'_>,
) -> Result<SettleOutcome, SettleError> {
    for _ in 0..WRITE_ATTEMPTS {
        let session = match read.take() {
            Some(session) => session,
            None => match deps.deposits.deposit_session(id).await? {
                Some(session) => session,
                None => return Ok(SettleOutcome::Rejected("the session is gone".into())),
            },
        };
        let mut rows = deps.deposits.deposit_transfers(id).await?;
        let mut transfer = None;
        if let Some(t) = &incoming {
            match rows
                .iter_mut()
                .find(|r| (r.tx_hash, r.token) == (t.tx_hash, t.token))
            {
                // Confirmed at depth: final (D17), whatever a stale log says.
                Some(r) if r.confirmed => {
                    return Ok(SettleOutcome::DepositRecorded(r.payment));
                }
                Some(r)
                    if !t.confirmed
                        && (r.block_hash, r.log_index, r.amount_micros)
                            == (t.block_hash, t.log_index, t.amount_micros) =>
                {
                    return Ok(SettleOutcome::DepositPending);
                }
                Some(r) => {
                    *r = DepositTransfer {
                        // Kept from the first sighting: a re-mined transfer sent in time
                        // stays in time.
                        arrived_at: r.arrived_at.min(t.arrived_at),
                        swept_by: r.swept_by,
                        ..t.clone()
                    };
                    transfer = Some(r.clone());
                }
                None => {
                    rows.push(t.clone());
                    transfer = Some(t.clone());
                }
            }
        }
        let write = decide(&session, &rows, transfer, deps).await?;
        if write.transfer.is_none() && write.payments.is_empty() {
            return Ok(SettleOutcome::DepositRecorded(None));
        }
        let outcome = match write.payments.first() {
            Some(p) => SettleOutcome::DepositRecorded(Some(p.payment.id)),
            None if write.received_after > write.received_before => {
                SettleOutcome::DepositRecorded(None)
            }
            None => SettleOutcome::DepositPending,
        };
        match deps.deposits.record_deposit(&write).await? {
            SettlementWrite::Written => return Ok(outcome),
            SettlementWrite::Stale => continue,
        }
    }
    Err(SettleError::Contended)
}

/// The senders of confirmed money not booked yet, screened (D33): those held for review,
/// and `rows` with the money of senders no source could answer for taken as not confirmed
/// yet (the incoming `transfer` too, so the pending re-check comes back to it).
async fn screen_senders(
    session: &CheckoutSession,
    rows: &[DepositTransfer],
    transfer: &mut Option<DepositTransfer>,
    deps: &SettleDeps<'_>,
) -> Result<(Vec<DepositTransfer>, HashMap<Address, PaymentReview>), SettleError> {
    let mut senders: Vec<Address> = rows
        .iter()
        .filter(|r| r.confirmed && r.payment.is_none())
        .map(|r| r.from)
        .collect();
    senders.sort_unstable();
    senders.dedup();
    let (mut held, mut deferred) = (HashMap::new(), Vec::new());
    let screening = deps.screening_deps();
    for sender in senders {
        match screen_booked_payer(session, sender, ScreeningPath::Deposit, &screening).await? {
            Booking::Clear => {}
            Booking::Held(review) => {
                held.insert(sender, review);
            }
            Booking::Deferred => deferred.push(sender),
        }
    }
    let unanswered = |r: &DepositTransfer| r.payment.is_none() && deferred.contains(&r.from);
    if let Some(t) = transfer.as_mut().filter(|t| t.confirmed && unanswered(t)) {
        t.confirmed = false;
    }
    let rows = rows
        .iter()
        .map(|r| DepositTransfer {
            confirmed: r.confirmed && !unanswered(r),
            ..r.clone()
        })
        .collect();
    Ok((rows, held))
}

/// The write for `rows` (the session's transfers with `transfer` applied).
async fn decide(
    session: &CheckoutSession,
    rows: &[DepositTransfer],
    mut transfer: Option<DepositTransfer>,
    deps: &SettleDeps<'_>,
) -> Result<DepositWrite, SettleError> {
    let now = deps.clock.now();
    // The watcher's hot path: with nothing screening this session (its merchant's choice
    // included), no sender work.
    let screens = deps
        .screening
        .screens_merchant(
            session.merchant_id,
            session.mode,
            session.chain,
            deps.screening_log,
        )
        .await?;
    let screened = if screens {
        Some(screen_senders(session, rows, &mut transfer, deps).await?)
    } else {
        None
    };
    let (rows, held) = match &screened {
        Some((rows, held)) => (rows.as_slice(), Some(held)),
        None => (rows, None),
    };
    let (own, other): (Vec<&DepositTransfer>, Vec<&DepositTransfer>) =
        rows.iter().partition(|r| r.token == session.token_address);
    let terms = DepositSession {
        gross_micros: session.amount.micros(),
        minimum_micros: session
            .underpayment_tolerance
            .minimum_of(session.amount.micros()),
        fee_bps: session.fee_bps,
        fee_micros: session.fee_micros,
        expires_at: session.pays_until(),
        completed: session.status == SessionStatus::Completed,
        pending_in_time: own
            .iter()
            .any(|r| !r.confirmed && r.arrived_at < session.pays_until()),
    };
    let confirmed: Vec<ConfirmedDeposit> = own
        .iter()
        .filter(|r| r.confirmed)
        .map(|r| ConfirmedDeposit {
            tx_hash: r.tx_hash,
            amount_micros: r.amount_micros,
            position: (r.block_number, r.log_index),
            arrived_at: r.arrived_at,
            recorded: r.payment.is_some(),
        })
        .collect();
    let (received_after, mut plan) = plan_deposit_payments(&terms, &confirmed, now);
    let mut planned: Vec<(&DepositTransfer, PlannedPayment)> = plan
        .drain(..)
        .filter_map(|p| {
            let shown = own.iter().find(|r| r.tx_hash == p.shown_as)?;
            Some((*shown, p))
        })
        .collect();
    planned.extend(
        other
            .iter()
            .filter(|r| r.confirmed && r.payment.is_none())
            .map(|r| (*r, other_token_payment(r.tx_hash, r.amount_micros))),
    );
    let mut payments = Vec::new();
    let mut events = Vec::new();
    let mut ledger = Vec::new();
    let mut completed_session = None;
    for (shown, planned) in planned {
        let mut payment = payment_of(session, shown, &planned, deps).await?;
        let kind = deposit_money_kind(session, shown, &planned);
        ledger.extend(entries_for_payment(deps.chain, &payment, kind, now).await?);
        // Any sender of the money it books listed (D33): held, nothing completed.
        payment.review = rows
            .iter()
            .filter(|r| planned.covers.contains(&r.tx_hash) || r.tx_hash == shown.tx_hash)
            .find_map(|r| held.and_then(|h| h.get(&r.from)).cloned());
        if payment.review.is_some() {
            events.push(requires_review_event(&payment, now));
            payments.push(DepositPayment {
                payment,
                covers: planned.covers,
            });
            continue;
        }
        let completes = planned.completes.then(|| CheckoutSession {
            amount_received_micros: received_after,
            underpaid_micros: (planned.underpaid_micros > 0).then_some(planned.underpaid_micros),
            ..completed_by(session, shown.from, shown.tx_hash, payment.customer, now)
        });
        events.extend(payment_events(completes.as_ref(), &payment, now));
        completed_session = completed_session.or(completes);
        payments.push(DepositPayment {
            payment,
            covers: planned.covers,
        });
    }
    Ok(DepositWrite {
        session: session.id,
        received_before: session.amount_received_micros,
        received_after,
        transfer,
        payments,
        completed_session,
        events,
        ledger,
    })
}

/// What a deposit payment is in the ledger (D32): money that completes the session, money
/// in time that did not reach the gross, and another token's transfer pay the session;
/// money after its completion or expiry is late.
fn deposit_money_kind(
    session: &CheckoutSession,
    shown: &DepositTransfer,
    planned: &PlannedPayment,
) -> MoneyIn {
    let own_token = shown.token == session.token_address;
    let after_the_session =
        session.status == SessionStatus::Completed || shown.arrived_at >= session.expires_at;
    if own_token && !planned.completes && after_the_session {
        MoneyIn::LatePayment
    } else {
        MoneyIn::Payment
    }
}

/// The payment recording `planned`, in the token of the transfer it is shown as.
async fn payment_of(
    session: &CheckoutSession,
    shown: &DepositTransfer,
    planned: &PlannedPayment,
    deps: &SettleDeps<'_>,
) -> Result<Payment, SettleError> {
    let customer = deps
        .store
        .customer_for(session.merchant_id, session.mode, shown.from)
        .await?;
    let amount = crate::model::Amount::from_micros(planned.amount_micros)
        .map_err(|e| StoreError::Internal(format!("a deposit payment amount: {e}")))?;
    let currency = if shown.token == session.token_address {
        session.currency
    } else {
        deps.tokens
            .currency_of(session.chain, shown.token)
            .ok_or_else(|| {
                StoreError::Internal(format!(
                    "a deposit of token {} that is no longer configured",
                    shown.token
                ))
            })?
    };
    let now = deps.clock.now();
    Ok(Payment {
        id: PaymentId::generate_at(now),
        merchant_id: session.merchant_id,
        mode: session.mode,
        status: PaymentStatus::Confirmed,
        charge_type: ChargeType::OneTime,
        subscription: None,
        customer: Some(customer),
        checkout_session: Some(session.id),
        customer_reference: session.customer_reference.clone(),
        amount,
        currency,
        fee_micros: planned.fee_micros,
        merchant_micros: planned.amount_micros + planned.overpaid_micros - planned.fee_micros,
        refunded_micros: 0,
        overpaid_micros: planned.overpaid_micros,
        underpaid_micros: planned.underpaid_micros,
        reversed: false,
        review: None,
        wallet_address: shown.from,
        chain: session.chain,
        token_address: shown.token,
        tx_hash: Some(shown.tx_hash),
        log_index: Some(shown.log_index),
        block_number: Some(shown.block_number),
        block_hash: Some(shown.block_hash),
        period_key: None,
        metadata: session.metadata.clone(),
        created_at: now,
    })
}

/// Ended sessions whose unrecorded money is booked per tick.
const UNRECORDED_PER_TICK: u32 = 50;

/// Re-checks pending deposit transfers at depth that this tick's logs did not settle
/// (`handled`): a receipt settles them; a transaction whose block left the canonical chain
/// at depth without a receipt is dropped (it never counted); anything else is unknown.
pub async fn recheck_pending_deposits(
    chain: ChainId,
    head: u64,
    handled: &std::collections::HashSet<TxHash>,
    limit: u32,
    deps: &SettleDeps<'_>,
) -> Result<Vec<(TxHash, Result<SettleOutcome, SettleError>)>, SettleError> {
    let contracts = deps.contracts(chain)?;
    let deepest = deepest_confirmed_block(head, contracts.confirmations);
    let (Some(_), Some(deepest)) = (contracts.deposit_factory, deepest) else {
        return Ok(Vec::new());
    };
    let pending = deps
        .deposits
        .pending_deposit_transfers(chain, deepest, limit)
        .await?;
    let mut results = Vec::new();
    for t in pending.iter().filter(|t| !handled.contains(&t.tx_hash)) {
        results.push((t.tx_hash, recheck_pending(t, head, deps).await));
    }
    Ok(results)
}

/// Books the confirmed money of sessions that ended (expired underpaid, or completed)
/// without a payment for it yet.
pub async fn record_ended_deposits(
    chain: ChainId,
    deps: &SettleDeps<'_>,
) -> Result<Vec<(CheckoutSessionId, Result<SettleOutcome, SettleError>)>, SettleError> {
    if deps.contracts(chain)?.deposit_factory.is_none() {
        return Ok(Vec::new());
    }
    let now = deps.clock.now();
    let mut results = Vec::new();
    for id in deps
        .deposits
        .sessions_with_unrecorded_deposits(chain, now, UNRECORDED_PER_TICK)
        .await?
    {
        results.push((id, record_deposit_change(id, None, None, deps).await));
    }
    Ok(results)
}

async fn recheck_pending(
    t: &DepositTransfer,
    head: u64,
    deps: &SettleDeps<'_>,
) -> Result<SettleOutcome, SettleError> {
    match deps.chain.receipt(t.chain, t.tx_hash).await? {
        Some(receipt) => {
            let outcomes = settle_deposit_receipt(t.chain, &receipt, head, deps).await?;
            // A receipt at depth that no longer pays this session (reverted when re-mined):
            // the pending row goes, only if it is still as read.
            if deps.deposits.drop_pending_deposit(t).await? {
                return Ok(SettleOutcome::DepositDropped);
            }
            Ok(outcomes
                .into_iter()
                .next()
                .unwrap_or(SettleOutcome::DepositPending))
        }
        None => match deps.chain.block_hash(t.chain, t.block_number).await? {
            Some(canonical) if canonical != t.block_hash => {
                deps.deposits.drop_pending_deposit(t).await?;
                Ok(SettleOutcome::DepositDropped)
            }
            _ => Ok(SettleOutcome::ReceiptUnknown),
        },
    }
}

#[cfg(test)]
mod tests;
