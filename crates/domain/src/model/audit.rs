//! The audit log (D32): every change that can move money or open access, with who made
//! it, from where, when, and what it changed. Entries are only ever added.

use std::net::IpAddr;

use serde_json::Value;

use super::read_models::status_enum;
use super::{ApiKeyId, AuditEventId, DashboardUserId, MerchantId, Mode, Timestamp};

status_enum!(/// What changed (D32's list: keys, wallets, webhook endpoints, users and TOTP,
/// refunds reported, settings).
AuditAction {
    ApiKeyCreated => "api_key.created",
    ApiKeyRevoked => "api_key.revoked",
    WalletRegistered => "wallet.registered",
    WalletVerified => "wallet.verified",
    WalletRevoked => "wallet.revoked",
    WebhookEndpointCreated => "webhook_endpoint.created",
    WebhookEndpointUpdated => "webhook_endpoint.updated",
    WebhookEndpointSecretRotated => "webhook_endpoint.secret_rotated",
    WebhookEndpointDeleted => "webhook_endpoint.deleted",
    UserInvited => "user.invited",
    UserPasswordSet => "user.password_set",
    UserTotpEnabled => "user.totp_enabled",
    UserTotpRemoved => "user.totp_removed",
    UserDisabled => "user.disabled",
    RefundReported => "refund.reported",
    RefundRequestCreated => "refund_request.created",
    PaymentReviewApproved => "payment.review_approved",
    PaymentReviewReturned => "payment.review_returned",
    UnderpaymentToleranceUpdated => "settings.underpayment_tolerance_updated",
    ScreeningUpdated => "settings.screening_updated",
});

/// Who made a change: an API key, a dashboard user, or the operator's CLI on the
/// service's host (which acts for no merchant's key or user).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuditActor {
    ApiKey(ApiKeyId),
    User(DashboardUserId),
    Operator,
}

impl AuditActor {
    /// `api_key`, `user` or `operator`.
    pub fn kind(self) -> &'static str {
        match self {
            AuditActor::ApiKey(_) => "api_key",
            AuditActor::User(_) => "user",
            AuditActor::Operator => "operator",
        }
    }

    /// The key's or user's id; none for the operator.
    pub fn id(self) -> Option<String> {
        match self {
            AuditActor::ApiKey(id) => Some(id.to_string()),
            AuditActor::User(id) => Some(id.to_string()),
            AuditActor::Operator => None,
        }
    }

    /// The stored pair back (`None` when it names no actor this service has).
    pub fn from_parts(kind: &str, id: Option<&str>) -> Option<Self> {
        use super::TypedId;
        match (kind, id) {
            ("api_key", Some(id)) => ApiKeyId::parse_str(id).ok().map(AuditActor::ApiKey),
            ("user", Some(id)) => DashboardUserId::parse_str(id).ok().map(AuditActor::User),
            ("operator", None) => Some(AuditActor::Operator),
            _ => None,
        }
    }
}

impl From<super::Actor> for AuditActor {
    fn from(actor: super::Actor) -> Self {
        match actor {
            super::Actor::ApiKey(id) => AuditActor::ApiKey(id),
            super::Actor::DashboardUser(id) => AuditActor::User(id),
        }
    }
}

/// Who is making a change and from which address: every audited use case takes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Changer {
    pub actor: AuditActor,
    pub client_address: Option<IpAddr>,
}

impl Changer {
    pub fn new(actor: impl Into<AuditActor>, client_address: Option<IpAddr>) -> Self {
        Self {
            actor: actor.into(),
            client_address,
        }
    }

    /// The operator's CLI on the service's host.
    pub const OPERATOR: Changer = Changer {
        actor: AuditActor::Operator,
        client_address: None,
    };
}

/// One entry of the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEvent {
    pub id: AuditEventId,
    pub merchant_id: MerchantId,
    /// The mode the change belongs to; `None` for the merchant's account as a whole
    /// (users, TOTP, settings), which both modes' lists show.
    pub mode: Option<Mode>,
    pub actor: AuditActor,
    pub action: AuditAction,
    /// The id of what changed (`key_…`, `wal_…`, `we_…`, `usr_…`, `re_…`, `mer_…`).
    pub target: String,
    pub client_address: Option<IpAddr>,
    /// What the changed fields held before and after (never a secret); `None` where the
    /// thing did not exist before, or no longer exists after.
    pub before: Option<Value>,
    pub after: Option<Value>,
    pub created_at: Timestamp,
}

impl AuditEvent {
    /// An entry for `action` on `target` by `by` at `at`, with no before or after yet.
    pub fn of(
        by: &Changer,
        merchant: MerchantId,
        mode: Option<Mode>,
        action: AuditAction,
        target: impl ToString,
        at: Timestamp,
    ) -> Self {
        Self {
            id: AuditEventId::generate_at(at),
            merchant_id: merchant,
            mode,
            actor: by.actor,
            action,
            target: target.to_string(),
            client_address: by.client_address,
            before: None,
            after: None,
            created_at: at,
        }
    }

    pub fn before(mut self, value: Value) -> Self {
        self.before = Some(value);
        self
    }

    pub fn after(mut self, value: Value) -> Self {
        self.after = Some(value);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actors_round_trip_through_their_stored_parts() {
        for actor in [
            AuditActor::ApiKey(ApiKeyId::generate()),
            AuditActor::User(DashboardUserId::generate()),
            AuditActor::Operator,
        ] {
            let id = actor.id();
            assert_eq!(
                AuditActor::from_parts(actor.kind(), id.as_deref()),
                Some(actor)
            );
        }
        assert_eq!(AuditActor::from_parts("operator", Some("usr_x")), None);
        assert_eq!(AuditActor::from_parts("user", None), None);
    }

    #[test]
    fn every_action_parses_back() {
        for a in AuditAction::ALL {
            assert_eq!(AuditAction::parse(a.as_str()), Some(*a));
        }
    }
}
