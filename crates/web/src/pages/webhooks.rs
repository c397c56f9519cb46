//! Developers → webhooks: endpoints (create with the secret shown once, edit, disable,
//! rotate the secret, send a test event, delete) and their recent deliveries with a
//! resend action, under the same rules as the API.

use askama::Template;
use stablepay_domain::ports::EndpointChanges;
use stablepay_domain::rules::validation::{bounded_text, DESCRIPTION_MAX};
use stablepay_domain::services::{
    create_webhook_endpoint, delete_webhook_endpoint, resend_event, rotate_webhook_secret,
    send_test_event, update_webhook_endpoint, NewEndpoint, ResendError, TestEventError,
};
use stablepay_domain::{
    EndpointStatus, EventId, EventType, PageRequest, WebhookEndpoint, WebhookEndpointId,
    WebhookEventFilter, WebhookEventRecord, WebhookUrl,
};

use super::{next_page, page_handler, page_request};
use crate::format::{opt_time, time};
use crate::shell::{Chrome, Page, Reply, WebError};

pub struct EndpointLine {
    pub id: String,
    pub link: String,
    pub url: String,
    pub status: &'static str,
    pub events: String,
    pub description: String,
    pub disabled_reason: String,
    pub created: String,
}

fn endpoint_line(p: &Page, e: &WebhookEndpoint) -> EndpointLine {
    EndpointLine {
        id: e.id.to_string(),
        link: p.link(&format!("/developers/webhooks/{}", e.id)),
        url: e.url.as_str().to_owned(),
        status: e.status.as_str(),
        events: if e.enabled_events.is_empty() {
            "all events".to_owned()
        } else {
            e.enabled_events
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        },
        description: e.description.clone().unwrap_or_default(),
        disabled_reason: e.disabled_reason.clone().unwrap_or_default(),
        created: time(e.created_at),
    }
}

#[derive(Template)]
#[template(path = "webhooks.html")]
struct ListView {
    chrome: Chrome,
    endpoints: Vec<EndpointLine>,
    event_types: Vec<&'static str>,
    /// An endpoint just created (or rotated) and its secret, shown this once.
    secret: Option<(String, String)>,
    errors: Vec<String>,
}

async fn render_list(
    p: &Page,
    secret: Option<(String, String)>,
    errors: Vec<String>,
) -> Result<Reply, WebError> {
    let ctx = p.ctx();
    let rows = p
        .state
        .store
        .endpoints()
        .list(ctx.merchant_id, ctx.mode, &PageRequest::first(100))
        .await?;
    Reply::render(&ListView {
        chrome: p.chrome("webhooks", "Webhooks"),
        endpoints: rows.data.iter().map(|e| endpoint_line(p, e)).collect(),
        event_types: EventType::ALL.iter().map(|t| t.as_str()).collect(),
        secret,
        errors,
    })
}

page_handler!(
    list,
    |p| async move { render_list(&p, None, Vec::new()).await }
);

fn parse_events(p: &Page, errors: &mut Vec<String>) -> Vec<EventType> {
    let mut out = Vec::new();
    for name in p.form.all("enabled_events") {
        match EventType::parse(name) {
            Some(t) => out.push(t),
            None => errors.push(format!(
                "enabled_events: `{name}` is not a known event type"
            )),
        }
    }
    out
}

page_handler!(create, |p| async move {
    let mut errors = Vec::new();
    let url = WebhookUrl::parse(p.form.get("url").unwrap_or("").trim())
        .map_err(|e| errors.push(format!("url: {e}")))
        .ok();
    let enabled_events = parse_events(&p, &mut errors);
    let description = p.form.text("description").and_then(|d| {
        bounded_text(&d, 0, DESCRIPTION_MAX)
            .map_err(|e| errors.push(format!("description: {e}")))
            .ok()
    });
    let Some(url) = url.filter(|_| errors.is_empty()) else {
        return render_list(&p, None, errors).await;
    };
    let s = &p.state;
    let new = NewEndpoint {
        url,
        enabled_events,
        description,
    };
    let (endpoint, secret) = create_webhook_endpoint(
        &p.ctx(),
        new,
        &p.changer(),
        s.store.endpoints(),
        s.clock.as_ref(),
    )
    .await?;
    render_list(&p, Some((endpoint.id.to_string(), secret)), Vec::new()).await
});

