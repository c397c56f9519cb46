//! Refund requests (D32): a refund that must reach the right person. The merchant asks;
//! the customer names and confirms the address on a public page (the request's id is the
//! capability); the refund reported for the request must go there.

use std::net::IpAddr;

use super::read_models::status_enum;
use super::{
    Address, Amount, AuditActor, ChainId, Currency, MerchantId, Mode, PaymentId, RefundId,
    RefundRequestId, Timestamp,
};

status_enum!(/// D32: where a request stands. `expired` is never stored: it is read from
/// `expires_at` (`RefundRequest::status_at`).
RefundRequestStatus {
    AwaitingAddress => "awaiting_address",
    AddressConfirmed => "address_confirmed",
    Refunded => "refunded",
    Expired => "expired",
});

status_enum!(/// How the customer confirmed the address: a signature by it (EIP-191 over the
/// text the page shows), or the address typed twice with the exchange warning accepted.
AddressConfirmation {
    Signature => "signature",
    TypedTwice => "typed_twice",
});

/// How long a customer has to confirm an address, and the merchant to pay it.
pub const REFUND_REQUEST_TTL_SECS: i64 = 14 * 24 * 3600;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundRequest {
    pub id: RefundRequestId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub payment: PaymentId,
    pub amount: Amount,
    pub currency: Currency,
    pub chain: ChainId,
    pub token_address: Address,
    pub reason: Option<String>,
    /// As stored: `AwaitingAddress`, `AddressConfirmed` or `Refunded` (never `Expired`).
    pub status: RefundRequestStatus,
    /// Who asked (a key or a dashboard user).
    pub requested_by: AuditActor,
    pub destination_address: Option<Address>,
    pub confirmation: Option<AddressConfirmation>,
    /// The address the customer confirmed from, as the service saw it.
    pub confirmed_from: Option<IpAddr>,
    pub address_confirmed_at: Option<Timestamp>,
    pub refund: Option<RefundId>,
    pub refunded_at: Option<Timestamp>,
    pub expires_at: Timestamp,
    pub created_at: Timestamp,
}

impl RefundRequest {
    /// The status at `now`: a request not refunded by `expires_at` is `expired`.
    pub fn status_at(&self, now: Timestamp) -> RefundRequestStatus {
        match self.status {
            RefundRequestStatus::Refunded => RefundRequestStatus::Refunded,
            _ if now >= self.expires_at => RefundRequestStatus::Expired,
            s => s,
        }
    }
}

/// A request for unit tests: live, on Base, 7.5 USDC, made at `at(0)`, expiring at
/// `at(100)`.
#[cfg(test)]
pub(crate) mod fixture {
    use super::*;

    pub fn at(s: i64) -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000 + s).expect("a time")
    }

    pub fn refund_request(status: RefundRequestStatus) -> RefundRequest {
        RefundRequest {
            id: RefundRequestId::generate(),
            merchant_id: MerchantId::generate(),
            mode: Mode::Live,
            payment: PaymentId::generate(),
            amount: Amount::parse("7.5").expect("an amount"),
            currency: Currency::Usdc,
            chain: ChainId::Base,
            token_address: Address::from_bytes([0xaa; 20]),
            reason: None,
            status,
            requested_by: AuditActor::Operator,
            destination_address: None,
            confirmation: None,
            confirmed_from: None,
            address_confirmed_at: None,
            refund: None,
            refunded_at: None,
            expires_at: at(100),
            created_at: at(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::{at, refund_request as request};
    use super::*;

    #[test]
    fn a_request_not_refunded_by_its_expiry_is_expired() {
        for s in [
            RefundRequestStatus::AwaitingAddress,
            RefundRequestStatus::AddressConfirmed,
        ] {
            assert_eq!(request(s).status_at(at(99)), s);
            assert_eq!(request(s).status_at(at(100)), RefundRequestStatus::Expired);
        }
        let done = request(RefundRequestStatus::Refunded);
        assert_eq!(done.status_at(at(1_000)), RefundRequestStatus::Refunded);
    }
}
