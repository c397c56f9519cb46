//! Read-only resources: payments, refunds, subscriptions, payment attempts, webhook events.

use actix_web::web::{Data, Payload};
use actix_web::{HttpRequest, HttpResponse};
use stablepay_domain::*;

use stablepay_domain::services::resend_event;

use crate::error::ApiError;
use crate::state::AppState;
use crate::wrapper::{api_call, Reply};
use stablepay_domain::representation::*;
use stablepay_domain::Missing;

/// GET one resource by id through a `ResourceReader` method.
macro_rules! retrieve_handler {
    ($name:ident, $id:ty, $method:ident, $resource:ty) => {
        pub async fn $name(
            state: Data<AppState>,
            req: HttpRequest,
            payload: Payload,
        ) -> HttpResponse {
            api_call(state, req, payload, |call| async move {
                let id: $id = call.path_id()?;
                let found = call
                    .state
                    .reader
                    .$method(call.auth.merchant_id, call.auth.mode, id)
                    .await?;
                Reply::ok(&<$resource>::from(found.ok_or_else(|| Missing::of(id))?))
            })
            .await
        }
    };
}

retrieve_handler!(get_payment, PaymentId, payment, PaymentResource);
retrieve_handler!(get_refund, RefundId, refund, RefundResource);
retrieve_handler!(
    get_subscription,
    SubscriptionId,
    subscription,
    SubscriptionResource
);
retrieve_handler!(
    get_payment_attempt,
    PaymentAttemptId,
    payment_attempt,
    PaymentAttemptResource
);
retrieve_handler!(
    get_webhook_event,
    EventId,
    webhook_event,
    WebhookEventResource
);

pub async fn list_payments(
    state: Data<AppState>,
    req: HttpRequest,
    payload: Payload,
) -> HttpResponse {
    api_call(state, req, payload, |call| async move {
        let mut q = call.query()?;
        let filter = PaymentFilter {
            subscription: q.id_filter::<SubscriptionId>("subscription")?,
            checkout_session: q.id_filter::<CheckoutSessionId>("checkout_session")?,
            status: q.take_parsed("status", PaymentStatus::parse, &PaymentStatus::expected())?,
        };
        let page = q.page::<PaymentId>("payment")?;
        q.finish()?;
        let rows = call
            .state
            .reader
            .payments(call.auth.merchant_id, call.auth.mode, &filter, &page)
            .await?;
        Reply::ok(&List::from_page(rows, PaymentResource::from))
    })
    .await
}

pub async fn list_refunds(
    state: Data<AppState>,
    req: HttpRequest,
    payload: Payload,
) -> HttpResponse {
    api_call(state, req, payload, |call| async move {
        let mut q = call.query()?;
        let filter = RefundFilter {
            payment: q.id_filter::<PaymentId>("payment")?,
        };
        let page = q.page::<RefundId>("refund")?;
        q.finish()?;
        let rows = call
            .state
            .reader
            .refunds(call.auth.merchant_id, call.auth.mode, &filter, &page)
            .await?;
        Reply::ok(&List::from_page(rows, RefundResource::from))
    })
    .await
}

pub async fn list_subscriptions(
    state: Data<AppState>,
    req: HttpRequest,
    payload: Payload,
) -> HttpResponse {
    api_call(state, req, payload, |call| async move {
        let mut q = call.query()?;
        let filter = SubscriptionFilter {
            status: q.take_parsed(
                "status",
                SubscriptionStatus::parse,
                &SubscriptionStatus::expected(),
            )?,
            wallet_address: q.take_parsed(
                "wallet_address",
                |s| Address::parse(s).ok(),
                "a 0x-prefixed EVM address",
            )?,
        };
        let page = q.page::<SubscriptionId>("subscription")?;
        q.finish()?;
        let rows = call
            .state
            .reader
            .subscriptions(call.auth.merchant_id, call.auth.mode, &filter, &page)
            .await?;
        Reply::ok(&List::from_page(rows, SubscriptionResource::from))
    })
    .await
}

pub async fn list_payment_attempts(
    state: Data<AppState>,
    req: HttpRequest,
    payload: Payload,
) -> HttpResponse {
    api_call(state, req, payload, |call| async move {
        let mut q = call.query()?;
        let filter = PaymentAttemptFilter {
            subscription: q.id_filter::<SubscriptionId>("subscription")?,
            status: q.take_parsed("status", AttemptStatus::parse, &AttemptStatus::expected())?,
        };
        let page = q.page::<PaymentAttemptId>("payment attempt")?;
        q.finish()?;
        let rows = call
            .state
            .reader
            .payment_attempts(call.auth.merchant_id, call.auth.mode, &filter, &page)
            .await?;
        Reply::ok(&List::from_page(rows, PaymentAttemptResource::from))
    })
    .await
}

pub async fn list_webhook_events(
    state: Data<AppState>,
    req: HttpRequest,
    payload: Payload,
) -> HttpResponse {
    api_call(state, req, payload, |call| async move {
        let mut q = call.query()?;
        let filter = WebhookEventFilter {
            status: q.take_parsed("status", DeliveryStatus::parse, &DeliveryStatus::expected())?,
            event_type: q.take_parsed("type", EventType::parse, "a known event type")?,
            endpoint: q.id_filter::<WebhookEndpointId>("endpoint")?,
        };
        let page = q.page::<EventId>("webhook event")?;
        q.finish()?;
        let rows = call
            .state
            .reader
            .webhook_events(call.auth.merchant_id, call.auth.mode, &filter, &page)
            .await?;
        Reply::ok(&List::from_page(rows, WebhookEventResource::from))
    })
    .await
}

/// Every attempt at one delivery, newest first (an extra beyond the spec).
pub async fn list_webhook_attempts(
    state: Data<AppState>,
    req: HttpRequest,
    payload: Payload,
) -> HttpResponse {
    api_call(state, req, payload, |call| async move {
        let id: EventId = call.path_id()?;
        let mut q = call.query()?;
        let page = q.page::<WebhookAttemptId>("webhook attempt")?;
        q.finish()?;
        let mode = call.auth.mode;
        let rows = call
            .state
            .reader
            .webhook_attempts(call.auth.merchant_id, mode, id, &page)
            .await?
            .ok_or_else(|| Missing::of(id))?;
        Reply::ok(&List::from_page(rows, |a| {
            WebhookAttemptResource::new(a, mode)
        }))
    })
    .await
}

pub async fn resend_webhook_event(
    state: Data<AppState>,
    req: HttpRequest,
    payload: Payload,
) -> HttpResponse {
    api_call(state, req, payload, |call| async move {
        let id: EventId = call.path_id()?;
        if !call.body.iter().all(u8::is_ascii_whitespace) && call.body.as_ref() != b"{}" {
            return Err(ApiError::invalid_field(
                "body",
                "this endpoint takes no body",
            ));
        }
        let s = &call.state;
        let record = resend_event(
            &call.auth,
            id,
            s.reader.as_ref(),
            s.endpoints.as_ref(),
            s.outbox.as_ref(),
            s.clock.as_ref(),
        )
        .await?;
        Reply::created(&WebhookEventResource::from(record))
    })
    .await
}
