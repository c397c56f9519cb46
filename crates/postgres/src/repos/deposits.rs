//! Deposit transfers (D24): the transfer rows, the payments that book them, the session's
//! confirmed total and completion, and the events, in one transaction under the
//! session's row lock.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{
    DepositStore, DepositTransfer, DepositWrite, SettlementWrite, StoreError,
};
use stablepay_domain::{Address, ChainId, CheckoutSession, CheckoutSessionId, Timestamp};
use uuid::Uuid;

use super::ledger::append_entries;
use super::outbox::{write_event, OutboxError};
use super::settlement::complete_session;
use crate::error::map_diesel_error;
use crate::rows::{deposit_transfer_row, payment_row, to_i64, DepositTransferRow, SessionRow};
use crate::schema::{checkout_sessions as cs, deposit_transfers as dt, payments as p};
use crate::PgStore;

/// Why a deposit write rolled back.
enum WriteError {
    Outbox(OutboxError),
    /// The rows changed since the domain read them.
    Stale,
}

impl From<diesel::result::Error> for WriteError {
    fn from(e: diesel::result::Error) -> Self {
        WriteError::Outbox(OutboxError::Db(e))
    }
}

impl From<OutboxError> for WriteError {
    fn from(e: OutboxError) -> Self {
        WriteError::Outbox(e)
    }
}

async fn apply(
    conn: &mut diesel_async::AsyncPgConnection,
    w: &DepositWrite,
) -> Result<(), WriteError> {
    let (status, received): (String, i64) = cs::table
        .filter(cs::id.eq(w.session.uuid()))
        .select((cs::status, cs::amount_received_micros))
        .for_update()
        .first(conn)
        .await?;
    if received != to_i64(w.received_before)
        || (w.completed_session.is_some() && status == "completed")
    {
        return Err(WriteError::Stale);
    }
    if let Some(t) = &w.transfer {
        let row = deposit_transfer_row(t);
        // A confirmed row is final: only a pending one moves or confirms.
        let key = dt::table
            .filter(dt::chain_id.eq(row.chain_id))
            .filter(dt::tx_hash.eq(&row.tx_hash))
            .filter(dt::checkout_session_id.eq(row.checkout_session_id))
            .filter(dt::token_address.eq(&row.token_address));
        let existing: Option<String> = key
            .select(dt::status)
            .for_update()
            .first(conn)
            .await
            .optional()?;
        match existing.as_deref() {
            Some("pending") => {
                diesel::update(key)
                    .set((
                        dt::from_address.eq(&row.from_address),
                        dt::amount_micros.eq(row.amount_micros),
                        dt::log_index.eq(row.log_index),
                        dt::block_number.eq(row.block_number),
                        dt::block_hash.eq(&row.block_hash),
                        dt::status.eq(&row.status),
                    ))
                    .execute(conn)
                    .await?;
            }
            Some(_) => return Err(WriteError::Stale),
            None => {
                diesel::insert_into(dt::table)
                    .values(&row)
                    .execute(conn)
                    .await?;
            }
        }
    }
    for planned in &w.payments {
        diesel::insert_into(p::table)
            .values(&payment_row(&planned.payment))
            .execute(conn)
            .await?;
        let covers: Vec<String> = planned.covers.iter().map(|t| t.to_string()).collect();
        let booked = diesel::update(
            dt::table
                .filter(dt::checkout_session_id.eq(w.session.uuid()))
                .filter(dt::token_address.eq(planned.payment.token_address.to_lower_hex()))
                .filter(dt::tx_hash.eq_any(&covers))
                .filter(dt::status.eq("confirmed"))
                .filter(dt::payment_id.is_null()),
        )
        .set(dt::payment_id.eq(planned.payment.id.uuid()))
        .execute(conn)
        .await?;
        if booked != covers.len() {
            return Err(WriteError::Stale);
        }
    }
    diesel::update(cs::table.filter(cs::id.eq(w.session.uuid())))
        .set(cs::amount_received_micros.eq(to_i64(w.received_after)))
        .execute(conn)
        .await?;
    if let Some(done) = &w.completed_session {
        complete_session(conn, done).await?;
    }
    append_entries(conn, &w.ledger).await?;
    for event in &w.events {
        write_event(conn, event).await?;
    }
    Ok(())
}

