//! `object: "balance_transaction"` (D32): one ledger entry as the API and the export show it.

use serde::Serialize;
use utoipa::ToSchema;

use super::Resource;
use crate::model::{
    render_signed_micros, Address, BalanceTransaction, BalanceTransactionId, BalanceType, ChainId,
    Currency, PaymentId, Timestamp, TxHash,
};

#[derive(Serialize, ToSchema)]
pub struct BalanceTransactionResource {
    pub id: BalanceTransactionId,
    pub object: &'static str,
    pub livemode: bool,
    #[serde(rename = "type")]
    pub kind: BalanceType,
    /// The `pay_` or `re_` id the entry comes from (a reversal's is the payment's).
    #[schema(example = "pay_0355RGziS6Gwe8zF5hRoCU")]
    pub source: String,
    /// The payment the money belongs to (for a refund, the refunded payment).
    pub payment: PaymentId,
    /// Signed decimal string: money in positive, refunds and reversals negative.
    #[schema(example = "-3")]
    pub amount: String,
    /// The service's fee in this entry (signed like `amount`).
    pub fee: String,
    /// `amount - fee`: what the merchant's wallet gained (or lost).
    pub net: String,
    pub currency: Currency,
    pub chain_id: ChainId,
    pub token_address: Address,
    pub tx_hash: TxHash,
    pub log_index: u64,
    /// Decimal string; null only for refunds booked before the ledger existed.
    pub block_number: Option<String>,
    /// The block's timestamp; null only for entries backfilled when the ledger was added.
    pub block_time: Option<Timestamp>,
    pub created_at: Timestamp,
}

impl From<BalanceTransaction> for BalanceTransactionResource {
    fn from(e: BalanceTransaction) -> Self {
        Self {
            id: e.id,
            object: Self::OBJECT,
            livemode: e.mode.is_live(),
            kind: e.kind,
            source: e.source.to_string(),
            payment: e.payment,
            amount: render_signed_micros(e.amount_micros),
            fee: render_signed_micros(e.fee_micros),
            net: render_signed_micros(e.net_micros),
            currency: e.currency,
            chain_id: e.chain,
            token_address: e.token_address,
            tx_hash: e.tx_hash,
            log_index: e.log_index,
            block_number: e.block_number.map(|n| n.to_string()),
            block_time: e.block_time,
            created_at: e.created_at,
        }
    }
}

impl Resource for BalanceTransactionResource {
    const OBJECT: &'static str = "balance_transaction";
}
