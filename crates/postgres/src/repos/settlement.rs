//! Checkout settlement writes: payment, session completion, customer and outbox events in
//! one transaction, with the preconditions re-checked under row locks.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{
    BookedPayment, CheckoutSettlement, PendingPayment, Rebooking, SettlementStore, SettlementWrite,
    StoreError,
};
use stablepay_domain::{
    Address, BalanceTransaction, ChainId, CheckoutSession, CheckoutSessionId, CustomerId,
    MerchantId, Mode, Payment, PaymentId, Timestamp, TxHash,
};
use uuid::Uuid;

use super::ledger::append_entries;
use super::outbox::{write_event, OutboxError};
use crate::error::map_diesel_error;
use crate::rows::{payment_row, BalanceTransactionRow, PaymentRow, SessionRow};
use crate::schema::{
    balance_transactions as bt, chain_cursors, checkout_sessions as cs, customers, payments as p,
};
use crate::PgStore;

/// Writes a session's completion (payer, transaction, customer, subscription).
pub(crate) async fn complete_session(
    conn: &mut diesel_async::AsyncPgConnection,
    done: &CheckoutSession,
) -> Result<(), diesel::result::Error> {
    diesel::update(cs::table.filter(cs::id.eq(done.id.uuid())))
        .set((
            cs::status.eq("completed"),
            cs::wallet_address.eq(done.wallet_address.map(|a| a.to_lower_hex())),
            cs::tx_hash.eq(done.tx_hash.map(|t| t.to_string())),
            cs::completed_at.eq(done.completed_at.map(|t| t.as_datetime())),
            cs::customer_id.eq(done.customer.map(|c| c.uuid())),
            cs::subscription_id.eq(done.subscription.map(|c| c.uuid())),
            cs::underpaid_micros.eq(done.underpaid_micros.map(crate::rows::to_i64)),
        ))
        .execute(conn)
        .await?;
    Ok(())
}