#[async_trait]
impl DepositStore for PgStore {
    async fn session_by_deposit_address(
        &self,
        chain: ChainId,
        address: Address,
    ) -> Result<Option<CheckoutSession>, StoreError> {
        let mut conn = self.conn().await?;
        let row = cs::table
            .filter(cs::chain_id.eq(chain.id() as i32))
            .filter(cs::deposit_address.eq(address.to_lower_hex()))
            .select(SessionRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(CheckoutSession::try_from).transpose()
    }

    async fn deposit_session(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Option<CheckoutSession>, StoreError> {
        // The same read as the hosted page's: a session by id alone.
        stablepay_domain::ports::SessionRepository::get_public(self, session).await
    }

    async fn deposit_transfers(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Vec<DepositTransfer>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<DepositTransferRow> = dt::table
            .filter(dt::checkout_session_id.eq(session.uuid()))
            .select(DepositTransferRow::as_select())
            .order((dt::block_number.asc(), dt::log_index.asc()))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(DepositTransfer::try_from).collect()
    }

    async fn watched_among(
        &self,
        chain: ChainId,
        candidates: &[Address],
        since: Timestamp,
    ) -> Result<Vec<Address>, StoreError> {
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.conn().await?;
        // `checkout_sessions_deposit_address` (chain_id, deposit_address): one index probe
        // per candidate, however many sessions are open.
        let rows: Vec<Option<String>> = cs::table
            .filter(cs::chain_id.eq(chain.id() as i32))
            .filter(cs::deposit_address.eq_any(candidates.iter().map(|a| a.to_lower_hex())))
            .filter(cs::expires_at.ge(since.as_datetime()))
            .select(cs::deposit_address)
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter()
            .flatten()
            .map(|a| crate::rows::address(&a))
            .collect()
    }

    async fn record_deposit(&self, w: &DepositWrite) -> Result<SettlementWrite, StoreError> {
        let mut conn = self.conn().await?;
        let result = conn.transaction(async |conn| apply(conn, w).await).await;
        match result {
            Ok(()) => Ok(SettlementWrite::Written),
            Err(WriteError::Stale) => Ok(SettlementWrite::Stale),
            Err(WriteError::Outbox(e)) => Err(e.into()),
        }
    }

    async fn pending_deposit_transfers(
        &self,
        chain: ChainId,
        max_block: u64,
        limit: u32,
    ) -> Result<Vec<DepositTransfer>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<DepositTransferRow> = dt::table
            .filter(dt::chain_id.eq(chain.id() as i32))
            .filter(dt::status.eq("pending"))
            .filter(dt::block_number.le(to_i64(max_block)))
            .select(DepositTransferRow::as_select())
            .order(dt::block_number.asc())
            .limit(i64::from(limit))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(DepositTransfer::try_from).collect()
    }

    async fn drop_pending_deposit(&self, t: &DepositTransfer) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let deleted = diesel::delete(
            dt::table
                .filter(dt::chain_id.eq(t.chain.id() as i32))
                .filter(dt::tx_hash.eq(t.tx_hash.to_string()))
                .filter(dt::checkout_session_id.eq(t.session.uuid()))
                .filter(dt::token_address.eq(t.token.to_lower_hex()))
                .filter(dt::status.eq("pending"))
                .filter(dt::block_hash.eq(t.block_hash.to_string())),
        )
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(deleted == 1)
    }

    async fn sessions_with_unrecorded_deposits(
        &self,
        chain: ChainId,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<CheckoutSessionId>, StoreError> {
        let mut conn = self.conn().await?;
        let ids: Vec<Uuid> = dt::table
            .inner_join(cs::table.on(cs::id.eq(dt::checkout_session_id)))
            .filter(dt::chain_id.eq(chain.id() as i32))
            .filter(dt::status.eq("confirmed"))
            .filter(dt::payment_id.is_null())
            .filter(
                cs::status
                    .eq("completed")
                    .or(cs::expires_at.le(now.as_datetime())),
            )
            .select(dt::checkout_session_id)
            .distinct()
            .limit(i64::from(limit))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(ids.into_iter().map(CheckoutSessionId::from_uuid).collect())
    }
}
