//! `object: "audit_event"` (D32): one entry of the audit log, as the API lists it.

use serde::Serialize;
use utoipa::ToSchema;

use super::Resource;
use crate::model::{AuditAction, AuditEvent, AuditEventId, Timestamp};

/// Who made the change.
#[derive(Serialize, ToSchema)]
pub struct AuditActorResource {
    /// `api_key`, `user` (a dashboard user) or `operator` (the operator's command line).
    #[serde(rename = "type")]
    #[schema(example = "api_key")]
    pub kind: &'static str,
    /// The key's `key_…` or the user's `usr_…` id; null for the operator.
    #[schema(example = "key_0355RGziS6Gwe8zF5hRoCU")]
    pub id: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct AuditEventResource {
    pub id: AuditEventId,
    pub object: &'static str,
    /// The mode the change belongs to; null for the account as a whole (users, TOTP,
    /// settings), which both modes list.
    pub livemode: Option<bool>,
    pub action: AuditAction,
    pub actor: AuditActorResource,
    /// The id of what changed.
    #[schema(example = "we_0355RGziS6Gwe8zF5hRoCU")]
    pub target: String,
    /// The client's address as the service saw it (behind trusted proxies, the forwarded
    /// one); null for the operator's command line.
    #[schema(example = "203.0.113.7")]
    pub client_address: Option<String>,
    /// The changed fields before the change (null when the thing is new); never a secret.
    #[schema(value_type = Option<Object>)]
    pub before: Option<serde_json::Value>,
    /// The changed fields after the change (null when the thing is gone).
    #[schema(value_type = Option<Object>)]
    pub after: Option<serde_json::Value>,
    pub created_at: Timestamp,
}

impl From<AuditEvent> for AuditEventResource {
    fn from(e: AuditEvent) -> Self {
        Self {
            id: e.id,
            object: Self::OBJECT,
            livemode: e.mode.map(|m| m.is_live()),
            action: e.action,
            actor: AuditActorResource {
                kind: e.actor.kind(),
                id: e.actor.id(),
            },
            target: e.target,
            client_address: e.client_address.map(|a| a.to_string()),
            before: e.before,
            after: e.after,
            created_at: e.created_at,
        }
    }
}

impl Resource for AuditEventResource {
    const OBJECT: &'static str = "audit_event";
}
