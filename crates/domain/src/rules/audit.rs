//! Audit entries (D32) that more than one place writes: a key revoked (by its merchant
//! or by the operator, whose adapter learns the key's merchant and mode only under the
//! row's lock) and a user's account changes.

use serde_json::json;

use crate::model::{
    ApiKeyId, AuditAction, AuditEvent, Changer, DashboardUserId, MerchantId, Mode, Timestamp,
};

/// `api_key.revoked`: the key's `revoked_at` went from null to `at`.
pub fn key_revoked(
    by: &Changer,
    merchant: MerchantId,
    mode: Mode,
    id: ApiKeyId,
    at: Timestamp,
) -> AuditEvent {
    AuditEvent::of(by, merchant, Some(mode), AuditAction::ApiKeyRevoked, id, at)
        .before(json!({ "revoked_at": null }))
        .after(json!({ "revoked_at": at.to_string() }))
}

/// A change to a dashboard account, which serves both modes (`mode` is `None`).
pub fn user_changed(
    by: &Changer,
    merchant: MerchantId,
    id: DashboardUserId,
    action: AuditAction,
    at: Timestamp,
) -> AuditEvent {
    let (before, after) = match action {
        AuditAction::UserInvited => (None, Some(json!({ "status": "invited" }))),
        AuditAction::UserPasswordSet => (
            Some(json!({ "status": "invited" })),
            Some(json!({ "status": "active" })),
        ),
        AuditAction::UserTotpEnabled => (
            Some(json!({ "totp_enabled": false })),
            Some(json!({ "totp_enabled": true })),
        ),
        AuditAction::UserTotpRemoved => (
            Some(json!({ "totp_enabled": true })),
            Some(json!({ "totp_enabled": false })),
        ),
        AuditAction::UserDisabled => (None, Some(json!({ "status": "disabled" }))),
        _ => (None, None),
    };
    AuditEvent {
        before,
        after,
        ..AuditEvent::of(by, merchant, None, action, id, at)
    }
}
