use serde::Deserialize;
use serde_json::value::RawValue;
use stablepay_domain::rules::validation::{
    bounded_text, expires_in_seconds, DESCRIPTION_MAX, EXPIRES_DEFAULT,
};
use stablepay_domain::services::{
    create_checkout_session, prepare_checkout_session, session_as_read, NewSessionRequest,
};
use stablepay_domain::{
    Address, Amount, ChainId, ChainPlanId, CheckoutSessionId, Currency, CustomerReference, Fiat,
    MetadataJson, Mode, PaymentLinkId, Price, RedirectUrl, SessionFilter, SessionMode,
    SessionStatus, SessionTerms, Title, UnderpaymentTolerance, ValidationErrors,
};

use crate::error::ApiError;
use crate::input::json_body;
use crate::request::{InTransaction, ReadCall, ReadReply, Reply, WriteCall};
use stablepay_domain::representation::{CheckoutSessionResource, List};
use stablepay_domain::Missing;
use stablepay_request_store::Checked;

/// A price in a currency, as a create request gives it.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // The schema of what `parse_price` reads.
pub struct PriceInput {
    amount: Amount,
    currency: Fiat,
}

/// A decimal string field of an object, every problem named on `field`.
pub(crate) fn decimal(
    value: Option<serde_json::Value>,
    field: &str,
    e: &mut ValidationErrors,
) -> Option<Amount> {
    match value {
        Some(serde_json::Value::String(s)) => e.check(field, Amount::parse(&s)),
        None | Some(serde_json::Value::Null) => {
            e.push(field, "is required");
            None
        }
        Some(_) => e.check::<Amount, _>(
            field,
            Err("must be a decimal string such as \"20.00\", not a JSON number"),
        ),
    }
}

/// `{"amount": "20.00", "currency": "USD" | "EUR"}`, every problem named on its field.
pub(crate) fn parse_price(v: serde_json::Value, e: &mut ValidationErrors) -> Option<Price> {
    let serde_json::Value::Object(mut fields) = v else {
        e.push(
            "price",
            "must be an object such as {\"amount\": \"20.00\", \"currency\": \"EUR\"}",
        );
        return None;
    };
    let amount = decimal(fields.remove("amount"), "price.amount", e);
    let fiat = match fields.remove("currency") {
        Some(serde_json::Value::String(s)) => e.check(
            "price.currency",
            Fiat::parse(&s).ok_or("must be \"USD\" or \"EUR\""),
        ),
        _ => {
            e.push("price.currency", "is required: \"USD\" or \"EUR\"");
            None
        }
    };
    if let Some(extra) = fields.keys().next() {
        e.push(
            "price",
            format!("has an unknown field `{extra}` (only amount and currency)"),
        );
        return None;
    }
    Some(Price {
        amount: amount?,
        fiat: fiat?,
    })
}

/// The POST body as sent; loosely typed where the spec allows several JSON types. The
/// `schema` attributes say what `parse` accepts.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateCheckoutSessionRequest)]
pub struct CreateSessionBody {
    #[schema(value_type = SessionMode)]
    mode: Option<String>,
    #[schema(schema_with = crate::openapi::fields::title, required = true)]
    title: Option<String>,
    /// In the token (`currency`): payment mode needs it or `price`; in subscription mode
    /// it must equal the plan's, if given.
    #[schema(schema_with = crate::openapi::fields::positive_amount)]
    amount: Option<serde_json::Value>,
    /// Payment mode, instead of `amount` (D34): a price in USD or EUR, converted into the
    /// token at an on-chain price feed's rate when the session is created (1:1 in the
    /// token's own money; across currencies at EUR/USD, rounded up, the quote expiring
    /// after 30 minutes by default). The session shows `price` and `quote`. 503 with
    /// `Retry-After` when a feed is stale or unreachable; 400 on `currency` when the token
    /// is off its peg. Subscription mode: the plan's display price, which must convert to
    /// within the depeg bound (1 %) of the plan's amount per period; it never lapses and is
    /// never what is charged.
    #[schema(value_type = Option<PriceInput>)]
    price: Option<serde_json::Value>,
    #[schema(schema_with = crate::openapi::fields::description)]
    description: Option<String>,
    /// A verified settlement wallet (default: the merchant's first verified wallet).
    #[schema(value_type = Option<Address>)]
    recipient: Option<String>,
    /// Your own id for the buyer, echoed on the payment and in webhooks.
    #[schema(schema_with = crate::openapi::fields::customer_reference)]
    customer_reference: Option<String>,
    /// Free key-value data, echoed back verbatim.
    #[schema(value_type = Option<Object>)]
    metadata: Option<Box<RawValue>>,
    #[schema(schema_with = crate::openapi::fields::redirect_url)]
    success_url: Option<String>,
    #[schema(schema_with = crate::openapi::fields::redirect_url)]
    cancel_url: Option<String>,
    /// Default 86400.
    #[schema(value_type = Option<u32>, minimum = 600, maximum = 604800)]
    expires_in_seconds: Option<serde_json::Value>,
    /// A cross-check of the key's chain: 8453 or "base" (live), 84532 or "base-sepolia" (test).
    #[schema(schema_with = crate::openapi::fields::chain_selector)]
    chain: Option<serde_json::Value>,
    /// Subscription mode: the on-chain plan id (a decimal string or an integer).
    #[schema(schema_with = crate::openapi::fields::plan_id)]
    chain_plan_id: Option<serde_json::Value>,
    /// Subscription mode: if given, must equal the plan's interval.
    #[schema(value_type = Option<u64>, minimum = 1)]
    interval_seconds: Option<serde_json::Value>,
    /// The token paid in. Default USDC, or EURC for a `price` in EUR.
    #[schema(value_type = Option<Currency>)]
    currency: Option<String>,
    /// Payment mode: how far short of `amount`, in basis points of it, a deposit may fall
    /// and still complete the session (D32); default the merchant's setting (dashboard →
    /// Settings), 0 unless set. The shortfall is `underpaid_amount`.
    #[schema(value_type = Option<u16>, minimum = 0, maximum = 1000)]
    underpayment_tolerance_bps: Option<serde_json::Value>,
}

