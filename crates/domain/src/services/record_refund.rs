//! POST /refunds (spec "Refunds", D9): verify a merchant's on-chain refund transfer and
//! record it; the same transfer re-reported returns the existing refund.

use crate::deployment::ChainDirectory;
use crate::model::{
    Amount, AuditAction, AuditEvent, AuthContext, Changer, EventType, FieldError, Missing,
    PaymentId, PaymentStatus, Refund, RefundId, RefundRequestId, RefundRequestStatus, RefundStatus,
    TxHash, ValidationErrors,
};
use crate::ports::{
    ChainError, ChainReader, Clock, EventDraft, RefundRecord, RefundRequestStore, RefundStore,
    RefundWrite, ResourceReader, StoreError, WalletRepository,
};
use crate::representation::PaymentResource;
use crate::rules::confirmations::{confirmations, is_confirmed};
use crate::rules::ledger::refund_entry;
use crate::services::book_ledger::block_time_of;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRefund {
    pub payment: PaymentId,
    pub tx_hash: TxHash,
    pub amount: Option<Amount>,
    pub reason: Option<String>,
    /// The refund request this refund pays (D32): the transfer must then go to the
    /// address the customer confirmed, not to the payer.
    pub refund_request: Option<RefundRequestId>,
}

#[derive(Debug, thiserror::Error)]
pub enum RefundError {
    #[error(transparent)]
    PaymentNotFound(Missing),
    #[error(transparent)]
    Rejected(ValidationErrors),
    #[error("the chain could not be reached; retry shortly")]
    ChainUnavailable,
    /// This deployment has no contracts configured for the payment's chain.
    #[error("refunds on chain {0} are not available on this deployment")]
    ChainNotConfigured(u64),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Created (201) or an idempotent re-report of the same transfer (200).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefundOutcome {
    Created(Refund),
    Existing(Refund),
}

pub struct RefundDeps<'a> {
    pub reader: &'a dyn ResourceReader,
    pub wallets: &'a dyn WalletRepository,
    pub refunds: &'a dyn RefundStore,
    pub requests: &'a dyn RefundRequestStore,
    pub chain: &'a dyn ChainReader,
    pub clock: &'a dyn Clock,
    pub chains: &'a ChainDirectory,
}

fn reject(field: &str, message: impl Into<String>) -> RefundError {
    RefundError::Rejected(ValidationErrors(vec![FieldError::new(field, message)]))
}

fn chain_err(e: ChainError) -> RefundError {
    match e {
        ChainError::NotConfigured(id) => reject(
            "tx_hash",
            format!("chain {id} is not configured for refunds"),
        ),
        ChainError::Unavailable(_) => RefundError::ChainUnavailable,
    }
}

pub async fn record_refund(
    ctx: &AuthContext,
    req: NewRefund,
    by: &Changer,
    deps: &RefundDeps<'_>,
) -> Result<RefundOutcome, RefundError> {
    // A race with another refund of the same payment (or of the same transfer) is retried
    // from fresh state: the re-read finds the winner's refund or the new refunded total.
    for _ in 0..5 {
        if let Some(outcome) = attempt(ctx, &req, by, deps).await? {
            return Ok(outcome);
        }
    }
    Err(RefundError::Store(StoreError::Contended))
}

