//! The one place a verified router payment becomes a payment, a completed session and
//! their events (D8). Used by the hosted page's fast path and by the chain watcher; the
//! store re-checks under row locks, so a race between them settles exactly once.

use crate::model::{
    Address, ChainId, ChargeType, CheckoutSession, EventType, Payment, PaymentId, PaymentStatus,
    SessionStatus, TxHash,
};
use crate::ports::{
    ChainError, ChainReader, ChainReceipt, CheckoutPaid, CheckoutSettlement, Clock, EventDraft,
    SettlementStore, StoreError,
};
use crate::representation::{CheckoutSessionResource, PaymentResource};
use crate::services::ChainDirectory;

#[derive(Debug, thiserror::Error)]
pub enum SettleError {
    #[error("chain {0} has no checkout router configured")]
    ChainNotConfigured(u64),
    #[error(transparent)]
    Chain(#[from] ChainError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What happened to one `CheckoutPaid` log of the transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettleOutcome {
    /// The transaction is not (yet) known to the node.
    NotFound,
    /// Recorded below confirmation depth.
    Pending(PaymentId),
    /// Confirmed: the session is complete and the events are written.
    Confirmed(PaymentId),
    /// Already at this state (the other path won, or nothing changed).
    AlreadyRecorded(PaymentId),
    /// A router log that does not match its session (or no session): nothing recorded.
    Rejected(String),
    /// A pending payment whose transaction reverted or vanished.
    Failed(PaymentId),
}

pub struct SettleDeps<'a> {
    pub chain: &'a dyn ChainReader,
    pub store: &'a dyn SettlementStore,
    pub clock: &'a dyn Clock,
    pub chains: &'a ChainDirectory,
}

/// Checks the on-chain facts against the session snapshot: emitter, status, token,
/// recipient, exact amounts, and both Transfer legs.
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
    let leg = |to, value: u128| {
        receipt.transfers.iter().any(|t| {
            t.token == session.token_address
                && t.from == log.payer
                && t.to == to
                && t.value == value
        })
    };
    if !leg(session.recipient_address, log.net_amount) {
        return Err("no Transfer of the net amount to the recipient".into());
    }
    if log.fee_amount > 0 && !leg(treasury, log.fee_amount) {
        return Err("no Transfer of the fee to the treasury".into());
    }
    Ok(())
}

pub async fn settle_checkout(
    chain: ChainId,
    tx: TxHash,
    deps: &SettleDeps<'_>,
) -> Result<Vec<SettleOutcome>, SettleError> {
    let Some(receipt) = deps.chain.receipt(chain, tx).await? else {
        return Ok(vec![SettleOutcome::NotFound]);
    };
    let head = deps.chain.block_number(chain).await?;
    settle_receipt(chain, &receipt, head, deps).await
}

/// Settles every router payment of an already-fetched receipt, given the chain head.
/// A stale head only delays confirmation, so callers may reuse one head for many receipts.
pub async fn settle_receipt(
    chain: ChainId,
    receipt: &ChainReceipt,
    head: u64,
    deps: &SettleDeps<'_>,
) -> Result<Vec<SettleOutcome>, SettleError> {
    let contracts = *deps
        .chains
        .get(chain)
        .ok_or(SettleError::ChainNotConfigured(chain.id()))?;
    let confirmed = head + 1 >= receipt.block_number + contracts.confirmations;
    let mut outcomes = Vec::new();
    for log in receipt
        .checkout_paid
        .iter()
        .filter(|l| l.router == contracts.checkout_router)
    {
        outcomes.push(settle_log(chain, receipt, log, confirmed, contracts.treasury, deps).await?);
    }
    if outcomes.is_empty() {
        outcomes.push(SettleOutcome::Rejected(
            "the transaction has no CheckoutPaid event from the router".into(),
        ));
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
        .payment_by_log(chain, receipt.tx_hash, log.log_index)
        .await?;
    if let Some(p) = &existing {
        if p.status != PaymentStatus::Pending || !confirmed {
            return Ok(SettleOutcome::AlreadyRecorded(p.id));
        }
    }
    let now = deps.clock.now();
    let customer = deps
        .store
        .customer_for(session.merchant_id, session.mode, log.payer)
        .await?;
    let payment = Payment {
        id: existing.as_ref().map_or_else(PaymentId::generate, |p| p.id),
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
        wallet_address: log.payer,
        chain,
        token_address: session.token_address,
        tx_hash: receipt.tx_hash,
        log_index: log.log_index,
        block_number: receipt.block_number,
        metadata: session.metadata.clone(),
        created_at: existing.as_ref().map_or(now, |p| p.created_at),
    };
    let mut events = Vec::new();
    let completed_session = confirmed.then(|| {
        // Money is never dropped: a late payment completes an expired session too.
        let completed = CheckoutSession {
            status: SessionStatus::Completed,
            wallet_address: Some(log.payer),
            tx_hash: Some(receipt.tx_hash),
            completed_at: Some(now),
            customer: Some(customer),
            ..session.clone()
        };
        let draft = |event_type, object_json| EventDraft {
            merchant_id: session.merchant_id,
            mode: session.mode,
            event_type,
            object_json,
            created_at: now,
        };
        events.push(draft(
            EventType::CheckoutSessionCompleted,
            to_json(&CheckoutSessionResource::new(completed.clone(), "")),
        ));
        events.push(draft(
            EventType::PaymentSucceeded,
            to_json(&PaymentResource::from(payment.clone())),
        ));
        completed
    });
    let settlement = CheckoutSettlement {
        payment: payment.clone(),
        upgrades_pending: existing.is_some(),
        completed_session,
        events,
    };
    if !deps.store.record_checkout_settlement(&settlement).await? {
        return Ok(SettleOutcome::AlreadyRecorded(payment.id));
    }
    Ok(if confirmed {
        SettleOutcome::Confirmed(payment.id)
    } else {
        SettleOutcome::Pending(payment.id)
    })
}

/// Re-checks a pending payment (one receipt fetch): confirms it at depth, fails it if its transaction
/// reverted or disappeared (reorg).
pub async fn recheck_pending_payment(
    payment: &Payment,
    head: u64,
    deps: &SettleDeps<'_>,
) -> Result<SettleOutcome, SettleError> {
    match deps.chain.receipt(payment.chain, payment.tx_hash).await? {
        Some(r) if r.succeeded => {
            let outcomes = settle_receipt(payment.chain, &r, head, deps).await?;
            Ok(outcomes
                .into_iter()
                .next()
                .unwrap_or(SettleOutcome::AlreadyRecorded(payment.id)))
        }
        _ => {
            deps.store.fail_pending_payment(payment).await?;
            Ok(SettleOutcome::Failed(payment.id))
        }
    }
}

fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "{}".to_owned())
}
