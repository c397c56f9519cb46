//! How money at a session's deposit address becomes payments (D24). Pure: the watcher
//! reads the session and its transfers, this decides, one store write applies it.
//!
//! - An uncompleted session completes once the confirmed money that arrived while it was
//!   open reaches the gross: one payment of `amount` = gross covering all of that money,
//!   the excess as `overpaid`, on the transfer that reached the gross.
//! - Any other confirmed money (after completion, after expiry, or underpaid money on a
//!   session that expired) is recorded as one payment per transaction, so nothing that
//!   arrived is ever off the books.
//! - Within the session's underpayment tolerance (D32), money that reaches the least it
//!   accepts completes it too: the payment's `amount` is what arrived, and the shortfall
//!   is `underpaid`.
//! - The fee of each payment is what D24's cumulative rule adds for the money it covers,
//!   so the payments' fees sum to exactly what the forwarder pays the treasury.
//! - Another configured token is one fee-less payment per confirmed transaction.

use crate::model::{Timestamp, TxHash};
use crate::rules::deposit::fee_of_received;

/// A confirmed transfer as the books need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfirmedDeposit {
    pub tx_hash: TxHash,
    pub amount_micros: u64,
    /// Chain order: (block number, log index).
    pub position: (u64, u64),
    pub arrived_at: Timestamp,
    /// Whether a payment records it already.
    pub recorded: bool,
}

/// The session terms the books apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepositSession {
    pub gross_micros: u64,
    /// The least that completes the session: the gross less its underpayment tolerance.
    pub minimum_micros: u64,
    pub fee_bps: u16,
    pub fee_micros: u64,
    pub expires_at: Timestamp,
    /// Completed already (by an earlier deposit or a router payment).
    pub completed: bool,
    /// A transfer first seen before expiry is still below depth: an expired session waits
    /// for it, since it may yet reach the gross.
    pub pending_in_time: bool,
}

/// One payment to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedPayment {
    /// The transactions whose money it records.
    pub covers: Vec<TxHash>,
    /// The transaction whose transfer it is shown as (the one that reached the gross).
    pub shown_as: TxHash,
    pub amount_micros: u64,
    pub overpaid_micros: u64,
    /// What the session's gross lacked when this payment completed it within tolerance.
    pub underpaid_micros: u64,
    pub fee_micros: u64,
    /// Whether it completes the session.
    pub completes: bool,
}

/// The confirmed total and the payments the confirmed transfers call for, given `now`.
pub fn plan_deposit_payments(
    session: &DepositSession,
    transfers: &[ConfirmedDeposit],
    now: Timestamp,
) -> (u64, Vec<PlannedPayment>) {
    let mut ordered: Vec<&ConfirmedDeposit> = transfers.iter().collect();
    ordered.sort_by_key(|t| t.position);
    let received: u64 = ordered.iter().map(|t| t.amount_micros).sum();
    let mut recorded: u64 = ordered
        .iter()
        .filter(|t| t.recorded)
        .map(|t| t.amount_micros)
        .sum();
    let mut open: Vec<&ConfirmedDeposit> = ordered.into_iter().filter(|t| !t.recorded).collect();
    let fee_of = |total: u64| -> u64 {
        // The fee never exceeds fee_micros, a u64.
        fee_of_received(
            u128::from(total),
            session.fee_bps,
            u128::from(session.fee_micros),
        ) as u64
    };
    let mut payments = Vec::new();
    let mut completed = session.completed;
    // Completion counts only money seen while the session was open, and only while no
    // money was recorded on its own (an expired underpaid session stays expired).
    if !completed && recorded == 0 {
        let in_time: Vec<&ConfirmedDeposit> = open
            .iter()
            .copied()
            .filter(|t| t.arrived_at < session.expires_at)
            .collect();
        let mut sum = 0u64;
        let reaching = in_time.iter().find(|t| {
            sum += t.amount_micros;
            sum >= session.minimum_micros
        });
        if let Some(reaching) = reaching {
            let total: u64 = in_time.iter().map(|t| t.amount_micros).sum();
            let gross = session.gross_micros;
            payments.push(PlannedPayment {
                covers: in_time.iter().map(|t| t.tx_hash).collect(),
                shown_as: reaching.tx_hash,
                amount_micros: total.min(gross),
                overpaid_micros: total.saturating_sub(gross),
                underpaid_micros: gross.saturating_sub(total),
                fee_micros: fee_of(total),
                completes: true,
            });
            recorded = total;
            completed = true;
            open.retain(|t| !in_time.iter().any(|c| c.tx_hash == t.tx_hash));
        }
    }
    // An open, underpaid session waits for more (as does an expired one while money that
    // arrived in time is still confirming); everything else is recorded as it is.
    let waiting = recorded == 0 && session.pending_in_time;
    if completed || (now >= session.expires_at && !waiting) {
        for t in open {
            payments.push(PlannedPayment {
                covers: vec![t.tx_hash],
                shown_as: t.tx_hash,
                amount_micros: t.amount_micros,
                overpaid_micros: 0,
                underpaid_micros: 0,
                fee_micros: fee_of(recorded + t.amount_micros) - fee_of(recorded),
                completes: false,
            });
            recorded += t.amount_micros;
        }
    }
    (received, payments)
}

/// The payment of a confirmed transfer of another configured token: it carries none of
/// the session's terms, so it records what arrived, without a fee (as the forwarder pays
/// it on), and completes nothing.
pub fn other_token_payment(tx_hash: TxHash, amount_micros: u64) -> PlannedPayment {
    PlannedPayment {
        covers: vec![tx_hash],
        shown_as: tx_hash,
        amount_micros,
        overpaid_micros: 0,
        underpaid_micros: 0,
        fee_micros: 0,
        completes: false,
    }
}

#[cfg(test)]
mod tests;
