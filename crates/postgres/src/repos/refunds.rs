//! Refund writes: the payment row is locked, its refunded total re-checked, then refund,
//! payment update and `payment.refunded` event commit together (no race can exceed gross).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{RefundRecord, RefundStore, RefundWrite, StoreError};
use stablepay_domain::{ChainId, Refund, TxHash};

use super::ledger::append_entries;
use super::outbox::{write_event, OutboxError};
use crate::error::map_diesel_error;
use crate::rows::{to_i64, RefundRow};
use crate::schema::{payments as p, refund_requests as rr, refunds as r};
use crate::PgStore;

#[async_trait]
impl RefundStore for PgStore {
    async fn refunds_by_tx(
        &self,
        chain: ChainId,
        tx: TxHash,
    ) -> Result<Vec<(Refund, u64)>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<RefundRow> = r::table
            .filter(r::chain_id.eq(chain.id() as i32))
            .filter(r::tx_hash.eq(tx.to_string()))
            .select(RefundRow::as_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter()
            .map(|row| {
                let log = u64::try_from(row.log_index).unwrap_or(0);
                Refund::try_from(row).map(|refund| (refund, log))
            })
            .collect()
    }

    async fn record_refund(&self, rec: &RefundRecord) -> Result<RefundWrite, StoreError> {
        let f = &rec.refund;
        let row = RefundRow {
            id: f.id.uuid(),
            merchant_id: f.merchant_id.uuid(),
            livemode: f.mode.is_live(),
            status: f.status.as_str().to_owned(),
            payment_id: f.payment.uuid(),
            amount_micros: to_i64(f.amount.micros()),
            currency: f.currency.as_str().to_owned(),
            chain_id: f.chain.id() as i32,
            token_address: f.token_address.to_lower_hex(),
            from_address: f.from_address.to_lower_hex(),
            to_address: f.to_address.to_lower_hex(),
            tx_hash: f.tx_hash.to_string(),
            log_index: to_i64(rec.log_index),
            reason: f.reason.clone(),
            created_at: f.created_at.as_datetime(),
        };
        let after = &rec.payment_after;
        let mut conn = self.conn().await?;
        conn.transaction(async |conn| {
            let refunded: i64 = p::table
                .filter(p::id.eq(f.payment.uuid()))
                .select(p::refunded_micros)
                .for_update()
                .first(conn)
                .await?;
            if refunded != to_i64(rec.expected_refunded_micros) {
                return Ok::<_, OutboxError>(RefundWrite::PaymentChanged);
            }
            // The request it pays must still wait for it, under the request's lock.
            if let Some(request) = rec.request {
                let waiting: Option<uuid::Uuid> = rr::table
                    .filter(rr::id.eq(request.uuid()))
                    .filter(rr::status.eq("address_confirmed"))
                    .filter(rr::expires_at.gt(f.created_at.as_datetime()))
                    .select(rr::id)
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                if waiting.is_none() {
                    return Ok(RefundWrite::RequestChanged);
                }
            }
            let inserted = diesel::insert_into(r::table)
                .values(&row)
                .on_conflict((r::chain_id, r::tx_hash, r::log_index))
                .do_nothing()
                .execute(conn)
                .await?;
            if inserted == 0 {
                return Ok(RefundWrite::TransferTaken);
            }
            diesel::update(p::table.filter(p::id.eq(f.payment.uuid())))
                .set((
                    p::refunded_micros.eq(to_i64(after.refunded_micros)),
                    p::status.eq(after.status.as_str()),
                ))
                .execute(conn)
                .await?;
            if let Some(request) = rec.request {
                diesel::update(rr::table.filter(rr::id.eq(request.uuid())))
                    .set((
                        rr::status.eq("refunded"),
                        rr::refund_id.eq(f.id.uuid()),
                        rr::refunded_at.eq(f.created_at.as_datetime()),
                    ))
                    .execute(conn)
                    .await?;
            }
            append_entries(conn, std::slice::from_ref(&rec.ledger)).await?;
            crate::repos::audit::record(conn, &rec.audit).await?;
            write_event(conn, &rec.event).await?;
            Ok::<_, OutboxError>(RefundWrite::Recorded)
        })
        .await
        .map_err(StoreError::from)
    }
}
