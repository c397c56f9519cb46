use chrono::{DateTime, Utc};
use diesel::prelude::*;
use stablepay_domain::ports::StoreError;
use stablepay_domain::{
    EndpointStatus, EventType, MerchantId, Mode, WebhookEndpoint, WebhookEndpointId, WebhookUrl,
};
use uuid::Uuid;

use super::conv::*;
use crate::schema::webhook_endpoints;

/// The public columns of an endpoint (secrets are read only by the delivery path).
#[derive(Queryable, Selectable, Debug)]
#[diesel(table_name = webhook_endpoints, check_for_backend(diesel::pg::Pg))]
pub(crate) struct EndpointRow {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub livemode: bool,
    pub url: String,
    pub enabled_events: Vec<String>,
    pub status: String,
    pub description: Option<String>,
    pub created_at: DateTime<Utc>,
    pub disabled_reason: Option<String>,
}

#[derive(Insertable, Debug)]
#[diesel(table_name = webhook_endpoints)]
pub(crate) struct NewEndpoint {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub livemode: bool,
    pub url: String,
    pub enabled_events: Vec<String>,
    pub status: String,
    pub description: Option<String>,
    pub secret_ciphertext: Vec<u8>,
    pub created_at: DateTime<Utc>,
}

pub(crate) fn event_names(events: &[EventType]) -> Vec<String> {
    events.iter().map(|e| e.as_str().to_owned()).collect()
}

impl TryFrom<EndpointRow> for WebhookEndpoint {
    type Error = StoreError;

    fn try_from(r: EndpointRow) -> Result<Self, StoreError> {
        Ok(WebhookEndpoint {
            id: WebhookEndpointId::from_uuid(r.id),
            merchant_id: MerchantId::from_uuid(r.merchant_id),
            mode: Mode::from_livemode(r.livemode),
            url: WebhookUrl::from_trusted(r.url),
            enabled_events: r
                .enabled_events
                .iter()
                .map(|e| parse_enum("event type", e, EventType::parse))
                .collect::<Result<_, _>>()?,
            status: parse_enum("endpoint status", &r.status, EndpointStatus::parse)?,
            description: r.description,
            created_at: ts(r.created_at),
            disabled_reason: r.disabled_reason,
        })
    }
}