impl CreateSessionBody {
    /// The request for a key of `key_mode`, or every field error at once.
    fn parse(self, key_mode: Mode) -> Result<NewSessionRequest, ValidationErrors> {
        let b = self;
        let mut e = ValidationErrors::default();
        let session_mode = match b.mode.as_deref() {
            None => {
                e.push("mode", "is required (\"payment\" or \"subscription\")");
                None
            }
            Some(m) => e.check(
                "mode",
                SessionMode::parse(m).ok_or("must be \"payment\" or \"subscription\""),
            ),
        };
        let title = match b.title {
            None => {
                e.push("title", "is required");
                None
            }
            Some(t) => e.check("title", Title::parse(&t)),
        };
        let amount = b.amount.and_then(|v| match v {
            serde_json::Value::String(s) => e.check("amount", Amount::parse(&s)),
            serde_json::Value::Null => None,
            _ => e.check::<Amount, _>(
                "amount",
                Err("must be a decimal string such as \"10.50\", not a JSON number"),
            ),
        });
        let description = b
            .description
            .and_then(|d| e.check("description", bounded_text(&d, 0, DESCRIPTION_MAX)));
        let recipient = b
            .recipient
            .and_then(|r| e.check("recipient", Address::parse(&r)));
        let customer_reference = b
            .customer_reference
            .and_then(|r| e.check("customer_reference", CustomerReference::parse(&r)));
        let metadata = match b.metadata {
            None => Some(MetadataJson::empty()),
            Some(raw) => e.check("metadata", MetadataJson::from_json_text(raw.get())),
        };
        let success_url = b
            .success_url
            .and_then(|u| e.check("success_url", RedirectUrl::parse(&u)));
        let cancel_url = b
            .cancel_url
            .and_then(|u| e.check("cancel_url", RedirectUrl::parse(&u)));
        let expires = match b.expires_in_seconds {
            None | Some(serde_json::Value::Null) => Some(EXPIRES_DEFAULT),
            Some(v) => e.check("expires_in_seconds", expires_in_seconds(&v)),
        };
        let chain = b
            .chain
            .filter(|v| !v.is_null())
            .and_then(|v| e.check("chain", ChainId::parse_selector(&v)));
        let plan = b
            .chain_plan_id
            .filter(|v| !v.is_null())
            .and_then(|v| e.check("chain_plan_id", ChainPlanId::from_json(&v)));
        let interval_seconds = b.interval_seconds.filter(|v| !v.is_null()).and_then(|v| {
            e.check(
                "interval_seconds",
                v.as_u64()
                    .filter(|s| *s > 0)
                    .ok_or("must be a positive integer"),
            )
        });
        let price = b
            .price
            .filter(|v| !v.is_null())
            .and_then(|v| parse_price(v, &mut e));
        // `Some(None)`: the default, which depends on the price's money.
        let currency = match b.currency.as_deref() {
            None => Some(None),
            Some(c) => e
                .check(
                    "currency",
                    Currency::parse(c).ok_or("must be \"USDC\", \"USDT\" or \"EURC\""),
                )
                .map(Some),
        };
        // `None` is the merchant's default; the mode's rule is the domain's.
        let underpayment_tolerance = match b.underpayment_tolerance_bps {
            None | Some(serde_json::Value::Null) => Some(None),
            Some(v) => e
                .check(
                    "underpayment_tolerance_bps",
                    UnderpaymentTolerance::from_json(&v),
                )
                .map(Some),
        };
        let terms = session_mode.and_then(|mode| {
            SessionTerms::collect(
                mode,
                key_mode,
                amount,
                price,
                plan,
                interval_seconds,
                &mut e,
            )
        });
        match (
            terms,
            title,
            metadata,
            expires,
            currency,
            underpayment_tolerance,
        ) {
            (
                Some(terms),
                Some(title),
                Some(metadata),
                Some(expires_in_seconds),
                Some(currency),
                Some(underpayment_tolerance),
            ) if e.is_empty() => Ok(NewSessionRequest {
                terms,
                title,
                description,
                recipient,
                customer_reference,
                metadata,
                success_url,
                cancel_url,
                expires_in_seconds,
                chain,
                currency,
                underpayment_tolerance,
                payment_link: None,
                requoted_from: None,
            }),
            // Every `None` above pushed its reason onto `e`.
            _ => Err(e),
        }
    }
}