/// One read-check-write pass; `None` when a concurrent write won and the pass must be
/// retried from fresh state.
async fn attempt(
    ctx: &AuthContext,
    req: &NewRefund,
    by: &Changer,
    deps: &RefundDeps<'_>,
) -> Result<Option<RefundOutcome>, RefundError> {
    let payment = deps
        .reader
        .payment(ctx.merchant_id, ctx.mode, req.payment)
        .await?
        .ok_or_else(|| RefundError::PaymentNotFound(Missing::of(req.payment)))?;
    let already = deps
        .refunds
        .refunds_by_tx(payment.chain, req.tx_hash)
        .await?;
    if let Some((existing, _)) = already.iter().find(|(r, _)| r.payment == payment.id) {
        return Ok(Some(RefundOutcome::Existing(existing.clone())));
    }
    if !payment.takes_refunds() {
        return Err(reject(
            "payment",
            format!(
                "is {}; only confirmed payments can be refunded",
                payment.status.as_str()
            ),
        ));
    }
    // Where the money must go: the payer, or the address the customer confirmed.
    let requested = match req.refund_request {
        None => None,
        Some(id) => Some(refund_request_for(ctx, &payment, id, deps).await?),
    };
    let destination = requested
        .as_ref()
        .and_then(|r| r.destination_address)
        .unwrap_or(payment.wallet_address);
    let receipt = deps
        .chain
        .receipt(payment.chain, req.tx_hash)
        .await
        .map_err(chain_err)?;
    let Some(receipt) = receipt else {
        return Err(reject(
            "tx_hash",
            "was not found on the payment's chain (yet); report it again once it is mined",
        ));
    };
    if !receipt.succeeded {
        return Err(reject("tx_hash", "reverted on chain"));
    }
    let depth = deps
        .chains
        .get(payment.chain)
        .ok_or(RefundError::ChainNotConfigured(payment.chain.id()))?
        .confirmations;
    let head = deps
        .chain
        .block_number(payment.chain)
        .await
        .map_err(chain_err)?;
    if !is_confirmed(head, receipt.block_number, depth) {
        let confirmations = confirmations(head, receipt.block_number);
        return Err(reject(
            "tx_hash",
            format!("has {confirmations} of {depth} confirmations; report it again shortly"),
        ));
    }
    let of_token: Vec<_> = receipt
        .transfers
        .iter()
        .filter(|t| t.token == payment.token_address)
        .collect();
    if of_token.is_empty() {
        return Err(reject(
            "tx_hash",
            format!(
                "has no transfer of the payment's token {}",
                payment.token_address
            ),
        ));
    }
    let to_payer: Vec<_> = of_token.iter().filter(|t| t.to == destination).collect();
    if to_payer.is_empty() {
        return Err(reject(
            "tx_hash",
            match requested {
                Some(_) => format!(
                    "does not transfer to {destination}, the address the customer confirmed for the refund request"
                ),
                None => format!("does not transfer to the payer {destination}"),
            },
        ));
    }
    let verified = deps.wallets.verified(ctx.merchant_id).await?;
    let from_wallet: Vec<_> = to_payer
        .iter()
        .filter(|t| verified.iter().any(|w| w.address == t.from))
        .collect();
    if from_wallet.is_empty() {
        return Err(reject(
            "tx_hash",
            "is not sent from one of this account's verified settlement wallets",
        ));
    }
    let unused: Vec<_> = from_wallet
        .iter()
        .filter(|t| !already.iter().any(|(_, log)| *log == t.log_index))
        .collect();
    let transfer = match (req.amount, unused.as_slice()) {
        (_, []) => {
            return Err(reject(
                "tx_hash",
                "already backs a refund of another payment",
            ))
        }
        (Some(amount), candidates) => *candidates
            .iter()
            .find(|t| t.value == u128::from(amount.micros()))
            .ok_or_else(|| {
                reject(
                    "amount",
                    format!(
                        "must equal the on-chain transfer amount ({})",
                        crate::model::render_micros(
                            u64::try_from(candidates[0].value).unwrap_or(u64::MAX)
                        )
                    ),
                )
            })?,
        (None, [first, ..]) => *first,
    };
    let value = u64::try_from(transfer.value)
        .ok()
        .and_then(|v| Amount::from_micros(v).ok())
        .ok_or_else(|| reject("tx_hash", "transfers an invalid amount"))?;
    if let Some(r) = requested.as_ref().filter(|r| value > r.amount) {
        return Err(reject(
            if req.amount.is_some() {
                "amount"
            } else {
                "tx_hash"
            },
            format!(
                "{value} exceeds the {} the refund request asks for",
                r.amount
            ),
        ));
    }
    let refundable = payment.refundable_micros();
    if value.micros() > refundable {
        return Err(reject(
            if req.amount.is_some() {
                "amount"
            } else {
                "tx_hash"
            },
            format!(
                "{} exceeds the refundable amount {}",
                value,
                crate::model::render_micros(refundable)
            ),
        ));
    }
    let now = deps.clock.now();
    let refunded = payment.refunded_micros + value.micros();
    let payment_after = crate::model::Payment {
        refunded_micros: refunded,
        status: if refunded == payment.received_micros() {
            PaymentStatus::Refunded
        } else {
            payment.status
        },
        ..payment.clone()
    };
    let refund = Refund {
        id: RefundId::generate_at(now),
        merchant_id: ctx.merchant_id,
        mode: ctx.mode,
        status: RefundStatus::Succeeded,
        payment: payment.id,
        amount: value,
        currency: payment.currency,
        chain: payment.chain,
        token_address: payment.token_address,
        from_address: transfer.from,
        to_address: transfer.to,
        tx_hash: req.tx_hash,
        reason: req.reason.clone(),
        created_at: now,
    };
    let event = EventDraft {
        merchant_id: ctx.merchant_id,
        mode: ctx.mode,
        event_type: EventType::PaymentRefunded,
        object_json: serde_json::to_string(&PaymentResource::from(payment_after.clone()))
            .unwrap_or_else(|_| "{}".into()),
        created_at: now,
    };
    let mined = block_time_of(deps.chain, payment.chain, receipt.block_hash)
        .await
        .map_err(chain_err)?;
    let record = RefundRecord {
        ledger: refund_entry(
            &refund,
            transfer.log_index,
            receipt.block_number,
            mined,
            now,
        ),
        refund: refund.clone(),
        log_index: transfer.log_index,
        expected_refunded_micros: payment.refunded_micros,
        payment_after,
        event,
        request: req.refund_request,
        audit: AuditEvent::of(
            by,
            ctx.merchant_id,
            Some(ctx.mode),
            AuditAction::RefundReported,
            refund.id,
            now,
        )
        .after(serde_json::json!({
            "payment": refund.payment.to_string(),
            "amount": refund.amount.to_string(),
            "currency": refund.currency.as_str(),
            "to_address": refund.to_address.to_string(),
            "tx_hash": refund.tx_hash.to_string(),
        })),
    };
    match deps.refunds.record_refund(&record).await? {
        RefundWrite::Recorded => Ok(Some(RefundOutcome::Created(refund))),
        RefundWrite::PaymentChanged | RefundWrite::TransferTaken | RefundWrite::RequestChanged => {
            Ok(None)
        }
    }
}

/// The refund request a refund names, if it can be paid now: this merchant's and mode's,
/// for this payment, its address confirmed and not expired.
async fn refund_request_for(
    ctx: &AuthContext,
    payment: &crate::model::Payment,
    id: RefundRequestId,
    deps: &RefundDeps<'_>,
) -> Result<crate::model::RefundRequest, RefundError> {
    let request = deps
        .requests
        .request(ctx.merchant_id, ctx.mode, id)
        .await?
        .ok_or_else(|| reject("refund_request", format!("no such refund request: '{id}'")))?;
    if request.payment != payment.id {
        return Err(reject(
            "refund_request",
            format!("is for payment {}, not {}", request.payment, payment.id),
        ));
    }
    match request.status_at(deps.clock.now()) {
        RefundRequestStatus::AddressConfirmed => Ok(request),
        RefundRequestStatus::AwaitingAddress => Err(reject(
            "refund_request",
            "still waits for the customer to confirm an address; send them its url",
        )),
        RefundRequestStatus::Refunded => Err(reject("refund_request", "was refunded already")),
        RefundRequestStatus::Expired => Err(reject(
            "refund_request",
            "has expired; create a new refund request",
        )),
    }
}
