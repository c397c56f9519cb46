//! POST /refund/:id/address (D32): the customer names where their refund goes and proves
//! it is theirs, by a signature of the address over the text the page shows, or by typing
//! it twice and accepting that an exchange's address must take the token on this network.
//! The merchant is told (`refund_request.address_confirmed`) in the same transaction.

use std::net::IpAddr;

use crate::model::{
    Address, AddressConfirmation, EventType, FieldError, Missing, RefundRequest, RefundRequestId,
    RefundRequestStatus, Signature, ValidationErrors,
};
use crate::ports::{ChainReader, Clock, EventDraft, RefundRequestStore, StoreError};
use crate::representation::RefundRequestResource;
use crate::rules::refund_requests::{confirmation_message, unusable_destination};
use crate::services::signed_by;

/// How the customer proves the address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddressProof {
    /// EIP-191 by the address over `confirmation_message` (ERC-1271 for contract wallets).
    Signature(Signature),
    /// The address typed a second time.
    TypedTwice(Address),
}

#[derive(Debug, thiserror::Error)]
pub enum ConfirmAddressError {
    #[error(transparent)]
    NotFound(Missing),
    #[error(transparent)]
    Rejected(ValidationErrors),
    /// The request no longer takes an address (confirmed already, refunded or expired).
    #[error("this refund request is {}; it no longer takes an address", .0.as_str())]
    Closed(RefundRequestStatus),
    #[error("the network could not be reached to check the wallet's signature; retry shortly")]
    ChainUnavailable,
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn reject(field: &str, message: impl Into<String>) -> ConfirmAddressError {
    ConfirmAddressError::Rejected(ValidationErrors(vec![FieldError::new(field, message)]))
}

pub struct ConfirmAddressDeps<'a> {
    pub requests: &'a dyn RefundRequestStore,
    pub chain: &'a dyn ChainReader,
    pub clock: &'a dyn Clock,
    /// Where the request's page is (`STABLEPAY_PUBLIC_URL`), for the event's object.
    pub public_url: &'a str,
}

pub async fn confirm_refund_address(
    id: RefundRequestId,
    address: Address,
    proof: AddressProof,
    client: Option<IpAddr>,
    deps: &ConfirmAddressDeps<'_>,
) -> Result<RefundRequest, ConfirmAddressError> {
    let request = deps
        .requests
        .request_by_id(id)
        .await?
        .ok_or_else(|| ConfirmAddressError::NotFound(Missing::of(id)))?;
    let now = deps.clock.now();
    match request.status_at(now) {
        RefundRequestStatus::AwaitingAddress => {}
        closed => return Err(ConfirmAddressError::Closed(closed)),
    }
    if let Some(why) = unusable_destination(&request, address) {
        return Err(reject("address", why));
    }
    let confirmation = match proof {
        AddressProof::Signature(signature) => {
            let message = confirmation_message(&request, address);
            let signed = signed_by(
                deps.chain,
                request.chain,
                address,
                message.as_bytes(),
                &signature,
            )
            .await
            .map_err(|_| ConfirmAddressError::ChainUnavailable)?;
            if !signed {
                return Err(reject(
                    "signature",
                    format!("was not made by {address} over the confirmation text"),
                ));
            }
            AddressConfirmation::Signature
        }
        AddressProof::TypedTwice(again) if again == address => AddressConfirmation::TypedTwice,
        AddressProof::TypedTwice(_) => {
            return Err(reject(
                "address_confirmation",
                "does not match the address; type the same address twice",
            ))
        }
    };
    let confirmed = RefundRequest {
        status: RefundRequestStatus::AddressConfirmed,
        destination_address: Some(address),
        confirmation: Some(confirmation),
        confirmed_from: client,
        address_confirmed_at: Some(now),
        ..request
    };
    let resource = RefundRequestResource::new(confirmed.clone(), now, deps.public_url);
    let event = EventDraft {
        merchant_id: confirmed.merchant_id,
        mode: confirmed.mode,
        event_type: EventType::RefundRequestAddressConfirmed,
        object_json: serde_json::to_string(&resource).unwrap_or_else(|_| "{}".into()),
        created_at: now,
    };
    if deps.requests.confirm_address(&confirmed, &event).await? {
        Ok(confirmed)
    } else {
        // Confirmed (or expired) by a concurrent post since the read.
        let now = deps.clock.now();
        let status = deps
            .requests
            .request_by_id(id)
            .await?
            .map_or(RefundRequestStatus::Expired, |r| r.status_at(now));
        Err(ConfirmAddressError::Closed(status))
    }
}

#[cfg(test)]
mod tests;
