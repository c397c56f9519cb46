//! Settlement wallets (D6): per merchant, usable in both modes once verified.

use super::{Address, ChainId, MerchantId, Timestamp, WalletId};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum WalletStatus {
    Pending,
    Verified,
    Revoked,
}

impl WalletStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            WalletStatus::Pending => "pending",
            WalletStatus::Verified => "verified",
            WalletStatus::Revoked => "revoked",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(WalletStatus::Pending),
            "verified" => Some(WalletStatus::Verified),
            "revoked" => Some(WalletStatus::Revoked),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wallet {
    pub id: WalletId,
    pub merchant_id: MerchantId,
    pub address: Address,
    pub chain: ChainId,
    pub status: WalletStatus,
    pub verified_at: Option<Timestamp>,
    pub revoked_at: Option<Timestamp>,
    pub created_at: Timestamp,
}

/// A one-hour, single-use ownership challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalletChallenge {
    pub wallet_id: WalletId,
    /// 128-bit nonce, lowercase hex.
    pub nonce: String,
    pub message: String,
    pub expires_at: Timestamp,
    pub used_at: Option<Timestamp>,
    pub created_at: Timestamp,
}
