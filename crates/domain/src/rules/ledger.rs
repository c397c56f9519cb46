//! D32: the ledger entries each booking makes. Pure: the use cases that book money call
//! these and hand the entries to the store with the rest of their write.

use crate::model::{
    BalanceSource, BalanceTransaction, BalanceTransactionId, BalanceType, Payment, Refund,
    Timestamp,
};

/// What kind of money in a confirmed payment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoneyIn {
    /// Pays its session (a router payment, a one-signature or x402 payment, the deposit
    /// that reached the gross, money in time that did not, another token's transfer).
    Payment,
    /// Arrived after its session completed or expired (D24): booked, completes nothing.
    LatePayment,
    /// A subscription's charge, the first one included.
    SubscriptionCharge,
}

impl MoneyIn {
    fn balance_type(self) -> BalanceType {
        match self {
            MoneyIn::Payment => BalanceType::Payment,
            MoneyIn::LatePayment => BalanceType::LatePayment,
            MoneyIn::SubscriptionCharge => BalanceType::SubscriptionCharge,
        }
    }
}

/// Micro-units as a signed ledger amount. Amounts are bounded far below `i64::MAX` by the
/// spec's limits, so saturating never happens in practice; it keeps this total.
fn signed(micros: u64) -> i64 {
    i64::try_from(micros).unwrap_or(i64::MAX)
}

/// The entries of a confirmed payment mined in a block with timestamp `block_time`: one
/// of `kind` for its amount (its fee, its net), and an `overpayment` for what it received
/// beyond its amount (D24; no fee). `None` for a payment without its transaction (only a
/// recurring charge that failed before one was sent, which moved no money).
pub fn payment_entries(
    payment: &Payment,
    kind: MoneyIn,
    block_time: Timestamp,
    now: Timestamp,
) -> Option<Vec<BalanceTransaction>> {
    let (tx_hash, log_index, block_number) =
        (payment.tx_hash?, payment.log_index?, payment.block_number?);
    let entry = |kind, amount_micros: i64, fee_micros: i64| BalanceTransaction {
        id: BalanceTransactionId::generate_at(now),
        merchant_id: payment.merchant_id,
        mode: payment.mode,
        kind,
        source: BalanceSource::Payment(payment.id),
        payment: payment.id,
        amount_micros,
        fee_micros,
        net_micros: amount_micros - fee_micros,
        currency: payment.currency,
        chain: payment.chain,
        token_address: payment.token_address,
        tx_hash,
        log_index,
        block_number: Some(block_number),
        block_time: Some(block_time),
        created_at: now,
        review: payment.review.as_ref().map(|r| r.status),
        priced: None,
    };
    let amount = signed(payment.amount.micros());
    let mut entries = vec![entry(
        kind.balance_type(),
        amount,
        signed(payment.fee_micros).min(amount),
    )];
    if payment.overpaid_micros > 0 {
        entries.push(entry(
            BalanceType::Overpayment,
            signed(payment.overpaid_micros),
            0,
        ));
    }
    Some(entries)
}

/// The entry of a refund sent in the transfer at `log_index` of a block `block_number`
/// with timestamp `block_time`: money out, no fee (the service's fee is not returned, D9).
pub fn refund_entry(
    refund: &Refund,
    log_index: u64,
    block_number: u64,
    block_time: Timestamp,
    now: Timestamp,
) -> BalanceTransaction {
    let amount = -signed(refund.amount.micros());
    BalanceTransaction {
        id: BalanceTransactionId::generate_at(now),
        merchant_id: refund.merchant_id,
        mode: refund.mode,
        kind: BalanceType::Refund,
        source: BalanceSource::Refund(refund.id),
        payment: refund.payment,
        amount_micros: amount,
        fee_micros: 0,
        net_micros: amount,
        currency: refund.currency,
        chain: refund.chain,
        token_address: refund.token_address,
        tx_hash: refund.tx_hash,
        log_index,
        block_number: Some(block_number),
        block_time: Some(block_time),
        created_at: now,
        review: None,
        priced: None,
    }
}

/// The entry that takes `entry` back out when a reorg removed its transaction: the same
/// source and transaction, every amount negated.
pub fn reversal_of(entry: &BalanceTransaction, now: Timestamp) -> BalanceTransaction {
    BalanceTransaction {
        id: BalanceTransactionId::generate_at(now),
        kind: BalanceType::Reversal,
        amount_micros: -entry.amount_micros,
        fee_micros: -entry.fee_micros,
        net_micros: -entry.net_micros,
        created_at: now,
        ..entry.clone()
    }
}

/// Where a payment's transaction is mined now: what a re-booking writes on its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinedAt {
    pub block_number: u64,
    pub block_time: Timestamp,
    pub log_index: u64,
}

