//! The refund request's row (D32).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use stablepay_domain::ports::StoreError;
use stablepay_domain::*;
use uuid::Uuid;

use super::conv::*;
use crate::error::corrupt;
use crate::schema::refund_requests;

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = refund_requests, check_for_backend(diesel::pg::Pg))]
pub struct RefundRequestRow {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub livemode: bool,
    pub payment_id: Uuid,
    pub amount_micros: i64,
    pub currency: String,
    pub chain_id: i32,
    pub token_address: String,
    pub reason: Option<String>,
    pub status: String,
    pub requested_by_type: String,
    pub requested_by_id: Option<String>,
    pub destination_address: Option<String>,
    pub confirmation: Option<String>,
    pub confirmed_from: Option<String>,
    pub address_confirmed_at: Option<DateTime<Utc>>,
    pub refund_id: Option<Uuid>,
    pub refunded_at: Option<DateTime<Utc>>,
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
}

impl From<&RefundRequest> for RefundRequestRow {
    fn from(r: &RefundRequest) -> Self {
        Self {
            id: r.id.uuid(),
            merchant_id: r.merchant_id.uuid(),
            livemode: r.mode.is_live(),
            payment_id: r.payment.uuid(),
            amount_micros: to_i64(r.amount.micros()),
            currency: r.currency.as_str().to_owned(),
            chain_id: r.chain.id() as i32,
            token_address: r.token_address.to_lower_hex(),
            reason: r.reason.clone(),
            status: r.status.as_str().to_owned(),
            requested_by_type: r.requested_by.kind().to_owned(),
            requested_by_id: r.requested_by.id(),
            destination_address: r.destination_address.map(|a| a.to_lower_hex()),
            confirmation: r.confirmation.map(|c| c.as_str().to_owned()),
            confirmed_from: r.confirmed_from.map(|a| a.to_string()),
            address_confirmed_at: r.address_confirmed_at.map(|t| t.as_datetime()),
            refund_id: r.refund.map(|id| id.uuid()),
            refunded_at: r.refunded_at.map(|t| t.as_datetime()),
            expires_at: r.expires_at.as_datetime(),
            created_at: r.created_at.as_datetime(),
        }
    }
}

impl TryFrom<RefundRequestRow> for RefundRequest {
    type Error = StoreError;

    fn try_from(r: RefundRequestRow) -> Result<Self, StoreError> {
        Ok(RefundRequest {
            id: RefundRequestId::from_uuid(r.id),
            merchant_id: MerchantId::from_uuid(r.merchant_id),
            mode: Mode::from_livemode(r.livemode),
            payment: PaymentId::from_uuid(r.payment_id),
            amount: amount(r.amount_micros)?,
            currency: currency(&r.currency)?,
            chain: chain(r.chain_id)?,
            token_address: address(&r.token_address)?,
            reason: r.reason,
            status: parse_enum(
                "refund request status",
                &r.status,
                RefundRequestStatus::parse,
            )?,
            requested_by: AuditActor::from_parts(
                &r.requested_by_type,
                r.requested_by_id.as_deref(),
            )
            .ok_or_else(|| corrupt("requested_by", &r.requested_by_type))?,
            destination_address: address_opt(r.destination_address.as_deref())?,
            confirmation: r
                .confirmation
                .as_deref()
                .map(|c| parse_enum("confirmation", c, AddressConfirmation::parse))
                .transpose()?,
            confirmed_from: r
                .confirmed_from
                .map(|a| a.parse().map_err(|_| corrupt("confirmed_from", a)))
                .transpose()?,
            address_confirmed_at: ts_opt(r.address_confirmed_at),
            refund: r.refund_id.map(RefundId::from_uuid),
            refunded_at: ts_opt(r.refunded_at),
            expires_at: ts(r.expires_at),
            created_at: ts(r.created_at),
        })
    }
}
