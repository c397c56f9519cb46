//! What the public customer portal may know about a subscription (D20).

use serde::Serialize;

use crate::model::{Address, Amount, ChainId, SubscriptionId, SubscriptionStatus, Timestamp};
use crate::ports::SubscriptionRecord;

/// What the subscriber's portal may know about a subscription.
#[derive(Serialize)]
pub struct PublicSubscription {
    id: SubscriptionId,
    object: &'static str,
    status: SubscriptionStatus,
    merchant_name: String,
    title: String,
    amount: Amount,
    currency: &'static str,
    interval_seconds: u64,
    next_payment_at: Option<Timestamp>,
    canceled_at: Option<Timestamp>,
    wallet_address: Address,
    chain_id: ChainId,
    network: &'static str,
    manager_address: Address,
    chain_subscription_id: String,
    token_address: Address,
}

impl PublicSubscription {
    pub fn new(rec: SubscriptionRecord, merchant_name: String) -> Self {
        let s = rec.subscription;
        Self {
            id: s.id,
            object: "subscription",
            status: s.status,
            merchant_name,
            title: s.title,
            amount: s.amount,
            currency: "USDC",
            interval_seconds: s.interval_seconds,
            next_payment_at: s.next_payment_at,
            canceled_at: s.canceled_at,
            wallet_address: s.wallet_address,
            chain_id: s.chain,
            network: s.chain.display_name(),
            manager_address: rec.manager,
            chain_subscription_id: s.chain_subscription_id,
            token_address: rec.token,
        }
    }
}
