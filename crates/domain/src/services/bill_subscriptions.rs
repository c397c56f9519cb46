//! One billing tick on one chain (D10, D19): claim due subscriptions, simulate `charge`
//! with `eth_call`, send the chargeable ones through the keeper, record every failed try
//! as an attempt with the dunning transition it causes, then follow the charges in
//! flight (`in_flight`: settle the mined at depth, record the reverted, replace the stuck).

use futures_util::StreamExt;

use crate::model::{
    AttemptStatus, ChainId, ChargeType, Currency, EventType, Payment, PaymentAttempt,
    PaymentAttemptId, PaymentId, PaymentStatus, SubscriptionId, SubscriptionStatus, Timestamp,
    TxHash,
};
use crate::ports::{
    BillingWrite, ChargeKeeper, ChargeSimulation, EventDraft, PaymentUpsert, SettlementWrite,
    SubscriptionRecord,
};
use crate::representation::{PaymentResource, SubscriptionResource};
use crate::rules::dunning::{BillingState, DunningPolicy, FailureCode};
use crate::services::{
    screen_subscriber::Subscriber, to_json, write_billing, BillingWriteOutcome, SendingDeps,
    SettleDeps, SettleError, WRITE_ATTEMPTS,
};

/// How long a claim keeps other workers off a subscription (also the pause before a try
/// that found the chain unavailable or not due is made again).
pub const CLAIM_LEASE_SECS: i64 = 60;
/// A subscription the chain called not due yet is tried again after this long (the
/// chain's clock may trail the service's by a block).
pub const NOT_DUE_RETRY_SECS: i64 = 2;
const CONCURRENCY: usize = 16;

pub struct BillingDeps<'a> {
    pub settle: SettleDeps<'a>,
    pub keeper: &'a dyn ChargeKeeper,
    /// How charges in flight are followed: the one rule for all sent work (D31).
    pub sending: SendingDeps<'a>,
    pub policy: &'a DunningPolicy,
}

/// What happened to one claimed subscription.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChargeOutcome {
    Sent(TxHash),
    /// Recorded as a failed attempt with this code.
    Failed(FailureCode),
    /// The chain's schedule says not yet: tried again after the lease.
    NotDue,
    /// Paused, canceled or expired since it was claimed: nothing to do.
    NotLive,
    Error(String),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BillingReport {
    pub charges: Vec<(SubscriptionId, ChargeOutcome)>,
    pub in_flight: usize,
    /// Stuck charges replaced at their nonce (or sent again as they were, at the cap).
    pub replaced: usize,
    /// Of those, replaced by a 0-value fill: the subscription stopped charging.
    pub filled: usize,
    /// Given up: the charge's nonce went to another transaction, so it can never be mined
    /// (the charge is closed, and the period is claimed again when due).
    pub nonce_lost: usize,
    pub settled: usize,
    pub errors: Vec<String>,
}

/// The billing period a charge made at `now` pays: the chain charges the current period
/// only (missed ones are skipped), counted from the schedule's anchor.
pub fn due_period(next_payment_at: Timestamp, interval_seconds: u64, now: Timestamp) -> Timestamp {
    let interval = i64::try_from(interval_seconds.max(1)).unwrap_or(i64::MAX);
    let behind = (now.unix_seconds() - next_payment_at.unix_seconds()).max(0);
    next_payment_at.plus_seconds(behind / interval * interval)
}

