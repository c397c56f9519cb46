//! Reads of the resources only the chain and the worker create: payments, refunds,
//! subscriptions, payment attempts, webhook events and their attempts.

use stablepay_domain::*;

use crate::error::ApiError;
use crate::input::Query;
use crate::request::{CsvFile, ReadCall, ReadReply, Reply};
use stablepay_domain::representation::*;
use stablepay_domain::Missing;
use stablepay_request_store::Checked;

/// GET one resource by id through a `Reads` method, documented as `$path`.
macro_rules! retrieve_handler {
    ($name:ident, $path:literal, $operation:literal, $tag:literal, $id:ty, $method:ident, $resource:ty) => {
        #[utoipa::path(get, path = $path, operation_id = $operation, tag = $tag,
                    params(("id" = $id, Path)),
                    responses((status = 200, description = "The resource", body = $resource)))]
        pub async fn $name(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
            let id: $id = call.path_id()?;
            let found = call.reads().$method(id).await?;
            let found = found.try_map(|row| row.ok_or_else(|| Missing::of(id)))?;
            Reply::read(found.map(<$resource>::from))
        }
    };
}

/// GET a page of resources through a `Reads` method: `$filter` takes the
/// list's own query parameters from `$q`, then the paging ones are read.
macro_rules! list_handler {
    ($(#[$attr:meta])* $name:ident, $id:ty, $method:ident, $resource:ty, |$q:ident| $filter:expr) => {
        $(#[$attr])*
        pub async fn $name(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
            let mut $q = call.query()?;
            let filter = $filter;
            let page = $q.page::<$id>()?;
            $q.finish()?;
            let rows = call.reads().$method(&filter, &page).await?;
            Reply::read(rows.map(|rows| List::from_page(rows, <$resource>::from)))
        }
    };
}

retrieve_handler!(
    get_payment,
    "/api/v1/payments/{id}",
    "retrieve_payment",
    "Payments",
    PaymentId,
    payment,
    PaymentResource
);
retrieve_handler!(
    get_refund,
    "/api/v1/refunds/{id}",
    "retrieve_refund",
    "Refunds",
    RefundId,
    refund,
    RefundResource
);
retrieve_handler!(
    get_subscription,
    "/api/v1/subscriptions/{id}",
    "retrieve_subscription",
    "Subscriptions",
    SubscriptionId,
    subscription,
    SubscriptionResource
);
retrieve_handler!(
    get_payment_attempt,
    "/api/v1/payment_attempts/{id}",
    "retrieve_payment_attempt",
    "Payment attempts",
    PaymentAttemptId,
    payment_attempt,
    PaymentAttemptResource
);
retrieve_handler!(
    get_webhook_event,
    "/api/v1/webhook_events/{id}",
    "retrieve_webhook_event",
    "Webhook events",
    EventId,
    webhook_event,
    WebhookEventResource
);

/// The merchant's proof that it screened a payment's payer (D33).
#[utoipa::path(get, path = "/api/v1/payments/{id}/screening_checks",
    operation_id = "list_payment_screening_checks", tag = "Payments",
    params(("id" = PaymentId, Path)),
    responses((status = 200, description = "Every sanctions check made for the payment's checkout session, oldest first (at most 100; `has_more` is always false): each source's answer about the payer, stored before the payment was refused, held or booked. Empty when nothing was screened (screening off for the mode, no source configured, or a subscription's later charge)",
        body = List<ScreeningCheckResource>)))]
pub async fn list_payment_screening_checks(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let id: PaymentId = call.path_id()?;
    let found = call.reads().payment_screening(id).await?;
    let found = found.try_map(|checks| checks.ok_or_else(|| Missing::of(id)))?;
    Reply::read(found.map(|checks| {
        List {
            object: "list",
            data: checks
                .into_iter()
                .map(ScreeningCheckResource::from)
                .collect(),
            has_more: false,
        }
    }))
}

