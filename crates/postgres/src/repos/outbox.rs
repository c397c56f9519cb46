//! The transactional outbox (D13): events and their per-endpoint delivery records are
//! written in the same transaction as the change that fires them; the table's insert
//! trigger queues each delivery and announces its id to the workers at commit.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use stablepay_domain::ports::{EventDraft, NewDelivery, Outbox, ResendOutcome, StoreError};
use stablepay_domain::rules::envelope;
use stablepay_domain::{EventId, EventType, WebhookEventRecord};
use uuid::Uuid;

use crate::diesel_internals::Prepared;
use crate::error::map_diesel_error;
use crate::rows::WebhookEventRow;
use crate::schema::{events, webhook_endpoints as we, webhook_events as wev};
use crate::PgStore;

/// The channel the `webhook_events_enqueue` trigger announces new deliveries on.
pub const NOTIFY_CHANNEL: &str = "stablepay_webhook_events";

pub(crate) enum OutboxError {
    Db(diesel::result::Error),
    Render(String),
}

impl From<diesel::result::Error> for OutboxError {
    fn from(e: diesel::result::Error) -> Self {
        OutboxError::Db(e)
    }
}

impl From<OutboxError> for StoreError {
    fn from(e: OutboxError) -> Self {
        match e {
            OutboxError::Db(e) => map_diesel_error(e),
            OutboxError::Render(msg) => StoreError::Internal(msg),
        }
    }
}

fn pending_row(d: &NewDelivery, event_id: Option<Uuid>) -> WebhookEventRow {
    WebhookEventRow {
        id: d.id.uuid(),
        event_id,
        merchant_id: d.merchant_id.uuid(),
        livemode: d.mode.is_live(),
        event_type: d.event_type.as_str().to_owned(),
        endpoint_id: d.endpoint.uuid(),
        status: "pending".into(),
        attempts: 0,
        next_attempt_at: Some(d.created_at.as_datetime()),
        last_attempt_at: None,
        last_error: None,
        response_status: None,
        resend_of: d.resend_of.map(|r| r.uuid()),
        payload: d.payload.clone(),
        created_at: d.created_at.as_datetime(),
    }
}

/// Writes an event and routes it (spec "Routing rules") inside the caller's transaction.
pub(crate) async fn write_event(
    conn: &mut AsyncPgConnection,
    draft: &EventDraft,
) -> Result<Vec<EventId>, OutboxError> {
    let event_id = EventId::generate_at(draft.created_at).uuid();
    let livemode = draft.mode.is_live();
    diesel::insert_into(events::table)
        .values((
            events::id.eq(event_id),
            events::merchant_id.eq(draft.merchant_id.uuid()),
            events::livemode.eq(livemode),
            events::event_type.eq(draft.event_type.as_str()),
            events::data.eq(&draft.object_json),
            events::created_at.eq(draft.created_at.as_datetime()),
        ))
        .execute(conn)
        .await?;
    // Routing rule 1 (mode) in SQL; rule 2 (enabled_events) by the domain's rule.
    let candidates: Vec<(Uuid, Vec<String>)> = we::table
        .filter(we::merchant_id.eq(draft.merchant_id.uuid()))
        .filter(we::livemode.eq(livemode))
        .filter(we::deleted_at.is_null())
        .filter(we::status.eq("enabled"))
        .select((we::id, we::enabled_events))
        .load(conn)
        .await?;
    let endpoints = candidates
        .into_iter()
        .filter_map(|(id, names)| {
            let enabled: Vec<EventType> =
                names.iter().filter_map(|n| EventType::parse(n)).collect();
            draft.event_type.is_enabled_in(&enabled).then_some(id)
        })
        .collect::<Vec<_>>();
    let mut ids = Vec::with_capacity(endpoints.len());
    let mut rows = Vec::with_capacity(endpoints.len());
    for endpoint in endpoints {
        // Each endpoint's record is its own envelope: record id == envelope id.
        let id = EventId::generate_at(draft.created_at);
        let payload = envelope::render(
            id,
            draft.event_type,
            livemode,
            draft.created_at,
            &draft.object_json,
        )
        .map_err(OutboxError::Render)?;
        let delivery = NewDelivery {
            id,
            merchant_id: draft.merchant_id,
            mode: draft.mode,
            event_type: draft.event_type,
            endpoint: stablepay_domain::WebhookEndpointId::from_uuid(endpoint),
            payload,
            resend_of: None,
            created_at: draft.created_at,
        };
        rows.push(pending_row(&delivery, Some(event_id)));
        ids.push(id);
    }
    if !rows.is_empty() {
        // One shape per endpoint count: few, so the statement is worth preparing.
        // The insert trigger queues the rows and announces their ids at commit.
        Prepared(diesel::insert_into(wev::table).values(&rows))
            .execute(conn)
            .await?;
    }
    Ok(ids)
}

#[async_trait]
impl Outbox for PgStore {
    async fn record_event(&self, draft: &EventDraft) -> Result<Vec<EventId>, StoreError> {
        let mut conn = self.conn().await?;
        Ok(conn
            .transaction(async |conn| write_event(conn, draft).await)
            .await?)
    }

    async fn enqueue(&self, delivery: &NewDelivery) -> Result<WebhookEventRecord, StoreError> {
        let mut conn = self.conn().await?;
        let row = pending_row(delivery, None);
        let inserted = conn
            .transaction(async |conn| {
                let r = diesel::insert_into(wev::table)
                    .values(&row)
                    .returning(WebhookEventRow::as_returning())
                    .get_result(conn)
                    .await?;
                Ok::<_, OutboxError>(r)
            })
            .await?;
        inserted.try_into()
    }

    async fn enqueue_resend(&self, delivery: &NewDelivery) -> Result<ResendOutcome, StoreError> {
        let Some(root) = delivery.resend_of else {
            return Err(StoreError::Internal("a resend needs resend_of".into()));
        };
        let root = root.uuid();
        let mut conn = self.conn().await?;
        let row = pending_row(delivery, None);
        let inserted = conn
            .transaction(async |conn| {
                // Serialises concurrent resends of one root: the check and insert are atomic.
                let root_event: Option<Uuid> = wev::table
                    .filter(wev::id.eq(root))
                    .select(wev::event_id)
                    .for_update()
                    .first(conn)
                    .await?;
                let pending: i64 = wev::table
                    .filter(wev::id.eq(root).or(wev::resend_of.eq(root)))
                    .filter(wev::status.eq("pending"))
                    .count()
                    .get_result(conn)
                    .await?;
                if pending > 0 {
                    return Ok(None);
                }
                let row = WebhookEventRow {
                    event_id: root_event,
                    ..row
                };
                let r = diesel::insert_into(wev::table)
                    .values(&row)
                    .returning(WebhookEventRow::as_returning())
                    .get_result(conn)
                    .await?;
                Ok::<_, diesel::result::Error>(Some(r))
            })
            .await
            .map_err(map_diesel_error)?;
        match inserted {
            Some(row) => Ok(ResendOutcome::Enqueued(row.try_into()?)),
            None => Ok(ResendOutcome::StillPending),
        }
    }
}