/// The entries that book a payment's money now: its money-in entries (read oldest first)
/// less those a reversal took back. Refunds are entries of their own and are left out.
pub fn standing_entries(history: &[BalanceTransaction]) -> Vec<BalanceTransaction> {
    let mut standing: Vec<BalanceTransaction> = Vec::new();
    for entry in history {
        match entry.kind {
            BalanceType::Refund => {}
            BalanceType::Reversal => {
                let reversed = standing.iter().position(|s| {
                    s.amount_micros == -entry.amount_micros && s.fee_micros == -entry.fee_micros
                });
                if let Some(i) = reversed {
                    standing.remove(i);
                }
            }
            _ => standing.push(entry.clone()),
        }
    }
    standing
}

/// The reversals that take a payment's standing entries out of the ledger (its
/// transaction left the canonical chain): empty when nothing stands.
pub fn reversal_of_payment(
    history: &[BalanceTransaction],
    now: Timestamp,
) -> Vec<BalanceTransaction> {
    standing_entries(history)
        .iter()
        .map(|e| reversal_of(e, now))
        .collect()
}

/// What books a payment again where its transaction is mined now (`at`): the reversals of
/// what stands, then the entries of its first booking anew (every booking books the same
/// kinds and amounts, so a re-mined payment is a new entry and nothing is edited).
pub fn rebooking_of_payment(
    history: &[BalanceTransaction],
    at: MinedAt,
    now: Timestamp,
) -> Vec<BalanceTransaction> {
    let first_booking = history
        .iter()
        .take_while(|e| e.kind != BalanceType::Reversal)
        .filter(|e| e.kind != BalanceType::Refund);
    let mut entries = reversal_of_payment(history, now);
    entries.extend(first_booking.map(|e| BalanceTransaction {
        id: BalanceTransactionId::generate_at(now),
        log_index: at.log_index,
        block_number: Some(at.block_number),
        block_time: Some(at.block_time),
        created_at: now,
        ..e.clone()
    }));
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Amount, PaymentStatus, RefundId, RefundStatus};
    use crate::services::fixtures::settlement::{receipt, recorded, session};

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_unix_seconds(secs).expect("a valid time")
    }

    fn confirmed_payment(amount: u64, fee: u64, overpaid: u64) -> Payment {
        let s = session();
        let mut p = recorded(&s, &receipt(&s), PaymentStatus::Confirmed);
        p.amount = Amount::from_micros(amount).unwrap();
        p.fee_micros = fee;
        p.overpaid_micros = overpaid;
        p.merchant_micros = amount + overpaid - fee;
        p.log_index = Some(2);
        p
    }

    #[test]
    fn a_payment_is_one_entry_with_its_fee_and_net() {
        let p = confirmed_payment(10_000_000, 100_000, 0);
        let entries = payment_entries(&p, MoneyIn::Payment, at(1_000), at(1_005)).unwrap();
        assert_eq!(entries.len(), 1);
        let e = &entries[0];
        assert_eq!(e.kind, BalanceType::Payment);
        assert_eq!(e.source, BalanceSource::Payment(p.id));
        assert_eq!(
            (e.amount_micros, e.fee_micros, e.net_micros),
            (10_000_000, 100_000, 9_900_000)
        );
        assert_eq!((e.tx_hash, e.log_index), (p.tx_hash.unwrap(), 2));
        assert_eq!(e.block_time, Some(at(1_000)));
        assert_eq!(e.created_at, at(1_005));
    }

    #[test]
    fn an_overpaid_deposit_books_the_excess_apart_and_the_nets_add_up_to_the_payments() {
        let p = confirmed_payment(20_000_000, 200_000, 1_000_000);
        let entries = payment_entries(&p, MoneyIn::Payment, at(1), at(2)).unwrap();
        let kinds: Vec<_> = entries.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [BalanceType::Payment, BalanceType::Overpayment]);
        assert_eq!(
            (entries[1].amount_micros, entries[1].fee_micros),
            (1_000_000, 0)
        );
        let net: i64 = entries.iter().map(|e| e.net_micros).sum();
        assert_eq!(net, p.merchant_micros as i64);
        let gross: i64 = entries.iter().map(|e| e.amount_micros).sum();
        assert_eq!(gross, p.received_micros() as i64);
        assert!(entries
            .iter()
            .all(|e| e.amount_micros == e.fee_micros + e.net_micros));
    }

    #[test]
    fn late_money_and_charges_keep_their_kind() {
        let p = confirmed_payment(5_000_000, 50_000, 0);
        let late = payment_entries(&p, MoneyIn::LatePayment, at(1), at(2)).unwrap();
        assert_eq!(late[0].kind, BalanceType::LatePayment);
        let charge = payment_entries(&p, MoneyIn::SubscriptionCharge, at(1), at(2)).unwrap();
        assert_eq!(charge[0].kind, BalanceType::SubscriptionCharge);
    }

    #[test]
    fn a_payment_without_its_transaction_books_nothing() {
        let mut p = confirmed_payment(5_000_000, 50_000, 0);
        p.status = PaymentStatus::Failed;
        p.tx_hash = None;
        assert_eq!(payment_entries(&p, MoneyIn::Payment, at(1), at(2)), None);
    }

    #[test]
    fn a_refund_is_money_out_without_a_fee() {
        let p = confirmed_payment(10_000_000, 100_000, 0);
        let refund = Refund {
            id: RefundId::generate(),
            merchant_id: p.merchant_id,
            mode: p.mode,
            status: RefundStatus::Succeeded,
            payment: p.id,
            amount: Amount::from_micros(3_000_000).unwrap(),
            currency: p.currency,
            chain: p.chain,
            token_address: p.token_address,
            from_address: p.wallet_address,
            to_address: p.wallet_address,
            tx_hash: p.tx_hash.unwrap(),
            reason: None,
            created_at: at(5),
        };
        let e = refund_entry(&refund, 4, 99, at(3), at(5));
        assert_eq!(e.kind, BalanceType::Refund);
        assert_eq!(e.source, BalanceSource::Refund(refund.id));
        assert_eq!(e.payment, p.id);
        assert_eq!(
            (e.amount_micros, e.fee_micros, e.net_micros),
            (-3_000_000, 0, -3_000_000)
        );
        assert_eq!((e.log_index, e.block_number), (4, Some(99)));
    }

    #[test]
    fn a_reversal_negates_every_amount_of_the_entry_it_takes_back() {
        let p = confirmed_payment(10_000_000, 100_000, 0);
        let entry = payment_entries(&p, MoneyIn::Payment, at(1), at(2)).unwrap()[0].clone();
        let r = reversal_of(&entry, at(9));
        assert_eq!(r.kind, BalanceType::Reversal);
        assert_ne!(r.id, entry.id);
        assert_eq!((r.source, r.tx_hash), (entry.source, entry.tx_hash));
        assert_eq!(
            (r.amount_micros, r.fee_micros, r.net_micros),
            (-10_000_000, -100_000, -9_900_000)
        );
        assert_eq!(r.created_at, at(9));
    }

    #[test]
    fn a_reorg_reverses_what_stands_and_a_re_mined_payment_is_booked_anew() {
        let p = confirmed_payment(20_000_000, 200_000, 1_000_000);
        let mut history = payment_entries(&p, MoneyIn::Payment, at(1), at(2)).unwrap();
        assert_eq!(standing_entries(&history).len(), 2);

        // Taken out: two reversals, nothing stands, the net is zero.
        let reversed = reversal_of_payment(&history, at(3));
        assert!(reversed.iter().all(|e| e.kind == BalanceType::Reversal));
        history.extend(reversed);
        assert!(standing_entries(&history).is_empty());
        assert_eq!(history.iter().map(|e| e.net_micros).sum::<i64>(), 0);
        assert!(reversal_of_payment(&history, at(4)).is_empty());

        // Mined again: the first booking anew at the new block, nothing to reverse.
        let at_new = MinedAt {
            block_number: 120,
            block_time: at(50),
            log_index: 7,
        };
        let again = rebooking_of_payment(&history, at_new, at(51));
        let kinds: Vec<_> = again.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [BalanceType::Payment, BalanceType::Overpayment]);
        assert!(again
            .iter()
            .all(|e| (e.block_number, e.log_index) == (Some(120), 7)));
        history.extend(again);
        assert_eq!(
            history.iter().map(|e| e.net_micros).sum::<i64>(),
            p.merchant_micros as i64
        );

        // Moved while it stood: reversals and new entries in one booking.
        let moved = rebooking_of_payment(
            &history,
            MinedAt {
                block_number: 121,
                ..at_new
            },
            at(60),
        );
        let kinds: Vec<_> = moved.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                BalanceType::Reversal,
                BalanceType::Reversal,
                BalanceType::Payment,
                BalanceType::Overpayment
            ]
        );
        history.extend(moved);
        let standing = standing_entries(&history);
        assert!(standing.iter().all(|e| e.block_number == Some(121)));
        assert_eq!(
            history.iter().map(|e| e.net_micros).sum::<i64>(),
            p.merchant_micros as i64
        );
    }

    #[test]
    fn refunds_neither_stand_nor_get_reversed_with_the_payment() {
        let p = confirmed_payment(10_000_000, 100_000, 0);
        let mut history = payment_entries(&p, MoneyIn::LatePayment, at(1), at(2)).unwrap();
        let mut refund = history[0].clone();
        refund.kind = BalanceType::Refund;
        refund.amount_micros = -1_000_000;
        refund.fee_micros = 0;
        refund.net_micros = -1_000_000;
        history.push(refund);
        let standing = standing_entries(&history);
        assert_eq!(standing.len(), 1);
        assert_eq!(standing[0].kind, BalanceType::LatePayment);
    }
}