list_handler!(
    #[utoipa::path(get, path = "/api/v1/payments", operation_id = "list_payments", tag = "Payments",
        params(crate::openapi::PageParams,
            ("subscription" = Option<SubscriptionId>, Query),
            ("checkout_session" = Option<CheckoutSessionId>, Query),
            ("status" = Option<PaymentStatus>, Query),
            ("review" = Option<ReviewStatus>, Query, description = "Payments held for review in this state (D33); `pending` is the review queue")),
        responses((status = 200, description = "Payments, newest first", body = List<PaymentResource>)))]
    list_payments,
    PaymentId,
    payments,
    PaymentResource,
    |q| PaymentFilter {
        subscription: q.id_filter::<SubscriptionId>("subscription")?,
        checkout_session: q.id_filter::<CheckoutSessionId>("checkout_session")?,
        status: q.take_parsed("status", PaymentStatus::parse, &PaymentStatus::expected())?,
        review: q.take_parsed("review", ReviewStatus::parse, &ReviewStatus::expected())?,
    }
);
list_handler!(
    #[utoipa::path(get, path = "/api/v1/refunds", operation_id = "list_refunds", tag = "Refunds",
        params(crate::openapi::PageParams, ("payment" = Option<PaymentId>, Query)),
        responses((status = 200, description = "Refunds, newest first", body = List<RefundResource>)))]
    list_refunds,
    RefundId,
    refunds,
    RefundResource,
    |q| RefundFilter {
        payment: q.id_filter::<PaymentId>("payment")?,
    }
);
list_handler!(
    #[utoipa::path(get, path = "/api/v1/subscriptions", operation_id = "list_subscriptions",
        tag = "Subscriptions",
        params(crate::openapi::PageParams,
            ("status" = Option<SubscriptionStatus>, Query),
            ("wallet_address" = Option<Address>, Query)),
        responses((status = 200, description = "Subscriptions, newest first", body = List<SubscriptionResource>)))]
    list_subscriptions,
    SubscriptionId,
    subscriptions,
    SubscriptionResource,
    |q| SubscriptionFilter {
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
    }
);
list_handler!(
    #[utoipa::path(get, path = "/api/v1/payment_attempts", operation_id = "list_payment_attempts",
        tag = "Payment attempts",
        params(crate::openapi::PageParams,
            ("subscription" = Option<SubscriptionId>, Query),
            ("status" = Option<AttemptStatus>, Query)),
        responses((status = 200, description = "Attempts, newest first", body = List<PaymentAttemptResource>)))]
    list_payment_attempts,
    PaymentAttemptId,
    payment_attempts,
    PaymentAttemptResource,
    |q| PaymentAttemptFilter {
        subscription: q.id_filter::<SubscriptionId>("subscription")?,
        status: q.take_parsed("status", AttemptStatus::parse, &AttemptStatus::expected())?,
    }
);
list_handler!(
    #[utoipa::path(get, path = "/api/v1/webhook_events", operation_id = "list_webhook_events",
        tag = "Webhook events",
        params(crate::openapi::PageParams,
            ("status" = Option<DeliveryStatus>, Query),
            ("type" = Option<EventType>, Query),
            ("endpoint" = Option<WebhookEndpointId>, Query)),
        responses((status = 200, description = "Delivery records, newest first", body = List<WebhookEventResource>)))]
    list_webhook_events,
    EventId,
    webhook_events,
    WebhookEventResource,
    |q| WebhookEventFilter {
        status: q.take_parsed("status", DeliveryStatus::parse, &DeliveryStatus::expected())?,
        event_type: q.take_parsed("type", EventType::parse, "a known event type")?,
        endpoint: q.id_filter::<WebhookEndpointId>("endpoint")?,
    }
);

