//! `object: "refund_request"` (D32): a refund the customer sends the address for.

use serde::Serialize;
use utoipa::ToSchema;

use super::Resource;
use crate::model::{
    Address, AddressConfirmation, Amount, ChainId, Currency, PaymentId, RefundId, RefundRequest,
    RefundRequestId, RefundRequestStatus, Timestamp,
};

#[derive(Serialize, ToSchema)]
pub struct RefundRequestResource {
    pub id: RefundRequestId,
    pub object: &'static str,
    pub livemode: bool,
    /// `awaiting_address` → `address_confirmed` → `refunded`, or `expired` when not
    /// refunded by `expires_at`.
    pub status: RefundRequestStatus,
    pub payment: PaymentId,
    pub amount: Amount,
    pub currency: Currency,
    pub chain_id: ChainId,
    pub reason: Option<String>,
    /// The customer's page, where they give and confirm the address (public: the id is
    /// the capability). Send it to the customer.
    #[schema(example = "https://pay.example/refund/rr_0355RGziS6Gwe8zF5hRoCU")]
    pub url: String,
    /// The confirmed address; null until the customer confirms one. The refund reported
    /// for this request must be a transfer to it.
    pub destination_address: Option<Address>,
    /// How the customer confirmed it: `signature` (signed by the address) or
    /// `typed_twice` (entered twice, the exchange warning accepted); null until then.
    pub confirmation: Option<AddressConfirmation>,
    pub address_confirmed_at: Option<Timestamp>,
    /// The refund reported for this request (`re_…`), once recorded.
    pub refund: Option<RefundId>,
    pub refunded_at: Option<Timestamp>,
    pub expires_at: Timestamp,
    pub created_at: Timestamp,
}

impl RefundRequestResource {
    /// As seen at `now` (an unrefunded request past `expires_at` is `expired`).
    pub fn new(r: RefundRequest, now: Timestamp, public_url: &str) -> Self {
        Self {
            object: Self::OBJECT,
            livemode: r.mode.is_live(),
            status: r.status_at(now),
            url: format!("{}/refund/{}", public_url.trim_end_matches('/'), r.id),
            id: r.id,
            payment: r.payment,
            amount: r.amount,
            currency: r.currency,
            chain_id: r.chain,
            reason: r.reason,
            destination_address: r.destination_address,
            confirmation: r.confirmation,
            address_confirmed_at: r.address_confirmed_at,
            refund: r.refund,
            refunded_at: r.refunded_at,
            expires_at: r.expires_at,
            created_at: r.created_at,
        }
    }
}

impl Resource for RefundRequestResource {
    const OBJECT: &'static str = "refund_request";
}

/// What the customer's page shows (never the merchant's notes beyond `reason`).
#[derive(Serialize)]
pub struct PublicRefundRequest {
    pub id: RefundRequestId,
    pub status: RefundRequestStatus,
    pub merchant_name: String,
    pub amount: Amount,
    pub currency: Currency,
    pub chain_id: ChainId,
    pub network: &'static str,
    pub reason: Option<String>,
    pub destination_address: Option<Address>,
    pub confirmation: Option<AddressConfirmation>,
    pub expires_at: Timestamp,
    pub livemode: bool,
}

impl PublicRefundRequest {
    pub fn new(r: RefundRequest, now: Timestamp, merchant_name: String) -> Self {
        Self {
            status: r.status_at(now),
            id: r.id,
            merchant_name,
            amount: r.amount,
            currency: r.currency,
            chain_id: r.chain,
            network: r.chain.display_name(),
            reason: r.reason,
            destination_address: r.destination_address,
            confirmation: r.confirmation,
            expires_at: r.expires_at,
            livemode: r.mode.is_live(),
        }
    }
}
