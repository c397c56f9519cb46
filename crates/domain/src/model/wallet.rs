//! Settlement wallets (D6): per merchant, usable in both modes once verified.

use super::{Address, ChainId, MerchantId, Mode, Timestamp, WalletId};

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

/// What a wallet's standing is as far as money sent to it goes: all that a read of a
/// session needs of its recipient (D30), read without the rest of the wallet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalletStanding {
    pub status: WalletStatus,
    /// As `Wallet::verified_mode`.
    pub verified_mode: Option<Mode>,
}

impl WalletStanding {
    /// Whether a session (or subscription) of `mode` may pay the wallet (D25): verified,
    /// and for live money verified by a live key or the live dashboard. A test key is a
    /// weaker secret; what it verified never receives live money.
    pub fn pays_in(self, mode: Mode) -> bool {
        self.status == WalletStatus::Verified
            && (!mode.is_live() || self.verified_mode == Some(Mode::Live))
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
    /// The mode of the key (or dashboard) that verified it (D25): a test key may not revoke
    /// a wallet verified in live mode, and only those are a live session's default.
    /// `None` until verified; kept when revoked.
    pub verified_mode: Option<Mode>,
    pub revoked_at: Option<Timestamp>,
    /// The mode of the key (or dashboard) that last revoked it (D25). Kept until it is
    /// verified again: a wallet a live key revoked is restored only by a live key.
    pub revoked_mode: Option<Mode>,
    pub created_at: Timestamp,
}

impl Wallet {
    /// A wallet just registered: pending until its owner signs the challenge.
    pub fn registered(
        merchant_id: MerchantId,
        address: Address,
        chain: ChainId,
        now: Timestamp,
    ) -> Self {
        Self {
            id: WalletId::generate_at(now),
            merchant_id,
            address,
            chain,
            status: WalletStatus::Pending,
            verified_at: None,
            verified_mode: None,
            revoked_at: None,
            revoked_mode: None,
            created_at: now,
        }
    }

    /// Its standing, which is all that whether it takes money depends on.
    pub fn standing(&self) -> WalletStanding {
        WalletStanding {
            status: self.status,
            verified_mode: self.verified_mode,
        }
    }

    /// `WalletStanding::pays_in`.
    pub fn pays_in(&self, mode: Mode) -> bool {
        self.standing().pays_in(mode)
    }

    /// Whether a key of `mode` may register or verify this wallet again (D25): one that a
    /// live key revoked comes back only by a live key.
    pub fn restorable_in(&self, mode: Mode) -> bool {
        mode.is_live() || self.revoked_mode != Some(Mode::Live)
    }

    /// Whether a key of `mode` may revoke this wallet (D25): a test key is a weaker
    /// secret, so it may not take a live-verified wallet out of service.
    pub fn revocable_in(&self, mode: Mode) -> bool {
        mode.is_live() || self.verified_mode != Some(Mode::Live)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(status: WalletStatus, verified_mode: Option<Mode>) -> WalletStanding {
        WalletStanding {
            status,
            verified_mode,
        }
    }

    #[test]
    fn only_a_verified_wallet_takes_money_and_live_money_only_if_verified_live() {
        use WalletStatus::*;
        let cases = [
            (standing(Verified, Some(Mode::Live)), true, true),
            (standing(Verified, Some(Mode::Test)), true, false),
            (standing(Pending, None), false, false),
            (standing(Revoked, Some(Mode::Live)), false, false),
        ];
        for (s, test, live) in cases {
            assert_eq!(
                (s.pays_in(Mode::Test), s.pays_in(Mode::Live)),
                (test, live),
                "{s:?}"
            );
        }
    }
}
