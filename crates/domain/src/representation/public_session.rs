//! What the public hosted page (and its status/confirm answers) may know about a
//! checkout session: no merchant ids, fees or metadata.

use serde::Serialize;

use crate::model::{Address, CheckoutSession, CheckoutSessionId, SessionStatus, Timestamp, TxHash};

/// What the buyer's page may know about a session.
#[derive(Serialize)]
pub struct PublicSession {
    pub id: CheckoutSessionId,
    object: &'static str,
    livemode: bool,
    /// `payment` or `subscription`.
    mode: &'static str,
    status: SessionStatus,
    title: String,
    description: Option<String>,
    amount: crate::model::Amount,
    currency: crate::model::Currency,
    chain_id: crate::model::ChainId,
    network: &'static str,
    recipient_address: Address,
    interval_seconds: Option<u64>,
    expires_at: Timestamp,
    success_url: Option<String>,
    cancel_url: Option<String>,
    tx_hash: Option<TxHash>,
    completed_at: Option<Timestamp>,
    /// Where a plain transfer pays the session (D24), and what has arrived there.
    deposit_address: Option<Address>,
    amount_received: String,
}

impl From<&CheckoutSession> for PublicSession {
    fn from(s: &CheckoutSession) -> Self {
        Self {
            id: s.id,
            object: "checkout.session",
            livemode: s.mode.is_live(),
            mode: s.session_mode.as_str(),
            status: s.status,
            title: s.title.clone(),
            description: s.description.clone(),
            amount: s.amount,
            currency: s.currency,
            chain_id: s.chain,
            network: s.chain.display_name(),
            recipient_address: s.recipient_address,
            interval_seconds: s.interval_seconds,
            expires_at: s.expires_at,
            success_url: s.success_url.clone(),
            cancel_url: s.cancel_url.clone(),
            tx_hash: s.tx_hash,
            completed_at: s.completed_at,
            deposit_address: s.deposit_address,
            amount_received: crate::model::render_micros(s.amount_received_micros),
        }
    }
}