#[utoipa::path(
    post,
    path = "/api/v1/checkout/sessions",
    operation_id = "create_checkout_session",
    tag = "Checkout sessions",
    request_body = CreateSessionBody,
    responses((status = 201, description = "The new session", body = CheckoutSessionResource)),
)]
pub async fn create(call: WriteCall) -> Result<InTransaction, ApiError> {
    let body: CreateSessionBody = json_body(&call.body)?;
    let request = body.parse(call.auth.mode)?;
    let s = &call.state;
    let read = s.prepare_session_deps();
    // Subscription sessions read their plan from the chain here (≤ 2 s timeout), before
    // the transaction the session is stored in.
    let prepared = prepare_checkout_session(&call.auth.owner(), request, &read).await?;
    Ok(InTransaction::one_insert(
        move |call: WriteCall| async move {
            let s = &call.state;
            let deps = s.create_session_deps(call.ports());
            let session = create_checkout_session(&call.auth.owner(), prepared, &deps).await?;
            Reply::created(&CheckoutSessionResource::new(session, &s.public_url))
        },
    ))
}

#[utoipa::path(
    get,
    path = "/api/v1/checkout/sessions/{id}",
    operation_id = "retrieve_checkout_session",
    tag = "Checkout sessions",
    params(("id" = CheckoutSessionId, Path)),
    responses((status = 200, description = "The session", body = CheckoutSessionResource)),
)]
pub async fn retrieve(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let id: CheckoutSessionId = call.path_id()?;
    let s = &call.state;
    let (found, check) = call.reads().session(id).await?.take();
    let found = found.ok_or_else(|| Missing::of(id))?;
    let session = session_as_read(found.session, found.recipient, s.clock.now());
    Reply::read(check.map(|()| CheckoutSessionResource::new(session, &s.public_url)))
}

#[utoipa::path(
    get,
    path = "/api/v1/checkout/sessions",
    operation_id = "list_checkout_sessions",
    tag = "Checkout sessions",
    params(
        crate::openapi::PageParams,
        ("status" = Option<SessionStatus>, Query),
        ("customer_reference" = Option<String>, Query),
        ("payment_link" = Option<PaymentLinkId>, Query, description = "Only the sessions this payment link opened"),
    ),
    responses((status = 200, description = "Sessions, newest first", body = List<CheckoutSessionResource>)),
)]
pub async fn list(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let mut q = call.query()?;
    let status = q.take_parsed("status", SessionStatus::parse, "open, completed or expired")?;
    let customer_reference = q.take_checked("customer_reference", CustomerReference::parse)?;
    let payment_link = q.take_checked("payment_link", PaymentLinkId::parse)?;
    let page = q.page::<CheckoutSessionId>()?;
    q.finish()?;
    let filter = SessionFilter {
        status,
        customer_reference,
        payment_link,
    };
    let s = &call.state;
    let sessions = call.reads().sessions(&filter, &page, s.clock.now()).await?;
    Reply::read(sessions.map(|sessions| {
        List::from_page(sessions, |x| CheckoutSessionResource::new(x, &s.public_url))
    }))
}