pub async fn bill_due_subscriptions(
    chain: ChainId,
    limit: u32,
    deps: &BillingDeps<'_>,
) -> Result<BillingReport, SettleError> {
    let contracts = deps.settle.contracts(chain)?;
    let mut report = BillingReport::default();
    if contracts.subscription_manager.is_none() {
        return Ok(report);
    }
    let now = deps.settle.clock.now();
    let claimed = deps
        .settle
        .subscriptions
        .claim_due(chain, now, now.plus_seconds(CLAIM_LEASE_SECS), limit)
        .await?;
    report.charges = futures_util::stream::iter(claimed)
        .map(|rec| async move {
            let id = rec.subscription.id;
            (id, charge_one(rec, deps).await)
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    follow_in_flight(chain, deps, &mut report).await;
    Ok(report)
}

async fn charge_one(rec: SubscriptionRecord, deps: &BillingDeps<'_>) -> ChargeOutcome {
    let sub = &rec.subscription;
    // The contract that holds this subscription (not whatever is configured today).
    let manager = rec.manager;
    let Ok(chain_id) = sub.chain_subscription_id.parse::<u128>() else {
        return ChargeOutcome::Error("the chain subscription id is not a number".into());
    };
    let now = deps.settle.clock.now();
    let Some(next) = sub.next_payment_at else {
        return ChargeOutcome::NotLive;
    };
    let period = due_period(next, sub.interval_seconds, now);
    let simulation = deps
        .keeper
        .simulate_charge(sub.chain, manager, chain_id)
        .await;
    let code = match simulation {
        Ok(ChargeSimulation::Chargeable) => {
            // Read again right before the send (D26): a portal cancel or a paused
            // recipient since the claim means no charge.
            match deps.settle.subscriptions.subscription_public(sub.id).await {
                Ok(Some(now)) if still_charges(now.subscription.status) => {}
                Ok(_) => return ChargeOutcome::NotLive,
                Err(e) => return ChargeOutcome::Error(e.to_string()),
            }
            // The keeper would move the subscriber's money: screened first (D33).
            match crate::services::screen_subscriber(&rec, deps).await {
                Ok(Subscriber::Clear) => {}
                Ok(Subscriber::Paused) => return ChargeOutcome::NotLive,
                Ok(Subscriber::Unscreened) => {
                    let until = now.plus_seconds(NOT_DUE_RETRY_SECS);
                    return match hold(rec, until, deps).await {
                        Ok(()) => ChargeOutcome::NotDue,
                        Err(e) => ChargeOutcome::Error(e),
                    };
                }
                Err(e) => return ChargeOutcome::Error(e),
            }
            return match deps
                .keeper
                .send_charge(sub.chain, manager, sub.id, chain_id, period)
                .await
            {
                Ok(tx) => ChargeOutcome::Sent(tx),
                Err(e) => ChargeOutcome::Error(e.to_string()),
            };
        }
        Ok(ChargeSimulation::NotDue) => {
            let until = now.plus_seconds(NOT_DUE_RETRY_SECS);
            return match hold(rec, until, deps).await {
                Ok(()) => ChargeOutcome::NotDue,
                Err(e) => ChargeOutcome::Error(e),
            };
        }
        Ok(ChargeSimulation::Fails(code)) => code,
        Err(_) => FailureCode::ChainUnavailable,
    };
    match record_failure(rec, period, code, None, deps).await {
        Ok(true) => ChargeOutcome::Failed(code),
        Ok(false) => ChargeOutcome::NotLive,
        Err(e) => ChargeOutcome::Error(e.to_string()),
    }
}

/// Records a failed try for `period` with the dunning transition it causes (D10): the
/// attempt, the period's `failed` payment, and `payment.failed` + `subscription.past_due`
/// / `subscription.expired` (or `subscription.canceled` when the chain says inactive).
/// False when the subscription is no longer billable (nothing written).
pub async fn record_failure(
    mut rec: SubscriptionRecord,
    period: Timestamp,
    code: FailureCode,
    tx: Option<TxHash>,
    deps: &BillingDeps<'_>,
) -> Result<bool, SettleError> {
    let store = deps.settle.subscriptions;
    for _ in 0..WRITE_ATTEMPTS {
        let sub = &rec.subscription;
        if !matches!(
            sub.status,
            SubscriptionStatus::Active | SubscriptionStatus::PastDue
        ) {
            return Ok(false);
        }
        let now = deps.settle.clock.now();
        let transition = BillingState::of(sub).charge_failed(code, now, deps.policy);
        let updated = transition.state.applied_to(sub);
        let existing = store.payment_for_period(sub.id, period).await?;
        let fails_payment = transition.events.contains(&EventType::PaymentFailed);
        let payment = match &existing {
            Some(p) => p.clone(),
            None => failed_payment(&rec, period, now),
        };
        let attempts = store.attempts_in_period(sub.id, period).await?;
        let attempt = PaymentAttempt {
            id: PaymentAttemptId::generate_at(now),
            merchant_id: sub.merchant_id,
            mode: sub.mode,
            subscription: sub.id,
            payment: (fails_payment || existing.is_some()).then_some(payment.id),
            status: AttemptStatus::Failed,
            attempt_number: attempts + 1,
            period_key: period,
            failure_code: Some(code.as_str().to_owned()),
            failure_reason: Some(code.reason().to_owned()),
            tx_hash: tx,
            created_at: now,
        };
        let events = transition
            .events
            .iter()
            .map(|t| EventDraft {
                merchant_id: sub.merchant_id,
                mode: sub.mode,
                event_type: *t,
                object_json: match t {
                    EventType::PaymentFailed => to_json(&PaymentResource::from(payment.clone())),
                    _ => to_json(&SubscriptionResource::from(updated.clone())),
                },
                created_at: now,
            })
            .collect();
        let write = BillingWrite {
            payment: (fails_payment && existing.is_none()).then(|| PaymentUpsert {
                payment: payment.clone(),
                replaces: None,
            }),
            attempt: Some(attempt),
            events,
            settles_charge_tx: tx,
            // Nothing could be tried: wait a lease before trying again.
            hold_until: (code == FailureCode::ChainUnavailable)
                .then(|| now.plus_seconds(CLAIM_LEASE_SECS)),
            // A failed charge moved no money: nothing for the ledger.
            ..BillingWrite::state_only(SubscriptionRecord {
                subscription: updated,
                ..rec.clone()
            })
        };
        match store.record_billing(&write).await? {
            SettlementWrite::Written => return Ok(true),
            SettlementWrite::Stale => match store.subscription_public(rec.subscription.id).await? {
                Some(fresh) => rec = fresh,
                None => return Ok(false),
            },
        }
    }
    Err(SettleError::Contended)
}

/// The `failed` payment record of a period nothing was collected for.
fn failed_payment(rec: &SubscriptionRecord, period: Timestamp, now: Timestamp) -> Payment {
    let sub = &rec.subscription;
    Payment {
        id: PaymentId::generate_at(now),
        merchant_id: sub.merchant_id,
        mode: sub.mode,
        status: PaymentStatus::Failed,
        charge_type: ChargeType::Recurring,
        subscription: Some(sub.id),
        customer: Some(sub.customer),
        checkout_session: None,
        customer_reference: rec.customer_reference.clone(),
        amount: sub.amount,
        currency: Currency::Usdc,
        fee_micros: rec.fee_micros,
        merchant_micros: sub.amount.micros().saturating_sub(rec.fee_micros),
        refunded_micros: 0,
        overpaid_micros: 0,
        underpaid_micros: 0,
        reversed: false,
        review: None,
        wallet_address: sub.wallet_address,
        chain: sub.chain,
        token_address: rec.token,
        // Nothing was transferred: a reverted charge's hash stays on its attempt.
        tx_hash: None,
        log_index: None,
        block_number: None,
        block_hash: None,
        period_key: Some(period),
        metadata: rec.metadata.clone(),
        created_at: now,
    }
}

/// Whether a subscription in `status` is still billed (not canceled, paused or expired).
fn still_charges(status: SubscriptionStatus) -> bool {
    matches!(
        status,
        SubscriptionStatus::Active | SubscriptionStatus::PastDue
    )
}

/// Marks a keeper charge done without changing the subscription's billing state.
async fn close_charge(
    rec: SubscriptionRecord,
    tx: TxHash,
    deps: &BillingDeps<'_>,
) -> Result<(), String> {
    unchanged_write(rec, Some(tx), None, deps).await
}

/// Keeps the claim until `until` without changing the billing state.
async fn hold(
    rec: SubscriptionRecord,
    until: Timestamp,
    deps: &BillingDeps<'_>,
) -> Result<(), String> {
    unchanged_write(rec, None, Some(until), deps).await
}

async fn unchanged_write(
    rec: SubscriptionRecord,
    tx: Option<TxHash>,
    hold_until: Option<Timestamp>,
    deps: &BillingDeps<'_>,
) -> Result<(), String> {
    let outcome = write_billing(deps.settle.subscriptions, rec, |rec| {
        Some(BillingWrite {
            settles_charge_tx: tx,
            hold_until,
            ..BillingWrite::state_only(rec.clone())
        })
    })
    .await
    .map_err(|e| e.to_string())?;
    match outcome {
        BillingWriteOutcome::Written | BillingWriteOutcome::NothingToWrite(_) => Ok(()),
        BillingWriteOutcome::Gone => Err("the subscription vanished".into()),
        BillingWriteOutcome::Contended => Err("the subscription kept changing".into()),
    }
}

mod in_flight;
pub use crate::rules::resend::REPLACE_AFTER_BLOCKS;
use in_flight::follow_in_flight;

#[cfg(test)]
mod tests;
