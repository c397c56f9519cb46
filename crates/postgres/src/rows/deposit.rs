use chrono::{DateTime, Utc};
use diesel::prelude::*;
use stablepay_domain::ports::{DepositTransfer, StoreError};
use stablepay_domain::{CheckoutSessionId, PaymentId};
use uuid::Uuid;

use super::conv::*;
use crate::schema::deposit_transfers;

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = deposit_transfers, check_for_backend(diesel::pg::Pg))]
pub struct DepositTransferRow {
    pub chain_id: i32,
    pub tx_hash: String,
    pub checkout_session_id: Uuid,
    pub token_address: String,
    pub from_address: String,
    pub amount_micros: i64,
    pub log_index: i64,
    pub block_number: i64,
    pub block_hash: String,
    pub status: String,
    pub payment_id: Option<Uuid>,
    pub arrived_at: DateTime<Utc>,
    pub sweep_tx_hash: Option<String>,
    pub sweep_attempts: i32,
    pub sweep_retry_at: Option<DateTime<Utc>>,
}

pub(crate) fn deposit_transfer_row(t: &DepositTransfer) -> DepositTransferRow {
    DepositTransferRow {
        chain_id: t.chain.id() as i32,
        tx_hash: t.tx_hash.to_string(),
        checkout_session_id: t.session.uuid(),
        token_address: t.token.to_lower_hex(),
        from_address: t.from.to_lower_hex(),
        amount_micros: to_i64(t.amount_micros),
        log_index: to_i64(t.log_index),
        block_number: to_i64(t.block_number),
        block_hash: t.block_hash.to_string(),
        status: if t.confirmed { "confirmed" } else { "pending" }.to_owned(),
        payment_id: t.payment.map(|p| p.uuid()),
        arrived_at: t.arrived_at.as_datetime(),
        sweep_tx_hash: None,
        sweep_attempts: 0,
        sweep_retry_at: None,
    }
}

impl TryFrom<DepositTransferRow> for DepositTransfer {
    type Error = StoreError;

    fn try_from(r: DepositTransferRow) -> Result<Self, StoreError> {
        Ok(DepositTransfer {
            chain: chain(r.chain_id)?,
            tx_hash: tx_hash(&r.tx_hash)?,
            session: CheckoutSessionId::from_uuid(r.checkout_session_id),
            token: address(&r.token_address)?,
            from: address(&r.from_address)?,
            amount_micros: micros(r.amount_micros)?,
            log_index: micros(r.log_index)?,
            block_number: micros(r.block_number)?,
            block_hash: block_hash(&r.block_hash)?,
            confirmed: r.status == "confirmed",
            payment: r.payment_id.map(PaymentId::from_uuid),
            arrived_at: ts(r.arrived_at),
            swept_by: r.sweep_tx_hash.as_deref().map(tx_hash).transpose()?,
        })
    }
}
