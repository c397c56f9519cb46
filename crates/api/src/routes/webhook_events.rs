//! What a merchant does to a webhook event: resend it.

use stablepay_domain::representation::WebhookEventResource;
use stablepay_domain::services::resend_event;
use stablepay_domain::EventId;

use crate::error::ApiError;
use crate::request::{InTransaction, Reply, WriteCall};

/// Delivers the event again as a new record (`resend_of` names the original).
#[utoipa::path(post, path = "/api/v1/webhook_events/{id}/resend",
    operation_id = "resend_webhook_event", tag = "Webhook events",
    params(("id" = EventId, Path)),
    responses((status = 201, description = "The new delivery record", body = WebhookEventResource)))]
pub async fn resend_webhook_event(call: WriteCall) -> Result<InTransaction, ApiError> {
    let id: EventId = call.path_id()?;
    if !call.body.iter().all(u8::is_ascii_whitespace) && call.body.as_ref() != b"{}" {
        return Err(ApiError::invalid_field(
            "body",
            "this endpoint takes no body",
        ));
    }
    Ok(InTransaction::new(move |call: WriteCall| async move {
        let record = resend_event(
            &call.auth,
            id,
            call.ports().reader(),
            call.ports().endpoints(),
            call.ports().outbox(),
            call.state.clock.as_ref(),
        )
        .await?;
        Reply::created(&WebhookEventResource::from(record))
    }))
}
