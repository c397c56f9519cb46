//! The customer portal (D11, D20): the subscription's public state, the message a
//! subscriber signs to cancel, and the cancel itself (EIP-191 or ERC-1271 by the
//! subscriber wallet). The service stops charging; the allowance is the subscriber's to
//! revoke. The subscription id is the capability.

use crate::model::{Missing, Signature, SubscriptionId};
use crate::ports::{
    ChainError, ChainReader, Clock, StoreError, SubscriptionRecord, SubscriptionStore,
};
use crate::services::settle_subscription::cancel_write;
use crate::services::{signed_by, write_billing, BillingWriteOutcome};

#[derive(Debug, thiserror::Error)]
pub enum PortalError {
    #[error(transparent)]
    NotFound(Missing),
    #[error("the signature was not made by the subscriber wallet {0} over the cancel message")]
    NotSubscriber(String),
    /// A contract wallet's chain could not be asked (detail for logs only).
    #[error("the network could not be reached")]
    ChainUnavailable(String),
    #[error("the subscription kept changing; retry")]
    Contended,
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub struct PortalDeps<'a> {
    pub subscriptions: &'a dyn SubscriptionStore,
    pub chain: &'a dyn ChainReader,
    pub clock: &'a dyn Clock,
}

/// The subscription as the portal shows it.
pub async fn portal_subscription(
    id: SubscriptionId,
    deps: &PortalDeps<'_>,
) -> Result<SubscriptionRecord, PortalError> {
    deps.subscriptions
        .subscription_public(id)
        .await?
        .ok_or_else(|| PortalError::NotFound(Missing::of(id)))
}

/// The name the portal shows for the subscription's merchant.
pub async fn portal_merchant_name(
    rec: &SubscriptionRecord,
    deps: &PortalDeps<'_>,
) -> Result<String, PortalError> {
    Ok(deps
        .subscriptions
        .merchant_name(rec.subscription.merchant_id)
        .await?
        .unwrap_or_default())
}

/// The EIP-191 message the subscriber signs to cancel: names the service, the
/// subscription, the subscriber wallet and the chain.
pub fn cancel_message(rec: &SubscriptionRecord) -> String {
    let sub = &rec.subscription;
    format!(
        "stablepay: cancel subscription\n\nSubscription: {}\nSubscriber wallet: {}\nChain: {} ({})\n\nNo further payments will be taken for this subscription.",
        sub.id,
        sub.wallet_address,
        sub.chain.name(),
        sub.chain.id()
    )
}

/// Cancels when `signature` is the subscriber's over `cancel_message`; a repeat (or a
/// subscription already ended) answers its current state.
pub async fn cancel_by_subscriber(
    id: SubscriptionId,
    signature: &Signature,
    deps: &PortalDeps<'_>,
) -> Result<SubscriptionRecord, PortalError> {
    let rec = portal_subscription(id, deps).await?;
    let sub = &rec.subscription;
    let signed = signed_by(
        deps.chain,
        sub.chain,
        sub.wallet_address,
        cancel_message(&rec).as_bytes(),
        signature,
    )
    .await
    .map_err(|e| match e {
        ChainError::NotConfigured(_) | ChainError::Unavailable(_) => {
            PortalError::ChainUnavailable(e.to_string())
        }
    })?;
    if !signed {
        return Err(PortalError::NotSubscriber(sub.wallet_address.to_string()));
    }
    let now = deps.clock.now();
    match write_billing(deps.subscriptions, rec, |rec| cancel_write(rec, now)).await? {
        BillingWriteOutcome::Written => portal_subscription(id, deps).await,
        BillingWriteOutcome::NothingToWrite(current) => Ok(current),
        BillingWriteOutcome::Gone => Err(PortalError::NotFound(Missing::of(id))),
        BillingWriteOutcome::Contended => Err(PortalError::Contended),
    }
}

#[cfg(test)]
mod tests;
