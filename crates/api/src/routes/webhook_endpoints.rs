use serde::Deserialize;
use stablepay_domain::ports::EndpointChanges;
use stablepay_domain::rules::validation::{bounded_text, DESCRIPTION_MAX};
use stablepay_domain::services::{
    create_webhook_endpoint, delete_webhook_endpoint, rotate_webhook_secret, send_test_event,
    update_webhook_endpoint, NewEndpoint,
};
use stablepay_domain::{
    EndpointStatus, EventType, ValidationErrors, WebhookEndpointId, WebhookUrl,
};

use crate::error::ApiError;
use crate::input::json_body;
use crate::request::{InTransaction, ReadCall, ReadReply, Reply, WriteCall};
use stablepay_domain::representation::{
    DeletedEndpoint, List, Resource, WebhookEndpointResource, WebhookEventResource,
};
use stablepay_domain::Missing;
use stablepay_request_store::Checked;

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateWebhookEndpointRequest)]
pub(crate) struct CreateEndpointBody {
    /// A public https URL (≤ 2000 characters).
    #[schema(schema_with = crate::openapi::fields::webhook_url, required = true)]
    url: Option<String>,
    /// The events to deliver; empty or absent means every event.
    #[schema(value_type = Option<Vec<EventType>>)]
    enabled_events: Option<Vec<String>>,
    #[schema(schema_with = crate::openapi::fields::description)]
    description: Option<String>,
    /// Refused: endpoints start enabled (kept to say so, rather than "unknown").
    #[schema(ignore)]
    status: Option<String>,
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateWebhookEndpointRequest)]
pub(crate) struct EndpointBody {
    #[schema(schema_with = crate::openapi::fields::webhook_url_update)]
    url: Option<String>,
    #[schema(value_type = Option<Vec<EventType>>)]
    enabled_events: Option<Vec<String>>,
    #[schema(schema_with = crate::openapi::fields::description)]
    description: Option<String>,
    #[schema(value_type = Option<EndpointStatus>)]
    status: Option<String>,
}

fn parse_events(events: Vec<String>, errors: &mut ValidationErrors) -> Option<Vec<EventType>> {
    let mut parsed = Vec::with_capacity(events.len());
    for (i, name) in events.iter().enumerate() {
        match EventType::parse(name) {
            Some(t) => parsed.push(t),
            None => errors.push(
                format!("enabled_events[{i}]"),
                format!("`{name}` is not a known event type"),
            ),
        }
    }
    (parsed.len() == events.len()).then_some(parsed)
}

/// Creates an endpoint; the response (only this one) carries its signing `secret`.
#[utoipa::path(post, path = "/api/v1/webhook_endpoints", operation_id = "create_webhook_endpoint",
    tag = "Webhook endpoints", request_body = CreateEndpointBody,
    responses((status = 201, description = "The endpoint and its secret", body = WebhookEndpointResource)))]
pub async fn create(call: WriteCall) -> Result<InTransaction, ApiError> {
    let body: CreateEndpointBody = json_body(&call.body)?;
    let mut e = ValidationErrors::default();
    let url = match body.url {
        None => {
            e.push("url", "is required");
            None
        }
        Some(u) => e.check("url", WebhookUrl::parse(&u)),
    };
    let events = parse_events(body.enabled_events.unwrap_or_default(), &mut e);
    let description = body
        .description
        .and_then(|d| e.check("description", bounded_text(&d, 0, DESCRIPTION_MAX)));
    if body.status.is_some() {
        e.push(
            "status",
            "cannot be set at creation; endpoints start enabled",
        );
    }
    let (Some(url), Some(enabled_events), true) = (url, events, e.is_empty()) else {
        return Err(e.into());
    };
    let new = NewEndpoint {
        url,
        enabled_events,
        description,
    };
    // Stored in one transaction with its Idempotency-Key's answer: a retry after a crash
    // can never create a second endpoint.
    Ok(InTransaction::new(move |call: WriteCall| async move {
        let clock = call.state.clock.as_ref();
        let (endpoint, secret) = create_webhook_endpoint(
            &call.auth,
            new,
            &call.changer(),
            call.ports().endpoints(),
            clock,
        )
        .await?;
        let mut reply = Reply::created(&WebhookEndpointResource::new(
            endpoint.clone(),
            Some(secret),
        ))?;
        // A replay returns the same endpoint without revealing the secret again.
        reply.replay_body =
            Some(Reply::created(&WebhookEndpointResource::new(endpoint, None))?.body);
        Ok(reply)
    }))
}

