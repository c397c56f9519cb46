//! The one place `SubscriptionManager` logs become books (D10, D17): a `Subscribed` with
//! its first `Charged` completes the subscription checkout and creates the subscription;
//! a later `Charged` is the period's payment; a `Canceled` cancels. Used by the chain
//! watcher, the hosted page's confirm and the billing loop's in-flight checks. Nothing is
//! written below confirmation depth; every write is conditional, so racing paths write
//! once.

use crate::model::{
    AttemptStatus, ChainId, ChargeType, EventType, Payment, PaymentAttempt, PaymentAttemptId,
    PaymentId, PaymentStatus, Subscription, Timestamp,
};
use crate::ports::{
    BillingWrite, ChainReceipt, EventDraft, PaymentUpsert, SettlementWrite, SubscriptionEvent,
    SubscriptionLog, SubscriptionRecord,
};
use crate::representation::{PaymentResource, SubscriptionResource};
use crate::rules::confirmations::is_confirmed;
use crate::rules::dunning::BillingState;
use crate::rules::ledger::MoneyIn;
use crate::services::book_ledger::entries_for_payment;
use crate::services::{
    to_json, write_billing, BillingWriteOutcome, SettleDeps, SettleError, SettleOutcome,
    WRITE_ATTEMPTS,
};

/// The managers whose events are read and recorded on `chain`: none while subscriptions
/// are off (no manager configured); else the configured one and every manager that holds
/// recorded subscriptions, since a rotation leaves old subscriptions on the old one (and
/// a charge in flight when the last of them was canceled may still be mined).
pub async fn followed_managers(
    chain: ChainId,
    deps: &SettleDeps<'_>,
) -> Result<Vec<crate::model::Address>, SettleError> {
    let Some(configured) = deps.contracts(chain)?.subscription_manager else {
        return Ok(Vec::new());
    };
    let mut managers = vec![configured];
    for m in deps.subscriptions.managers_in_use(chain).await? {
        if !managers.contains(&m) {
            managers.push(m);
        }
    }
    Ok(managers)
}