#[async_trait]
impl SettlementStore for PgStore {
    async fn session_by_ref(
        &self,
        reference: [u8; 32],
    ) -> Result<Option<CheckoutSession>, StoreError> {
        let mut conn = self.conn().await?;
        let row = cs::table
            .filter(cs::session_ref.eq(reference.to_vec()))
            .select(SessionRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(CheckoutSession::try_from).transpose()
    }

    async fn payment_for_session_tx(
        &self,
        chain: ChainId,
        tx: TxHash,
        session: CheckoutSessionId,
    ) -> Result<Option<Payment>, StoreError> {
        let mut conn = self.conn().await?;
        let row = p::table
            .filter(p::chain_id.eq(chain.id() as i32))
            .filter(p::tx_hash.eq(tx.to_string()))
            .filter(p::checkout_session_id.eq(session.uuid()))
            .select(PaymentRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(Payment::try_from).transpose()
    }

    async fn customer_for(
        &self,
        merchant: MerchantId,
        mode: Mode,
        payer: Address,
    ) -> Result<CustomerId, StoreError> {
        let mut conn = self.conn().await?;
        // Insert-or-get in one statement; a concurrent insert is absorbed by ON CONFLICT.
        let now = Timestamp::new(self.now());
        diesel::insert_into(customers::table)
            .values((
                customers::id.eq(CustomerId::generate_at(now).uuid()),
                customers::merchant_id.eq(merchant.uuid()),
                customers::livemode.eq(mode.is_live()),
                customers::address.eq(payer.to_lower_hex()),
                customers::created_at.eq(now.as_datetime()),
            ))
            .on_conflict_do_nothing()
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let id: Uuid = customers::table
            .filter(customers::merchant_id.eq(merchant.uuid()))
            .filter(customers::livemode.eq(mode.is_live()))
            .filter(customers::address.eq(payer.to_lower_hex()))
            .select(customers::id)
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(CustomerId::from_uuid(id))
    }

    async fn record_checkout_settlement(
        &self,
        s: &CheckoutSettlement,
    ) -> Result<SettlementWrite, StoreError> {
        let mut conn = self.conn().await?;
        let row = payment_row(&s.payment);
        let written = conn
            .transaction(async |conn| {
                if let Some(session) = s.payment.checkout_session {
                    // Serialises the fast path, the watcher and the re-checks on this session.
                    let status: String = cs::table
                        .filter(cs::id.eq(session.uuid()))
                        .select(cs::status)
                        .for_update()
                        .first(conn)
                        .await?;
                    if s.completed_session.is_some() && status == "completed" {
                        return Ok(SettlementWrite::Stale);
                    }
                }
                // The payment of this transaction for this session, whatever its id: a
                // racing writer may have inserted it since the domain looked.
                let current: Option<(Uuid, String)> = p::table
                    .filter(p::chain_id.eq(row.chain_id))
                    .filter(p::tx_hash.eq(&row.tx_hash))
                    .filter(p::checkout_session_id.eq(row.checkout_session_id))
                    .select((p::id, p::status))
                    .first(conn)
                    .await
                    .optional()?;
                let expected = s.replaces.map(|status| (row.id, status.as_str()));
                if current.as_ref().map(|(id, st)| (*id, st.as_str())) != expected {
                    return Ok(SettlementWrite::Stale);
                }
                if current.is_none() {
                    diesel::insert_into(p::table)
                        .values(&row)
                        .execute(conn)
                        .await?;
                } else {
                    diesel::update(p::table.filter(p::id.eq(row.id)))
                        .set((
                            p::status.eq(&row.status),
                            p::log_index.eq(row.log_index),
                            p::block_number.eq(row.block_number),
                            p::block_hash.eq(&row.block_hash),
                            p::customer_id.eq(row.customer_id),
                            p::review_status.eq(&row.review_status),
                            p::review_reason.eq(&row.review_reason),
                            p::review_source.eq(&row.review_source),
                            p::receipt_misses.eq(0),
                            p::last_miss_head.eq(None::<i64>),
                        ))
                        .execute(conn)
                        .await?;
                }
                if let Some(done) = &s.completed_session {
                    complete_session(conn, done).await?;
                }
                append_entries(conn, &s.ledger).await?;
                for event in &s.events {
                    write_event(conn, event).await?;
                }
                Ok::<_, OutboxError>(SettlementWrite::Written)
            })
            .await?;
        Ok(written)
    }

    async fn record_receipt_miss(
        &self,
        payment: PaymentId,
        misses: u32,
        head: u64,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::update(p::table.filter(p::id.eq(payment.uuid())))
            .set((
                p::receipt_misses.eq(i32::try_from(misses).unwrap_or(i32::MAX)),
                p::last_miss_head.eq(head as i64),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn fail_pending_payment(&self, pending: &PendingPayment) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let payment = &pending.payment;
        // Only the record as it was read: a move (new block, misses reset) wins.
        let changed = diesel::update(
            p::table
                .filter(p::id.eq(payment.id.uuid()))
                .filter(p::status.eq("pending"))
                .filter(
                    p::block_hash.is_not_distinct_from(payment.block_hash.map(|h| h.to_string())),
                )
                .filter(
                    p::receipt_misses.eq(i32::try_from(pending.receipt_misses).unwrap_or(i32::MAX)),
                ),
        )
        .set(p::status.eq("failed"))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(changed == 1)
    }

    async fn pending_payments(
        &self,
        chain: ChainId,
        after: Option<PaymentId>,
        limit: u32,
    ) -> Result<Vec<PendingPayment>, StoreError> {
        let mut conn = self.conn().await?;
        let after = after.map_or(Uuid::nil(), |id| id.uuid());
        let rows: Vec<(PaymentRow, i32, Option<i64>)> = p::table
            .filter(p::chain_id.eq(chain.id() as i32))
            .filter(p::status.eq("pending"))
            .filter(p::charge_type.eq("one_time"))
            .filter(p::id.gt(after))
            .order(p::id.asc())
            .limit(i64::from(limit))
            .select((
                PaymentRow::as_select(),
                p::receipt_misses,
                p::last_miss_head,
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter()
            .map(|(row, misses, last)| {
                let payment = Payment::try_from(row)?;
                let (Some(tx_hash), Some(block_number)) = (payment.tx_hash, payment.block_number)
                else {
                    return Err(crate::error::corrupt(
                        "pending payment transaction",
                        payment.id,
                    ));
                };
                Ok(PendingPayment {
                    payment,
                    tx_hash,
                    block_number,
                    receipt_misses: u32::try_from(misses).unwrap_or(0),
                    last_miss_head: last.and_then(|h| u64::try_from(h).ok()),
                })
            })
            .collect()
    }

    async fn booked_payments(
        &self,
        chain: ChainId,
        from_block: u64,
        after: Option<(u64, PaymentId)>,
        limit: u32,
    ) -> Result<Vec<BookedPayment>, StoreError> {
        let mut conn = self.conn().await?;
        let (after_block, after_id) = after.map_or((-1, Uuid::nil()), |(b, id)| {
            (i64::try_from(b).unwrap_or(i64::MAX), id.uuid())
        });
        let from = i64::try_from(from_block)
            .unwrap_or(i64::MAX)
            .max(after_block);
        // The partial index payments_booked_by_block serves exactly this predicate.
        let booked = p::status
            .eq_any(["confirmed", "refunded"])
            .or(p::reversed.eq(true));
        let rows: Vec<(PaymentRow, i32, Option<i64>)> = p::table
            .filter(p::chain_id.eq(chain.id() as i32))
            .filter(booked)
            .filter(p::block_hash.is_not_null())
            .filter(p::block_number.ge(from))
            .filter(
                p::block_number
                    .gt(after_block)
                    .or(p::block_number.eq(after_block).and(p::id.gt(after_id))),
            )
            .order((p::block_number.asc(), p::id.asc()))
            .limit(i64::from(limit))
            .select((
                PaymentRow::as_select(),
                p::receipt_misses,
                p::last_miss_head,
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter()
            .map(|(row, misses, last)| {
                let payment = Payment::try_from(row)?;
                let (Some(tx_hash), Some(block_number), Some(block_hash)) =
                    (payment.tx_hash, payment.block_number, payment.block_hash)
                else {
                    return Err(crate::error::corrupt(
                        "booked payment transaction",
                        payment.id,
                    ));
                };
                Ok(BookedPayment {
                    payment,
                    tx_hash,
                    block_number,
                    block_hash,
                    receipt_misses: u32::try_from(misses).unwrap_or(0),
                    last_miss_head: last.and_then(|h| u64::try_from(h).ok()),
                })
            })
            .collect()
    }

    async fn payment_history(
        &self,
        payment: &Payment,
    ) -> Result<Vec<BalanceTransaction>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<BalanceTransactionRow> = bt::table
            .filter(bt::merchant_id.eq(payment.merchant_id.uuid()))
            .filter(bt::livemode.eq(payment.mode.is_live()))
            .filter(bt::payment_id.eq(payment.id.uuid()))
            .order((bt::created_at.asc(), bt::id.asc()))
            .select(BalanceTransactionRow::as_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(BalanceTransaction::try_from).collect()
    }

    async fn rebook_payment(&self, r: &Rebooking) -> Result<SettlementWrite, StoreError> {
        let mut conn = self.conn().await?;
        let row = payment_row(&r.payment);
        let (status, hash, reversed) = r.replaces;
        let written = conn
            .transaction(async |conn| {
                let changed = diesel::update(
                    p::table
                        .filter(p::id.eq(row.id))
                        .filter(p::merchant_id.eq(row.merchant_id))
                        .filter(p::livemode.eq(row.livemode))
                        .filter(p::status.eq(status.as_str()))
                        .filter(p::block_hash.eq(hash.to_string()))
                        .filter(p::reversed.eq(reversed)),
                )
                .set((
                    p::status.eq(&row.status),
                    p::reversed.eq(row.reversed),
                    p::log_index.eq(row.log_index),
                    p::block_number.eq(row.block_number),
                    p::block_hash.eq(&row.block_hash),
                    p::receipt_misses.eq(0),
                    p::last_miss_head.eq(None::<i64>),
                ))
                .execute(conn)
                .await?;
                if changed == 0 {
                    return Ok(SettlementWrite::Stale);
                }
                append_entries(conn, &r.ledger).await?;
                Ok::<_, diesel::result::Error>(SettlementWrite::Written)
            })
            .await
            .map_err(map_diesel_error)?;
        Ok(written)
    }

    async fn chain_cursor(&self, chain: ChainId) -> Result<Option<u64>, StoreError> {
        let mut conn = self.conn().await?;
        let next: Option<i64> = chain_cursors::table
            .filter(chain_cursors::chain_id.eq(chain.id() as i32))
            .select(chain_cursors::next_block)
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        Ok(next.map(|n| n.max(0) as u64))
    }

    async fn set_chain_cursor(&self, chain: ChainId, next_block: u64) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::insert_into(chain_cursors::table)
            .values((
                chain_cursors::chain_id.eq(chain.id() as i32),
                chain_cursors::next_block.eq(next_block as i64),
            ))
            .on_conflict(chain_cursors::chain_id)
            .do_update()
            .set((
                chain_cursors::next_block.eq(next_block as i64),
                chain_cursors::updated_at.eq(self.now()),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }
}