#[utoipa::path(get, path = "/api/v1/webhook_endpoints/{id}", operation_id = "retrieve_webhook_endpoint",
    tag = "Webhook endpoints", params(("id" = WebhookEndpointId, Path)),
    responses((status = 200, description = "The endpoint", body = WebhookEndpointResource)))]
pub async fn retrieve(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let id: WebhookEndpointId = call.path_id()?;
    let endpoint = call.reads().endpoint(id).await?;
    let endpoint = endpoint.try_map(|e| e.ok_or_else(|| Missing::of(id)))?;
    Reply::read(endpoint.map(|e| WebhookEndpointResource::new(e, None)))
}

#[utoipa::path(get, path = "/api/v1/webhook_endpoints", operation_id = "list_webhook_endpoints",
    tag = "Webhook endpoints", params(crate::openapi::PageParams),
    responses((status = 200, description = "Endpoints, newest first", body = List<WebhookEndpointResource>)))]
pub async fn list(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let mut q = call.query()?;
    let page = q.page::<WebhookEndpointId>()?;
    q.finish()?;
    let endpoints = call.reads().endpoints(&page).await?;
    Reply::read(endpoints.map(|e| List::from_page(e, |e| WebhookEndpointResource::new(e, None))))
}

#[utoipa::path(post, path = "/api/v1/webhook_endpoints/{id}", operation_id = "update_webhook_endpoint",
    tag = "Webhook endpoints", params(("id" = WebhookEndpointId, Path)), request_body = EndpointBody,
    responses((status = 200, description = "The updated endpoint", body = WebhookEndpointResource)))]
pub async fn update(call: WriteCall) -> Result<InTransaction, ApiError> {
    let id: WebhookEndpointId = call.path_id()?;
    let body: EndpointBody = json_body(&call.body)?;
    let mut e = ValidationErrors::default();
    let changes = EndpointChanges {
        url: body.url.and_then(|u| e.check("url", WebhookUrl::parse(&u))),
        enabled_events: body.enabled_events.and_then(|ev| parse_events(ev, &mut e)),
        status: body.status.and_then(|st| {
            e.check(
                "status",
                EndpointStatus::parse(&st).ok_or("must be \"enabled\" or \"disabled\""),
            )
        }),
        description: body
            .description
            .and_then(|d| e.check("description", bounded_text(&d, 0, DESCRIPTION_MAX)))
            .map(Some),
    };
    e.into_result()?;
    Ok(InTransaction::new(move |call: WriteCall| async move {
        let (endpoints, clock) = (call.ports().endpoints(), call.state.clock.as_ref());
        let endpoint =
            update_webhook_endpoint(&call.auth, id, changes, &call.changer(), endpoints, clock)
                .await?;
        Reply::ok(&WebhookEndpointResource::new(endpoint, None))
    }))
}

/// A new signing secret; the previous one keeps signing (as a second signature) for 24 hours.
#[utoipa::path(post, path = "/api/v1/webhook_endpoints/{id}/rotate_secret",
    operation_id = "rotate_webhook_endpoint_secret", tag = "Webhook endpoints",
    params(("id" = WebhookEndpointId, Path)),
    responses((status = 200, description = "The endpoint and its new secret", body = WebhookEndpointResource)))]
pub async fn rotate_secret(call: WriteCall) -> Result<InTransaction, ApiError> {
    let id: WebhookEndpointId = call.path_id()?;
    json_body::<serde_json::Map<String, serde_json::Value>>(&call.body).and_then(|m| {
        match m.keys().next() {
            Some(k) => Err(ApiError::invalid_field(
                k.clone(),
                "is not a recognised parameter",
            )),
            None => Ok(()),
        }
    })?;
    Ok(InTransaction::new(move |call: WriteCall| async move {
        let (endpoint, secret) = rotate_webhook_secret(
            &call.auth,
            id,
            &call.changer(),
            call.ports().endpoints(),
            call.state.clock.as_ref(),
        )
        .await?;
        let mut reply = Reply::ok(&WebhookEndpointResource::new(
            endpoint.clone(),
            Some(secret),
        ))?;
        // A replay never shows the secret again.
        reply.replay_body = Some(Reply::ok(&WebhookEndpointResource::new(endpoint, None))?.body);
        Ok(reply)
    }))
}

#[utoipa::path(delete, path = "/api/v1/webhook_endpoints/{id}", operation_id = "delete_webhook_endpoint",
    tag = "Webhook endpoints", params(("id" = WebhookEndpointId, Path)),
    responses((status = 200, description = "Deleted", body = DeletedEndpoint)))]
