//! The audit log's row (D32): inserted in the transaction of the change it records, never
//! updated (a trigger refuses UPDATE, DELETE and TRUNCATE).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use stablepay_domain::ports::StoreError;
use stablepay_domain::*;
use uuid::Uuid;

use super::conv::parse_enum;
use crate::error::corrupt;
use crate::schema::audit_events;

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = audit_events, check_for_backend(diesel::pg::Pg))]
pub struct AuditEventRow {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub livemode: Option<bool>,
    pub actor_type: String,
    pub actor_id: Option<String>,
    pub action: String,
    pub target: String,
    pub client_address: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl From<&AuditEvent> for AuditEventRow {
    fn from(e: &AuditEvent) -> Self {
        Self {
            id: e.id.uuid(),
            merchant_id: e.merchant_id.uuid(),
            livemode: e.mode.map(Mode::is_live),
            actor_type: e.actor.kind().to_owned(),
            actor_id: e.actor.id(),
            action: e.action.as_str().to_owned(),
            target: e.target.clone(),
            client_address: e.client_address.map(|a| a.to_string()),
            before: e.before.as_ref().map(ToString::to_string),
            after: e.after.as_ref().map(ToString::to_string),
            created_at: e.created_at.as_datetime(),
        }
    }
}

fn json(
    field: &'static str,
    text: Option<String>,
) -> Result<Option<serde_json::Value>, StoreError> {
    text.map(|t| serde_json::from_str(&t).map_err(|_| corrupt(field, t)))
        .transpose()
}

impl TryFrom<AuditEventRow> for AuditEvent {
    type Error = StoreError;

    fn try_from(r: AuditEventRow) -> Result<Self, StoreError> {
        Ok(AuditEvent {
            id: AuditEventId::from_uuid(r.id),
            merchant_id: MerchantId::from_uuid(r.merchant_id),
            mode: r.livemode.map(Mode::from_livemode),
            actor: AuditActor::from_parts(&r.actor_type, r.actor_id.as_deref())
                .ok_or_else(|| corrupt("actor", &r.actor_type))?,
            action: parse_enum("audit action", &r.action, AuditAction::parse)?,
            target: r.target,
            client_address: r
                .client_address
                .map(|a| a.parse().map_err(|_| corrupt("client_address", a)))
                .transpose()?,
            before: json("before", r.before)?,
            after: json("after", r.after)?,
            created_at: Timestamp::new(r.created_at),
        })
    }
}
