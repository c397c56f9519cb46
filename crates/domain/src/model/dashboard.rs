//! Dashboard accounts (D21): users who belong to one merchant, their passwords and their
//! server-side sessions.

use std::fmt;

use secrecy::{ExposeSecret, SecretString};

use super::{AuthContext, DashboardUserId, FeeTier, MerchantId, Mode, Timestamp};

/// A login email: trimmed, lower-cased, one `@` with text on both sides, no spaces.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Email(String);

impl Email {
    pub const MAX: usize = 254;

    pub fn parse(raw: &str) -> Result<Self, &'static str> {
        let s = raw.trim().to_lowercase();
        if s.is_empty() {
            return Err("is required");
        }
        if s.len() > Self::MAX {
            return Err("must be at most 254 characters");
        }
        let valid = match s.split_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !domain.contains('@')
            }
            None => false,
        };
        if !valid || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err("must be an email address such as ops@merchant.example");
        }
        Ok(Self(s))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A new password as typed: 12–256 characters. Held in `secrecy` so it never reaches a
/// log by accident.
pub struct NewPassword(SecretString);

impl NewPassword {
    pub const MIN: usize = 12;
    pub const MAX: usize = 256;

    pub fn parse(raw: &str) -> Result<Self, &'static str> {
        let n = raw.chars().count();
        if n < Self::MIN {
            return Err("must be at least 12 characters");
        }
        if n > Self::MAX {
            return Err("must be at most 256 characters");
        }
        Ok(Self(SecretString::from(raw.to_owned())))
    }

    pub fn expose(&self) -> &str {
        self.0.expose_secret()
    }
}

impl fmt::Debug for NewPassword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NewPassword(<redacted>)")
    }
}

/// Where an account stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserStatus {
    /// Created by the operator; the setup link has not been used yet.
    Invited,
    Active,
    Disabled,
}

impl UserStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            UserStatus::Invited => "invited",
            UserStatus::Active => "active",
            UserStatus::Disabled => "disabled",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DashboardUser {
    pub id: DashboardUserId,
    pub merchant_id: MerchantId,
    pub email: Email,
    pub status: UserStatus,
    pub totp_enabled: bool,
    pub created_at: Timestamp,
}

/// What the store knows about an account at login time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginRecord {
    pub user: DashboardUser,
    /// The argon2id PHC string; `None` until setup is complete.
    pub password_hash: Option<String>,
    /// Base32-free raw TOTP secret, when a second factor is enrolled.
    pub totp_secret: Option<Vec<u8>>,
    pub failed_logins: u32,
    pub locked_until: Option<Timestamp>,
    /// The last TOTP time step accepted at sign-in (codes are single-use).
    pub totp_last_step: Option<i64>,
}

/// A live dashboard session as read back from its cookie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DashboardSession {
    pub session_id: uuid::Uuid,
    pub user: DashboardUser,
    pub merchant_name: String,
    pub fee_tier: FeeTier,
    /// The merchant's default underpayment tolerance (D32).
    pub underpayment_tolerance: super::UnderpaymentTolerance,
    pub created_at: Timestamp,
    pub last_seen_at: Timestamp,
}

impl DashboardSession {
    /// The context every use case takes, for the mode the page shows.
    pub fn context(&self, mode: Mode) -> AuthContext {
        AuthContext {
            merchant_id: self.user.merchant_id,
            mode,
            actor: super::Actor::DashboardUser(self.user.id),
            fee_tier: self.fee_tier,
            rate_limit_per_min: None,
            underpayment_tolerance: self.underpayment_tolerance,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_normalised_and_checked() {
        assert_eq!(
            Email::parse("  Ops@Merchant.Example ").map(|e| e.to_string()),
            Ok("ops@merchant.example".to_owned())
        );
        for bad in [
            "",
            "ops",
            "@merchant.example",
            "ops@",
            "ops@localhost",
            "o ps@m.example",
            "a@b@c.example",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn passwords_have_a_length_window_and_never_print() {
        assert!(NewPassword::parse("short").is_err());
        assert!(NewPassword::parse(&"x".repeat(257)).is_err());
        let p = NewPassword::parse("correct horse battery").expect("valid");
        assert_eq!(format!("{p:?}"), "NewPassword(<redacted>)");
    }
}