pub async fn delete(call: WriteCall) -> Result<Reply, ApiError> {
    let id: WebhookEndpointId = call.path_id()?;
    delete_webhook_endpoint(
        &call.auth,
        id,
        &call.changer(),
        call.ports().endpoints(),
        call.state.clock.as_ref(),
    )
    .await?;
    Reply::ok(&DeletedEndpoint::new(id))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = SendTestEventRequest)]
pub(crate) struct TestEventBody {
    /// One of the endpoint's enabled events (default: its first, or `payment.succeeded`).
    #[serde(rename = "type")]
    #[schema(value_type = Option<EventType>)]
    event_type: Option<String>,
}

/// Sends a synthetic event (test ids, `livemode` false) through the real delivery path.
#[utoipa::path(post, path = "/api/v1/webhook_endpoints/{id}/test", operation_id = "send_test_webhook_event",
    tag = "Webhook endpoints", params(("id" = WebhookEndpointId, Path)), request_body = TestEventBody,
    responses((status = 201, description = "The delivery record", body = WebhookEventResource)))]
pub async fn send_test(call: WriteCall) -> Result<InTransaction, ApiError> {
    let id: WebhookEndpointId = call.path_id()?;
    let body: TestEventBody = json_body(&call.body)?;
    let event_type = body
        .event_type
        .map(|t| {
            EventType::parse(&t).ok_or_else(|| {
                ApiError::invalid_field("type", format!("`{t}` is not a known event type"))
            })
        })
        .transpose()?;
    Ok(InTransaction::new(move |call: WriteCall| async move {
        let record = send_test_event(
            &call.auth,
            id,
            event_type,
            call.ports().endpoints(),
            call.ports().outbox(),
            call.state.clock.as_ref(),
        )
        .await?;
        Reply::created(&WebhookEventResource::from(record))
    }))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RecoverWebhookEndpointRequest)]
pub(crate) struct RecoverBody {
    /// Failed deliveries created at or after this time are sent again.
    #[schema(value_type = String, format = DateTime)]
    since: Option<String>,
}

/// What `POST /webhook_endpoints/{id}/recover` answers.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub(crate) struct RecoveryResource {
    object: &'static str,
    endpoint: WebhookEndpointId,
    since: stablepay_domain::Timestamp,
    enqueued: u32,
    still_pending: u32,
    /// `false` when more than one batch of failed deliveries (100) was found: this call
    /// resent the newest batch and the worker resends the rest in the background.
    completed: bool,
}

impl Resource for RecoveryResource {
    const OBJECT: &'static str = "webhook_recovery";
}

/// Resends every failed delivery of the endpoint created since `since` (an extra). One
/// call resends at most 100 (the newest); the worker resends the rest in batches of 100.
#[utoipa::path(post, path = "/api/v1/webhook_endpoints/{id}/recover", operation_id = "recover_webhook_endpoint",
    tag = "Webhook endpoints", params(("id" = WebhookEndpointId, Path)), request_body = RecoverBody,
    responses((status = 200, description = "How many deliveries were enqueued again", body = RecoveryResource)))]
pub async fn recover(call: WriteCall) -> Result<InTransaction, ApiError> {
    let id: WebhookEndpointId = call.path_id()?;
    let body: RecoverBody = json_body(&call.body)?;
    let since = body
        .since
        .ok_or_else(|| ApiError::invalid_field("since", "is required"))
        .and_then(|s| {
            stablepay_domain::Timestamp::parse(&s).ok_or_else(|| {
                ApiError::invalid_field(
                    "since",
                    "must be an ISO 8601 time with an offset, e.g. 2026-11-23T10:00:00Z",
                )
            })
        })?;
    Ok(InTransaction::new(move |call: WriteCall| async move {
        let deps = stablepay_domain::services::RecoverDeps {
            reader: call.ports().reader(),
            endpoints: call.ports().endpoints(),
            outbox: call.ports().outbox(),
            recoveries: call.ports().recoveries(),
            clock: call.state.clock.as_ref(),
        };
        let recovery =
            stablepay_domain::services::recover_endpoint(&call.auth, id, since, &deps).await?;
        Reply::ok(&RecoveryResource {
            object: RecoveryResource::OBJECT,
            endpoint: id,
            since,
            enqueued: recovery.enqueued,
            still_pending: recovery.still_pending,
            completed: !recovery.continues,
        })
    }))
}