list_handler!(
    #[utoipa::path(get, path = "/api/v1/balance_transactions", operation_id = "list_balance_transactions",
        tag = "Balance transactions",
        params(crate::openapi::PageParams, crate::openapi::LedgerFilterParams),
        responses((status = 200, description = "Ledger entries, newest first (D32)", body = List<BalanceTransactionResource>)))]
    list_balance_transactions,
    BalanceTransactionId,
    balance_transactions,
    BalanceTransactionResource,
    |q| ledger_filter(&mut q)?
);

/// Every ledger entry the list's filters select, oldest first, as CSV (D32): a header
/// row of the resource's field names, then one row per entry, written as it is read.
#[utoipa::path(get, path = "/api/v1/balance_transactions/export",
    operation_id = "export_balance_transactions", tag = "Balance transactions",
    params(crate::openapi::LedgerFilterParams),
    responses((status = 200, description = "`text/csv`, oldest first: a header row `id,type,source,payment,amount,fee,net,currency,chain_id,token_address,tx_hash,log_index,block_number,block_time,created_at,livemode,review` (the fields of a balance transaction), amounts as exact decimal strings, times in UTC (RFC 3339), absent values empty",
        content_type = "text/csv", body = String)))]
pub async fn export_balance_transactions(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let mut q = call.query()?;
    let filter = ledger_filter(&mut q)?;
    q.finish()?;
    let batches = call.reads().balance_transaction_export(&filter).await?;
    Ok(batches.map(|batches| {
        ReadReply::Csv(CsvFile {
            filename: "balance_transactions.csv",
            chunks: stablepay_domain::representation::ledger_csv(batches),
        })
    }))
}

/// The ledger's filters from a query (the list's and the export's).
fn ledger_filter(q: &mut Query) -> Result<BalanceTransactionFilter, ApiError> {
    Ok(BalanceTransactionFilter {
        kind: q.take_parsed("type", BalanceType::parse, &BalanceType::expected())?,
        source: q.take_parsed("source", BalanceSource::parse, "a pay_ or re_ id")?,
        payment: q.id_filter::<PaymentId>("payment")?,
        created_gte: q.time_filter("created[gte]")?,
        created_lt: q.time_filter("created[lt]")?,
        block_time_gte: q.time_filter("block_time[gte]")?,
        block_time_lt: q.time_filter("block_time[lt]")?,
    })
}

/// The audit log (D32): changes that can move money or open access, newest first. A key
/// lists its mode's entries and the account's (users, TOTP, settings). Nothing edits it.
#[utoipa::path(get, path = "/api/v1/audit_events", operation_id = "list_audit_events",
    tag = "Audit events", params(crate::openapi::PageParams),
    responses((status = 200, description = "Audit events, newest first", body = List<AuditEventResource>)))]
pub async fn list_audit_events(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let mut q = call.query()?;
    let page = q.page::<AuditEventId>()?;
    q.finish()?;
    let rows = call.reads().audit_events(&page).await?;
    Reply::read(rows.map(|rows| List::from_page(rows, AuditEventResource::from)))
}

/// Every attempt at one delivery, newest first (an extra beyond the spec).
#[utoipa::path(get, path = "/api/v1/webhook_events/{id}/attempts",
    operation_id = "list_webhook_event_attempts", tag = "Webhook events",
    params(("id" = EventId, Path), crate::openapi::PageParams),
    responses((status = 200, description = "Attempts, newest first", body = List<WebhookAttemptResource>)))]
pub async fn list_webhook_attempts(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let id: EventId = call.path_id()?;
    let mut q = call.query()?;
    let page = q.page::<WebhookAttemptId>()?;
    q.finish()?;
    let mode = call.auth.mode;
    let rows = call.reads().webhook_attempts(id, &page).await?;
    let rows = rows.try_map(|rows| rows.ok_or_else(|| Missing::of(id)))?;
    Reply::read(rows.map(|rows| List::from_page(rows, |a| WebhookAttemptResource::new(a, mode))))
}
