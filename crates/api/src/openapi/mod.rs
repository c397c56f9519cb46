//! The OpenAPI 3.1 document of the merchant API (`/api/v1/…`), generated from the code:
//! each handler's `#[utoipa::path]`, the resources' and request bodies' `ToSchema`, and the
//! conventions every route shares through the wrapper (bearer keys, the error envelope,
//! `Idempotency-Key`, `Retry-After`), which `conventions` adds once rather than per handler.
//! Served at `GET /api/v1/openapi.json` and committed as `docs/openapi.json`.

use std::sync::OnceLock;

use actix_web::HttpResponse;
use serde_json::{json, Value};
use utoipa::OpenApi;

use crate::routes::{
    checkout_sessions, payment_links, payment_reviews, reads, refund_requests, refunds, wallets,
    webhook_endpoints, webhook_events, x402_facilitator,
};
use stablepay_domain::representation::*;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "stablepay API",
        // The document's own version (semver), which the SDKs' versions follow; the API's
        // is the path prefix `/api/v1`.
        version = "1.0.0",
        description = "Non-custodial USDC/USDT/EURC payments on Base: checkout sessions, \
                       payments, refunds, subscriptions, settlement wallets and webhooks. \
                       Amounts are decimal strings; every request is scoped to the key's \
                       merchant and mode (`svc_sk_test_…` or `svc_sk_live_…`)."
    ),
    paths(
        checkout_sessions::create,
        checkout_sessions::list,
        checkout_sessions::retrieve,
        payment_links::create,
        payment_links::list,
        payment_links::retrieve,
        payment_links::update,
        reads::list_payments,
        reads::get_payment,
        reads::list_payment_screening_checks,
        payment_reviews::review,
        reads::list_balance_transactions,
        reads::export_balance_transactions,
        refunds::create,
        reads::list_refunds,
        reads::get_refund,
        refund_requests::create,
        refund_requests::list,
        refund_requests::retrieve,
        reads::list_subscriptions,
        reads::get_subscription,
        reads::list_payment_attempts,
        reads::get_payment_attempt,
        wallets::register,
        wallets::list,
        wallets::retrieve,
        wallets::verify,
        wallets::revoke,
        webhook_endpoints::create,
        webhook_endpoints::list,
        webhook_endpoints::retrieve,
        webhook_endpoints::update,
        webhook_endpoints::delete,
        webhook_endpoints::rotate_secret,
        webhook_endpoints::send_test,
        webhook_endpoints::recover,
        reads::list_webhook_events,
        reads::get_webhook_event,
        reads::list_webhook_attempts,
        webhook_events::resend_webhook_event,
        reads::list_audit_events,
        x402_facilitator::supported,
        x402_facilitator::verify,
        x402_facilitator::settle,
    ),
    tags(
        (name = "Checkout sessions"), (name = "Payment links"), (name = "Payments"), (name = "Balance transactions"),
        (name = "Refunds"), (name = "Refund requests"),
        (name = "Subscriptions"), (name = "Payment attempts"), (name = "Settlement wallets"),
        (name = "Webhook endpoints"), (name = "Webhook events"), (name = "Audit events"),
        (name = "x402 facilitator"),
    )
)]
struct ApiDoc;

/// Paging parameters of every list (newest first).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // Documentation only: `Query::page` parses these.
pub struct PageParams {
    /// Page size, 1–100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u8>,
    /// The id of the last item of the previous page.
    starting_after: Option<String>,
}

/// The ledger's filters (D32), shared by its list and its export.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // Documentation only: `routes::reads::ledger_filter` parses these.
pub struct LedgerFilterParams {
    #[param(rename = "type")]
    kind: Option<stablepay_domain::BalanceType>,
    /// A `pay_` or `re_` id: the entries that object made.
    #[param(inline)]
    source: Option<stablepay_domain::BalanceSource>,
    /// Every entry of one payment, its refunds' included.
    payment: Option<stablepay_domain::PaymentId>,
    /// Booked at or after (RFC 3339).
    #[param(rename = "created[gte]")]
    created_gte: Option<stablepay_domain::Timestamp>,
    /// Booked before (RFC 3339).
    #[param(rename = "created[lt]")]
    created_lt: Option<stablepay_domain::Timestamp>,
    /// Mined at or after (RFC 3339).
    #[param(rename = "block_time[gte]")]
    block_time_gte: Option<stablepay_domain::Timestamp>,
    /// Mined before (RFC 3339).
    #[param(rename = "block_time[lt]")]
    block_time_lt: Option<stablepay_domain::Timestamp>,
}

/// The document as JSON, built once.
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or_else(|_| json!({}));
        conventions::apply(&mut doc, &pinned_objects());
        request_rules::apply(&mut doc);
        doc
    })
}

/// The committed form (`docs/openapi.json`): pretty, with a trailing newline.
pub fn document_text() -> String {
    let mut text = serde_json::to_string_pretty(document()).unwrap_or_default();
    text.push('\n');
    text
}

/// `GET /api/v1/openapi.json`: public, like the spec it describes.
pub async fn serve() -> HttpResponse {
    static BODY: OnceLock<String> = OnceLock::new();
    HttpResponse::Ok()
        .content_type("application/json")
        .body(BODY.get_or_init(document_text).as_str())
}

/// The `object` each resource writes, pinned as a one-value enum.
fn pinned_objects() -> Vec<(String, &'static str)> {
    fn of<T: Resource>() -> (String, &'static str) {
        (T::name().into_owned(), T::OBJECT)
    }
    vec![
        of::<CheckoutSessionResource>(),
        of::<PaymentResource>(),
        of::<RefundResource>(),
        of::<BalanceTransactionResource>(),
        of::<SubscriptionResource>(),
        of::<PaymentAttemptResource>(),
        of::<WalletResource>(),
        of::<WebhookEndpointResource>(),
        of::<DeletedEndpoint>(),
        of::<WebhookEventResource>(),
        of::<WebhookAttemptResource>(),
        of::<webhook_endpoints::RecoveryResource>(),
        of::<AuditEventResource>(),
        of::<RefundRequestResource>(),
        of::<PaymentLinkResource>(),
    ]
}

mod conventions;
pub mod fields;
mod request_rules;