/// Settles every `SubscriptionManager` event of a fetched receipt, given the head. An
/// empty answer means the receipt has no event from a followed manager (any contract can
/// log an event of the same shape: those of others are ignored).
pub async fn settle_subscription_receipt(
    chain: ChainId,
    receipt: &ChainReceipt,
    head: u64,
    deps: &SettleDeps<'_>,
) -> Result<Vec<SettleOutcome>, SettleError> {
    let contracts = deps.contracts(chain)?;
    let Some(configured) = contracts.subscription_manager else {
        return Ok(Vec::new());
    };
    if !receipt.succeeded || receipt.subscription_events.is_empty() {
        return Ok(Vec::new());
    }
    // Only a receipt with events of another manager costs a read of the followed ones.
    let followed = if receipt
        .subscription_events
        .iter()
        .all(|l| l.manager == configured)
    {
        vec![configured]
    } else {
        followed_managers(chain, deps).await?
    };
    let confirmed = is_confirmed(head, receipt.block_number, contracts.confirmations);
    let logs: Vec<&SubscriptionLog> = receipt
        .subscription_events
        .iter()
        .filter(|l| followed.contains(&l.manager))
        .collect();
    let mut outcomes = Vec::new();
    for log in &logs {
        let outcome = match &log.event {
            SubscriptionEvent::Subscribed {
                subscription_id, ..
            } => {
                let first = logs.iter().find(|l| {
                    matches!(l.event, SubscriptionEvent::Charged { subscription_id: s, .. } if s == *subscription_id)
                });
                start_subscription(chain, receipt, log, first.copied(), confirmed, deps).await?
            }
            SubscriptionEvent::Charged {
                subscription_id, ..
            } => {
                // The first charge belongs to the `Subscribed` beside it.
                let is_first = logs.iter().any(|l| {
                    matches!(l.event, SubscriptionEvent::Subscribed { subscription_id: s, .. } if s == *subscription_id)
                });
                if is_first {
                    continue;
                }
                record_charge(chain, receipt, log, confirmed, deps).await?
            }
            SubscriptionEvent::Canceled {
                subscription_id, ..
            } => record_cancel(chain, *subscription_id, log, confirmed, deps).await?,
        };
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

fn draft(
    merchant_and_mode: &Subscription,
    event_type: EventType,
    object_json: String,
    now: Timestamp,
) -> EventDraft {
    EventDraft {
        merchant_id: merchant_and_mode.merchant_id,
        mode: merchant_and_mode.mode,
        event_type,
        object_json,
        created_at: now,
    }
}

/// The start of a billing period: the chain's next due date less one interval.
fn period_of(next_charge_at: u64, interval_seconds: u64) -> Option<(Timestamp, Timestamp)> {
    let next = i64::try_from(next_charge_at).ok()?;
    let interval = i64::try_from(interval_seconds).ok()?;
    Some((
        Timestamp::from_unix_seconds(next.checked_sub(interval)?)?,
        Timestamp::from_unix_seconds(next)?,
    ))
}

/// Both Transfer legs of a charge: net to the recipient, fee to the treasury.
fn legs_present(
    receipt: &ChainReceipt,
    token: crate::model::Address,
    from: crate::model::Address,
    recipient: crate::model::Address,
    treasury: crate::model::Address,
    net: u128,
    fee: u128,
) -> bool {
    let leg = |to, value| {
        receipt
            .transfers
            .iter()
            .any(|t| t.token == token && t.from == from && t.to == to && t.value == value)
    };
    leg(recipient, net) && (fee == 0 || leg(treasury, fee))
}

/// The confirmed payment of a charge (a new record, or the period's failed one).
fn charge_payment(
    rec: &SubscriptionRecord,
    existing: Option<&Payment>,
    receipt: &ChainReceipt,
    log_index: u64,
    period: Timestamp,
    now: Timestamp,
    first_of: Option<crate::model::CheckoutSessionId>,
) -> Payment {
    let sub = &rec.subscription;
    Payment {
        id: existing.map_or_else(PaymentId::generate, |p| p.id),
        merchant_id: sub.merchant_id,
        mode: sub.mode,
        status: PaymentStatus::Confirmed,
        charge_type: ChargeType::Recurring,
        subscription: Some(sub.id),
        customer: Some(sub.customer),
        checkout_session: first_of,
        customer_reference: rec.customer_reference.clone(),
        amount: sub.amount,
        currency: crate::model::Currency::Usdc,
        fee_micros: rec.fee_micros,
        merchant_micros: sub.amount.micros() - rec.fee_micros,
        refunded_micros: 0,
        overpaid_micros: 0,
        underpaid_micros: 0,
        reversed: false,
        review: None,
        wallet_address: sub.wallet_address,
        chain: sub.chain,
        token_address: rec.token,
        tx_hash: Some(receipt.tx_hash),
        log_index: Some(log_index),
        block_number: Some(receipt.block_number),
        block_hash: Some(receipt.block_hash),
        period_key: Some(period),
        metadata: rec.metadata.clone(),
        created_at: existing.map_or(now, |p| p.created_at),
    }
}

fn succeeded_attempt(
    sub: &Subscription,
    payment: &Payment,
    attempt_number: u32,
    period: Timestamp,
    receipt: &ChainReceipt,
    now: Timestamp,
) -> PaymentAttempt {
    PaymentAttempt {
        id: PaymentAttemptId::generate_at(now),
        merchant_id: sub.merchant_id,
        mode: sub.mode,
        subscription: sub.id,
        payment: Some(payment.id),
        status: AttemptStatus::Succeeded,
        attempt_number,
        period_key: period,
        failure_code: None,
        failure_reason: None,
        tx_hash: Some(receipt.tx_hash),
        created_at: now,
    }
}

async fn record_charge(
    chain: ChainId,
    receipt: &ChainReceipt,
    log: &SubscriptionLog,
    confirmed: bool,
    deps: &SettleDeps<'_>,
) -> Result<SettleOutcome, SettleError> {
    let SubscriptionEvent::Charged {
        subscription_id,
        subscriber,
        net_amount,
        fee_amount,
        next_charge_at,
        ..
    } = log.event
    else {
        return Ok(SettleOutcome::Rejected("not a Charged log".into()));
    };
    let treasury = deps.contracts(chain)?.treasury;
    for _ in 0..WRITE_ATTEMPTS {
        let rec = match recorded(chain, log.manager, subscription_id, deps).await? {
            Ok(rec) => rec,
            Err(deferred) => return Ok(deferred),
        };
        let sub = &rec.subscription;
        let gross = net_amount.saturating_add(fee_amount);
        if subscriber != sub.wallet_address
            || gross != u128::from(sub.amount.micros())
            || fee_amount != u128::from(rec.fee_micros)
            || !legs_present(
                receipt,
                rec.token,
                subscriber,
                rec.recipient,
                treasury,
                net_amount,
                fee_amount,
            )
        {
            return Ok(SettleOutcome::Rejected(format!(
                "the charge of subscription {subscription_id} does not match its terms"
            )));
        }
        if !confirmed {
            return Ok(SettleOutcome::AwaitingDepth);
        }
        let Some((period, next_payment_at)) = period_of(next_charge_at, sub.interval_seconds)
        else {
            return Ok(SettleOutcome::Rejected(
                "the next charge date is out of range".into(),
            ));
        };
        let existing = deps
            .subscriptions
            .payment_for_period(sub.id, period)
            .await?;
        if let Some(p) = existing.as_ref().filter(|p| !p.is_revivable()) {
            return Ok(SettleOutcome::AlreadyRecorded(p.id));
        }
        let attempts = deps
            .subscriptions
            .attempts_in_period(sub.id, period)
            .await?;
        let now = deps.clock.now();
        let state = BillingState::of(sub);
        let mut after = state.charge_succeeded(next_payment_at).state;
        // Money taken while paused, canceled or expired is still recorded; a live
        // subscription follows the chain's schedule.
        if after.is_live() {
            after.next_payment_at = Some(next_payment_at);
        }
        let payment = charge_payment(
            &rec,
            existing.as_ref(),
            receipt,
            log.log_index,
            period,
            now,
            None,
        );
        let attempt = succeeded_attempt(sub, &payment, attempts + 1, period, receipt, now);
        let ledger =
            entries_for_payment(deps.chain, &payment, MoneyIn::SubscriptionCharge, now).await?;
        let updated = after.applied_to(sub);
        let events = vec![draft(
            sub,
            EventType::PaymentSucceeded,
            to_json(&PaymentResource::from(payment.clone())),
            now,
        )];
        let write = BillingWrite {
            subscription: SubscriptionRecord {
                subscription: updated,
                ..rec.clone()
            },
            payment: Some(PaymentUpsert {
                payment: payment.clone(),
                replaces: existing.map(|p| p.status),
            }),
            attempt: Some(attempt),
            events,
            settles_charge_tx: Some(receipt.tx_hash),
            ledger,
            hold_until: None,
        };
        match deps.subscriptions.record_billing(&write).await? {
            SettlementWrite::Written => return Ok(SettleOutcome::Confirmed(payment.id)),
            SettlementWrite::Stale => continue,
        }
    }
    Err(SettleError::Contended)
}

/// The recorded subscription `manager` holds as `id`, or `Deferred` when its subscribe is
/// not recorded yet (decided again later).
async fn recorded(
    chain: ChainId,
    manager: crate::model::Address,
    id: u128,
    deps: &SettleDeps<'_>,
) -> Result<Result<SubscriptionRecord, SettleOutcome>, SettleError> {
    Ok(deps
        .subscriptions
        .subscription_by_chain_id(chain, manager, id)
        .await?
        .ok_or_else(|| SettleOutcome::Deferred(format!("subscription {id} is not recorded"))))
}

async fn record_cancel(
    chain: ChainId,
    subscription_id: u128,
    log: &SubscriptionLog,
    confirmed: bool,
    deps: &SettleDeps<'_>,
) -> Result<SettleOutcome, SettleError> {
    let rec = match recorded(chain, log.manager, subscription_id, deps).await? {
        Ok(rec) => rec,
        Err(deferred) => return Ok(deferred),
    };
    if !confirmed {
        return Ok(SettleOutcome::AwaitingDepth);
    }
    let id = rec.subscription.id;
    let now = deps.clock.now();
    match write_billing(deps.subscriptions, rec, |rec| cancel_write(rec, now)).await? {
        BillingWriteOutcome::Contended => Err(SettleError::Contended),
        _ => Ok(SettleOutcome::SubscriptionRecorded(id)),
    }
}

/// The write that cancels `rec` at `now` with `subscription.canceled`; `None` when it is
/// already canceled or expired (the event fires once).
pub(crate) fn cancel_write(rec: &SubscriptionRecord, now: Timestamp) -> Option<BillingWrite> {
    let sub = &rec.subscription;
    let transition = BillingState::of(sub).canceled(now);
    if transition.events.is_empty() {
        return None;
    }
    let updated = transition.state.applied_to(sub);
    let events = transition
        .events
        .iter()
        .map(|t| {
            draft(
                sub,
                *t,
                to_json(&SubscriptionResource::from(updated.clone())),
                now,
            )
        })
        .collect();
    Some(BillingWrite {
        events,
        ..BillingWrite::state_only(SubscriptionRecord {
            subscription: updated,
            ..rec.clone()
        })
    })
}

mod start;
use start::start_subscription;

#[cfg(test)]
mod screening_tests;
#[cfg(test)]
mod tests;