pub struct DeliveryLine {
    pub id: String,
    pub link: String,
    pub event_type: &'static str,
    pub status: &'static str,
    pub failed: bool,
    pub attempts: u32,
    pub response_status: String,
    pub last_error: String,
    pub resend_of: String,
    pub created: String,
    pub next_attempt: String,
}

fn delivery_line(p: &Page, e: &WebhookEventRecord) -> DeliveryLine {
    DeliveryLine {
        id: e.id.to_string(),
        link: p.link(&format!("/developers/events/{}", e.id)),
        event_type: e.event_type.as_str(),
        status: e.status.as_str(),
        failed: e.status == stablepay_domain::DeliveryStatus::Failed,
        attempts: e.attempts,
        response_status: e.response_status.map(|s| s.to_string()).unwrap_or_default(),
        last_error: e.last_error.clone().unwrap_or_default(),
        resend_of: e.resend_of.map(|r| r.to_string()).unwrap_or_default(),
        created: time(e.created_at),
        next_attempt: opt_time(e.next_attempt_at),
    }
}

#[derive(Template)]
#[template(path = "webhook.html")]
struct DetailView {
    chrome: Chrome,
    endpoint: EndpointLine,
    enabled: bool,
    selected: Vec<(&'static str, bool)>,
    deliveries: Vec<DeliveryLine>,
    next: Option<String>,
    secret: Option<String>,
    error: Option<String>,
    action: String,
}

async fn render_detail(
    p: &Page,
    secret: Option<String>,
    error: Option<String>,
) -> Result<Reply, WebError> {
    let ctx = p.ctx();
    let id = WebhookEndpointId::parse(&p.path("id")).map_err(|_| WebError::NotFound)?;
    let s = &p.state;
    let endpoint = s
        .store
        .endpoints()
        .get(ctx.merchant_id, ctx.mode, id)
        .await?
        .ok_or(WebError::NotFound)?;
    let page = page_request::<EventId>(p)?;
    let rows = s
        .store
        .reader()
        .webhook_events(
            ctx.merchant_id,
            ctx.mode,
            &WebhookEventFilter {
                endpoint: Some(id),
                ..WebhookEventFilter::default()
            },
            &page,
        )
        .await?;
    let action = p.link(&format!("/developers/webhooks/{id}"));
    Reply::render(&DetailView {
        chrome: p.chrome("webhooks", format!("Endpoint {id}")),
        enabled: endpoint.status == EndpointStatus::Enabled,
        selected: EventType::ALL
            .iter()
            .map(|t| (t.as_str(), endpoint.enabled_events.contains(t)))
            .collect(),
        next: next_page(
            &action,
            rows.has_more,
            rows.data.last().map(|x| x.id.to_string()),
            "",
        ),
        deliveries: rows.data.iter().map(|e| delivery_line(p, e)).collect(),
        endpoint: endpoint_line(p, &endpoint),
        secret,
        error,
        action,
    })
}

page_handler!(show, |p| async move { render_detail(&p, None, None).await });

fn endpoint_id(p: &Page) -> Result<WebhookEndpointId, WebError> {
    WebhookEndpointId::parse(&p.path("id")).map_err(|_| WebError::NotFound)
}

// Edit: url, events, description and enabled/disabled, in one form.
page_handler!(update, |p| async move {
    let id = endpoint_id(&p)?;
    let mut errors = Vec::new();
    let url = WebhookUrl::parse(p.form.get("url").unwrap_or("").trim())
        .map_err(|e| errors.push(format!("url: {e}")))
        .ok();
    let events = parse_events(&p, &mut errors);
    let description = match p.form.text("description") {
        None => Some(None),
        Some(d) => bounded_text(&d, 0, DESCRIPTION_MAX)
            .map(Some)
            .map_err(|e| errors.push(format!("description: {e}")))
            .ok(),
    };
    let status = match p.form.get("status") {
        Some(s) => EndpointStatus::parse(s),
        None => None,
    };
    if !errors.is_empty() {
        return render_detail(&p, None, Some(errors.join("; "))).await;
    }
    let changes = EndpointChanges {
        url,
        enabled_events: Some(events),
        status,
        description,
    };
    let s = &p.state;
    update_webhook_endpoint(
        &p.ctx(),
        id,
        changes,
        &p.changer(),
        s.store.endpoints(),
        s.clock.as_ref(),
    )
    .await?;
    Ok(Reply::Redirect(p.link(&format!(
        "/developers/webhooks/{id}?notice=endpoint_updated"
    ))))
});

page_handler!(rotate, |p| async move {
    let id = endpoint_id(&p)?;
    let s = &p.state;
    let (_, secret) = rotate_webhook_secret(
        &p.ctx(),
        id,
        &p.changer(),
        s.store.endpoints(),
        s.clock.as_ref(),
    )
    .await?;
    render_detail(&p, Some(secret), None).await
});

page_handler!(send_test, |p| async move {
    let id = endpoint_id(&p)?;
    let event_type = p.form.text("type").and_then(|t| EventType::parse(&t));
    let s = &p.state;
    match send_test_event(
        &p.ctx(),
        id,
        event_type,
        s.store.endpoints(),
        s.store.outbox(),
        s.clock.as_ref(),
    )
    .await
    {
        Ok(_) => Ok(Reply::Redirect(
            p.link(&format!("/developers/webhooks/{id}?notice=test_sent")),
        )),
        Err(TestEventError::NotFound(_)) => Err(WebError::NotFound),
        Err(TestEventError::Store(e)) => Err(e.into()),
        Err(e) => render_detail(&p, None, Some(e.to_string())).await,
    }
});

page_handler!(delete, |p| async move {
    let id = endpoint_id(&p)?;
    let s = &p.state;
    delete_webhook_endpoint(
        &p.ctx(),
        id,
        &p.changer(),
        s.store.endpoints(),
        s.clock.as_ref(),
    )
    .await?;
    Ok(Reply::Redirect(
        p.link("/developers/webhooks?notice=endpoint_deleted"),
    ))
});

#[derive(Template)]
#[template(path = "event.html")]
struct EventView {
    chrome: Chrome,
    delivery: DeliveryLine,
    endpoint_link: String,
    last_attempt: String,
    payload: String,
    resend_action: String,
    error: Option<String>,
}

async fn render_event(p: &Page, error: Option<String>) -> Result<Reply, WebError> {
    let ctx = p.ctx();
    let id = EventId::parse(&p.path("id")).map_err(|_| WebError::NotFound)?;
    let e = p
        .state
        .store
        .reader()
        .webhook_event(ctx.merchant_id, ctx.mode, id)
        .await?
        .ok_or(WebError::NotFound)?;
    let payload = serde_json::from_str::<serde_json::Value>(&e.payload)
        .and_then(|v| serde_json::to_string_pretty(&v))
        .unwrap_or_else(|_| e.payload.clone());
    Reply::render(&EventView {
        chrome: p.chrome("webhooks", format!("Delivery {id}")),
        endpoint_link: p.link(&format!("/developers/webhooks/{}", e.endpoint)),
        last_attempt: opt_time(e.last_attempt_at),
        resend_action: p.link(&format!("/developers/events/{id}/resend")),
        delivery: delivery_line(p, &e),
        payload,
        error,
    })
}

page_handler!(event, |p| async move { render_event(&p, None).await });

page_handler!(resend, |p| async move {
    let id = EventId::parse(&p.path("id")).map_err(|_| WebError::NotFound)?;
    let s = &p.state;
    match resend_event(
        &p.ctx(),
        id,
        s.store.reader(),
        s.store.endpoints(),
        s.store.outbox(),
        s.clock.as_ref(),
    )
    .await
    {
        Ok(new) => Ok(Reply::Redirect(
            p.link(&format!("/developers/events/{}?notice=resent", new.id)),
        )),
        Err(ResendError::NotFound(_)) => Err(WebError::NotFound),
        Err(ResendError::Store(e)) => Err(e.into()),
        Err(e) => render_event(&p, Some(e.to_string())).await,
    }
});
