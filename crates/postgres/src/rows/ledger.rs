//! The ledger's row (D32): inserted beside the booking it records, never updated.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use stablepay_domain::ports::StoreError;
use stablepay_domain::*;
use uuid::Uuid;

use super::conv::*;
use crate::schema::balance_transactions;

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = balance_transactions, check_for_backend(diesel::pg::Pg))]
pub struct BalanceTransactionRow {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub livemode: bool,
    #[diesel(column_name = type_)]
    pub kind: String,
    pub payment_id: Uuid,
    pub refund_id: Option<Uuid>,
    pub amount_micros: i64,
    pub fee_micros: i64,
    pub net_micros: i64,
    pub currency: String,
    pub chain_id: i32,
    pub token_address: String,
    pub tx_hash: String,
    pub log_index: i64,
    pub block_number: Option<i64>,
    pub block_time: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl From<&BalanceTransaction> for BalanceTransactionRow {
    fn from(e: &BalanceTransaction) -> Self {
        Self {
            id: e.id.uuid(),
            merchant_id: e.merchant_id.uuid(),
            livemode: e.mode.is_live(),
            kind: e.kind.as_str().to_owned(),
            payment_id: e.payment.uuid(),
            refund_id: match e.source {
                BalanceSource::Refund(id) => Some(id.uuid()),
                BalanceSource::Payment(_) => None,
            },
            amount_micros: e.amount_micros,
            fee_micros: e.fee_micros,
            net_micros: e.net_micros,
            currency: e.currency.as_str().to_owned(),
            chain_id: e.chain.id() as i32,
            token_address: e.token_address.to_lower_hex(),
            tx_hash: e.tx_hash.to_string(),
            log_index: to_i64(e.log_index),
            block_number: e.block_number.map(to_i64),
            block_time: e.block_time.map(|t| t.as_datetime()),
            created_at: e.created_at.as_datetime(),
        }
    }
}

impl TryFrom<BalanceTransactionRow> for BalanceTransaction {
    type Error = StoreError;

    fn try_from(r: BalanceTransactionRow) -> Result<Self, StoreError> {
        let payment = PaymentId::from_uuid(r.payment_id);
        Ok(BalanceTransaction {
            id: BalanceTransactionId::from_uuid(r.id),
            merchant_id: MerchantId::from_uuid(r.merchant_id),
            mode: Mode::from_livemode(r.livemode),
            kind: parse_enum("balance transaction type", &r.kind, BalanceType::parse)?,
            source: r.refund_id.map_or(BalanceSource::Payment(payment), |id| {
                BalanceSource::Refund(RefundId::from_uuid(id))
            }),
            payment,
            amount_micros: r.amount_micros,
            fee_micros: r.fee_micros,
            net_micros: r.net_micros,
            currency: currency(&r.currency)?,
            chain: chain(r.chain_id)?,
            token_address: address(&r.token_address)?,
            tx_hash: tx_hash(&r.tx_hash)?,
            log_index: micros(r.log_index)?,
            block_number: r.block_number.map(micros).transpose()?,
            block_time: ts_opt(r.block_time),
            created_at: ts(r.created_at),
            review: None,
            priced: None,
        })
    }
}
