//! The ledger (D32): every movement of money through the service as an append-only
//! balance transaction. Nothing in it is edited or deleted; a reorg that takes money out
//! adds a reversal, and money mined again is a new entry.

use super::read_models::status_enum;
use super::{
    Address, BalanceTransactionId, ChainId, Currency, MerchantId, Mode, PaymentId, RefundId,
    Timestamp, TxHash,
};

status_enum!(/// D32: what moved.
BalanceType {
    Payment => "payment",
    Overpayment => "overpayment",
    LatePayment => "late_payment",
    SubscriptionCharge => "subscription_charge",
    Refund => "refund",
    Reversal => "reversal",
});

/// The object an entry comes from: a payment (money in, its overpayment, its reversal) or a
/// refund.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BalanceSource {
    Payment(PaymentId),
    Refund(RefundId),
}

impl BalanceSource {
    /// A `pay_` or `re_` id.
    pub fn parse(s: &str) -> Option<Self> {
        use super::TypedId;
        PaymentId::parse_str(s)
            .map(BalanceSource::Payment)
            .or_else(|_| RefundId::parse_str(s).map(BalanceSource::Refund))
            .ok()
    }
}

impl utoipa::PartialSchema for BalanceSource {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::OneOfBuilder::new()
            .item(<PaymentId as utoipa::PartialSchema>::schema())
            .item(<RefundId as utoipa::PartialSchema>::schema())
            .description(Some("A `pay_` or `re_` id."))
            .into()
    }
}

impl utoipa::ToSchema for BalanceSource {}

impl std::fmt::Display for BalanceSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BalanceSource::Payment(id) => id.fmt(f),
            BalanceSource::Refund(id) => id.fmt(f),
        }
    }
}

/// One entry. Amounts are signed micro-units of `currency`: money in positive, refunds and
/// reversals negative; `amount = fee + net` always.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceTransaction {
    pub id: BalanceTransactionId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub kind: BalanceType,
    pub source: BalanceSource,
    /// For a refund entry, the payment refunded (a refund's source is the refund).
    pub payment: PaymentId,
    pub amount_micros: i64,
    pub fee_micros: i64,
    pub net_micros: i64,
    pub currency: Currency,
    pub chain: ChainId,
    pub token_address: Address,
    pub tx_hash: TxHash,
    pub log_index: u64,
    /// `None` only for refunds booked before the ledger existed (they kept no block).
    pub block_number: Option<u64>,
    /// The block's timestamp; `None` only for entries the migration wrote for money booked
    /// before the ledger existed (block times were not kept then).
    pub block_time: Option<Timestamp>,
    pub created_at: Timestamp,
    /// The review of the entry's payment as read (D33): `Some` when its payer was listed
    /// after the money moved. It changes after the entry is written, so it is read with
    /// the entry and never stored on it.
    pub review: Option<super::ReviewStatus>,
    /// The price in a currency and the quote of the entry's payment's session (D34), read
    /// with the entry like `review`; `None` when it was priced in token units.
    pub priced: Option<super::QuotedPrice>,
}

/// `GET /balance_transactions` filters: all optional, combined with AND.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BalanceTransactionFilter {
    pub kind: Option<BalanceType>,
    pub source: Option<BalanceSource>,
    /// Every entry of one payment: its own and its refunds'.
    pub payment: Option<PaymentId>,
    pub created_gte: Option<Timestamp>,
    pub created_lt: Option<Timestamp>,
    pub block_time_gte: Option<Timestamp>,
    pub block_time_lt: Option<Timestamp>,
}
