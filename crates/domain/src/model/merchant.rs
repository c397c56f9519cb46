//! Merchants, API keys and the authenticated request context (D5).

use super::{ApiKeyId, DashboardUserId, MerchantId, Mode, Timestamp};

/// Fee tiers (D2). `Custom` carries explicit basis points (0–1000).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeeTier {
    Standard,
    Growth,
    Scale,
    Custom(u16),
}

impl FeeTier {
    pub const MAX_CUSTOM_BPS: u16 = 1000;

    pub fn bps(self) -> u16 {
        match self {
            FeeTier::Standard => 100,
            FeeTier::Growth => 75,
            FeeTier::Scale => 50,
            FeeTier::Custom(bps) => bps,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            FeeTier::Standard => "standard",
            FeeTier::Growth => "growth",
            FeeTier::Scale => "scale",
            FeeTier::Custom(_) => "custom",
        }
    }

    /// Builds a tier from its label; `custom` needs explicit bps.
    pub fn from_parts(label: &str, custom_bps: Option<u16>) -> Result<Self, String> {
        match (label, custom_bps) {
            ("standard", _) => Ok(FeeTier::Standard),
            ("growth", _) => Ok(FeeTier::Growth),
            ("scale", _) => Ok(FeeTier::Scale),
            ("custom", Some(bps)) if bps <= Self::MAX_CUSTOM_BPS => Ok(FeeTier::Custom(bps)),
            ("custom", Some(bps)) => Err(format!(
                "custom fee of {bps} bps is above the 1000 bps maximum"
            )),
            ("custom", None) => Err("the custom tier needs explicit basis points".to_owned()),
            (other, _) => Err(format!(
                "unknown fee tier `{other}` (standard, growth, scale, custom)"
            )),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merchant {
    pub id: MerchantId,
    pub name: String,
    pub fee_tier: FeeTier,
    pub created_at: Timestamp,
}

/// An API key as stored: never the secret, only its SHA-256 and last four characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    pub id: ApiKeyId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub last4: String,
    pub rate_limit_per_min: Option<u32>,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
    /// Updated at most once a minute.
    pub last_used_at: Option<Timestamp>,
}

/// An API key as the operator's command line lists it (any merchant's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeySummary {
    pub id: ApiKeyId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub last4: String,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
}

/// Who is calling: every query is scoped by `merchant_id` and `mode`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthContext {
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub actor: Actor,
    pub fee_tier: FeeTier,
    pub rate_limit_per_min: Option<u32>,
    /// The merchant's default underpayment tolerance (D32): what a payment-mode session
    /// takes when its create request names none.
    pub underpayment_tolerance: super::UnderpaymentTolerance,
}

/// Whose a new checkout session is, and the terms it is made on: what a create needs of
/// its caller, be it an API key, a dashboard user, a payment link's visit or a re-quote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionOwner {
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub fee_tier: FeeTier,
    /// The tolerance a payment session takes when its request names none.
    pub underpayment_tolerance: super::UnderpaymentTolerance,
}

impl AuthContext {
    /// The merchant and mode of the key or user, on the merchant's terms.
    pub fn owner(&self) -> SessionOwner {
        SessionOwner {
            merchant_id: self.merchant_id,
            mode: self.mode,
            fee_tier: self.fee_tier,
            underpayment_tolerance: self.underpayment_tolerance,
        }
    }
}

/// Who acts for the merchant: an API key, or a dashboard user signed in to a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Actor {
    ApiKey(ApiKeyId),
    DashboardUser(DashboardUserId),
}
