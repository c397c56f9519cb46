use super::Resource;
use crate::model::{Address, ChainId, Timestamp, Wallet, WalletChallenge, WalletId, WalletStatus};
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct Verification {
    pub message: String,
    pub expires_at: Timestamp,
}

#[derive(Serialize, ToSchema)]
pub struct WalletResource {
    pub id: WalletId,
    pub object: &'static str,
    pub address: Address,
    pub chain_id: ChainId,
    pub status: WalletStatus,
    pub verified_at: Option<Timestamp>,
    /// The mode of the key (or dashboard) that verified the wallet: `live` or `test`
    /// (null until verified). A test key may not revoke a wallet verified in `live` mode,
    /// and a live session without `recipient` defaults only to one of those.
    #[schema(value_type = Option<String>, example = "live")]
    pub verified_mode: Option<&'static str>,
    pub revoked_at: Option<Timestamp>,
    pub created_at: Timestamp,
    #[schema(nullable = false)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification: Option<Verification>,
}

impl WalletResource {
    pub fn new(w: Wallet, challenge: Option<WalletChallenge>) -> Self {
        Self {
            id: w.id,
            object: Self::OBJECT,
            address: w.address,
            chain_id: w.chain,
            status: w.status,
            verified_at: w.verified_at,
            verified_mode: w.verified_mode.map(|m| m.as_str()),
            revoked_at: w.revoked_at,
            created_at: w.created_at,
            verification: challenge.map(|c| Verification {
                message: c.message,
                expires_at: c.expires_at,
            }),
        }
    }
}

impl Resource for WalletResource {
    const OBJECT: &'static str = "wallet";
}
