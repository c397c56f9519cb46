//! `/api/v1/payment_links` (D34): reusable links, each a product and its price behind a
//! public URL whose every visit opens a fresh checkout session (`stablepay_web`'s
//! `link_page` serves the URL).

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use stablepay_domain::representation::{List, PaymentLinkResource};
use stablepay_domain::rules::validation::{bounded_text, DESCRIPTION_MAX};
use stablepay_domain::services::{
    create_payment_link, set_payment_link_active, NewPaymentLink, PaymentLinkDeps,
};
use stablepay_domain::{
    Address, Amount, AmountBounds, Currency, Fiat, LinkPricing, MetadataJson, Missing,
    PaymentLinkId, RedirectUrl, Title, ValidationErrors,
};
use stablepay_request_store::Checked;

use super::checkout_sessions::{decimal, parse_price};
use crate::error::ApiError;
use crate::input::json_body;
use crate::request::{InTransaction, ReadCall, ReadReply, Reply, WriteCall};

/// The most completed payments a link may be limited to.
const COMPLETED_LIMIT_MAX: u64 = 1_000_000_000;

/// Bounds on the amount a buyer names, in the token.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // The schema of what `parse_bounds` reads.
pub struct CustomAmountInput {
    minimum: Amount,
    maximum: Amount,
}

/// Bounds on the price a buyer names, in a currency.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // The schema of what `parse_bounds` reads.
pub struct CustomPriceInput {
    minimum: Amount,
    maximum: Amount,
    currency: Fiat,
}

/// `{"minimum", "maximum"}` (and `"currency"` for a price), with the bounds in order.
fn parse_bounds(
    field: &str,
    value: Value,
    with_currency: bool,
    e: &mut ValidationErrors,
) -> Option<(AmountBounds, Option<Fiat>)> {
    let Value::Object(mut fields) = value else {
        e.push(
            field,
            "must be an object such as {\"minimum\": \"5.00\", \"maximum\": \"500.00\"}",
        );
        return None;
    };
    let minimum = decimal(fields.remove("minimum"), &format!("{field}.minimum"), e);
    let maximum = decimal(fields.remove("maximum"), &format!("{field}.maximum"), e);
    let fiat = if with_currency {
        match fields.remove("currency") {
            Some(Value::String(s)) => e
                .check(
                    &format!("{field}.currency"),
                    Fiat::parse(&s).ok_or("must be \"USD\" or \"EUR\""),
                )
                .map(Some),
            _ => {
                e.push(
                    format!("{field}.currency"),
                    "is required: \"USD\" or \"EUR\"",
                );
                None
            }
        }
    } else {
        Some(None)
    };
    if let Some(extra) = fields.keys().next() {
        e.push(field, format!("has an unknown field `{extra}`"));
        return None;
    }
    let bounds = e.check(field, AmountBounds::new(minimum?, maximum?))?;
    Some((bounds, fiat?))
}

/// The POST body as sent; loosely typed where a field has several shapes. The `schema`
/// attributes say what `parse` accepts.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreatePaymentLinkRequest)]
pub struct CreateLinkBody {
    /// The product's name: the title of every session the link opens.
    #[schema(schema_with = crate::openapi::fields::title, required = true)]
    name: Option<String>,
    #[schema(schema_with = crate::openapi::fields::description)]
    description: Option<String>,
    /// Exactly one of `amount`, `price`, `custom_amount`, `custom_price`. A fixed amount
    /// of the token (`currency`).
    #[schema(schema_with = crate::openapi::fields::positive_amount)]
    amount: Option<Value>,
    /// A fixed price in USD or EUR, quoted into the token at each visit (D34).
    #[schema(value_type = Option<crate::routes::checkout_sessions::PriceInput>)]
    price: Option<Value>,
    /// The buyer names an amount of the token within these bounds.
    #[schema(value_type = Option<CustomAmountInput>)]
    custom_amount: Option<Value>,
    /// The buyer names a price in a currency within these bounds, quoted at each visit.
    #[schema(value_type = Option<CustomPriceInput>)]
    custom_price: Option<Value>,
    /// The token paid in. Default USDC, or EURC for a price in EUR.
    #[schema(value_type = Option<Currency>)]
    currency: Option<String>,
    /// A verified settlement wallet (default: the only one verified in the key's mode).
    #[schema(value_type = Option<Address>)]
    recipient: Option<String>,
    #[schema(schema_with = crate::openapi::fields::redirect_url)]
    success_url: Option<String>,
    /// Copied onto every session the link opens.
    #[schema(value_type = Option<Object>)]
    metadata: Option<Box<RawValue>>,
    /// At most this many completed payments; past it the link opens no session.
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 1000000000)]
    completed_limit: Option<Value>,
}

impl CreateLinkBody {
    fn parse(self) -> Result<NewPaymentLink, ValidationErrors> {
        let b = self;
        let mut e = ValidationErrors::default();
        let name = match b.name {
            None => {
                e.push("name", "is required");
                None
            }
            Some(n) => e.check("name", Title::parse(&n)),
        };
        let description = b
            .description
            .and_then(|d| e.check("description", bounded_text(&d, 0, DESCRIPTION_MAX)));
        let nonnull = |v: Option<Value>| v.filter(|v| !v.is_null());
        let given: Vec<&str> = [
            ("amount", &b.amount),
            ("price", &b.price),
            ("custom_amount", &b.custom_amount),
            ("custom_price", &b.custom_price),
        ]
        .into_iter()
        .filter(|(_, v)| v.as_ref().is_some_and(|v| !v.is_null()))
        .map(|(name, _)| name)
        .collect();
        let pricing = match given.as_slice() {
            [] => {
                e.push(
                    "amount",
                    "is required (or `price`, `custom_amount` or `custom_price`)",
                );
                None
            }
            [_] => {
                if let Some(a) = nonnull(b.amount) {
                    decimal(Some(a), "amount", &mut e).map(LinkPricing::Amount)
                } else if let Some(p) = nonnull(b.price) {
                    parse_price(p, &mut e).map(LinkPricing::Price)
                } else if let Some(c) = nonnull(b.custom_amount) {
                    parse_bounds("custom_amount", c, false, &mut e)
                        .map(|(bounds, _)| LinkPricing::Custom { bounds, fiat: None })
                } else {
                    nonnull(b.custom_price)
                        .and_then(|c| parse_bounds("custom_price", c, true, &mut e))
                        .map(|(bounds, fiat)| LinkPricing::Custom { bounds, fiat })
                }
            }
            [first, rest @ ..] => {
                e.push(
                    rest[0],
                    format!("cannot be given with `{first}`: a link has one price"),
                );
                None
            }
        };
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
        let recipient = b
            .recipient
            .and_then(|r| e.check("recipient", Address::parse(&r)));
        let success_url = b
            .success_url
            .and_then(|u| e.check("success_url", RedirectUrl::parse(&u)));
        let metadata = match b.metadata {
            None => Some(MetadataJson::empty()),
            Some(raw) => e.check("metadata", MetadataJson::from_json_text(raw.get())),
        };
        let completed_limit = match nonnull(b.completed_limit) {
            None => Some(None),
            Some(v) => e
                .check(
                    "completed_limit",
                    v.as_u64()
                        .filter(|n| (1..=COMPLETED_LIMIT_MAX).contains(n))
                        .map(|n| n as u32)
                        .ok_or("must be an integer from 1 to 1000000000"),
                )
                .map(Some),
        };
        match (name, pricing, currency, metadata, completed_limit) {
            (Some(name), Some(pricing), Some(currency), Some(metadata), Some(completed_limit))
                if e.is_empty() =>
            {
                Ok(NewPaymentLink {
                    name,
                    description,
                    pricing,
                    currency,
                    recipient,
                    success_url,
                    metadata,
                    completed_limit,
                })
            }
            // Every `None` above pushed its reason onto `e`.
            _ => Err(e),
        }
    }
}

#[utoipa::path(
    post,
    path = "/api/v1/payment_links",
    operation_id = "create_payment_link",
    tag = "Payment links",
    request_body = CreateLinkBody,
    responses((status = 201, description = "The new link, active", body = PaymentLinkResource)),
)]
pub async fn create(call: WriteCall) -> Result<InTransaction, ApiError> {
    let body: CreateLinkBody = json_body(&call.body)?;
    let new = body.parse()?;
    Ok(InTransaction::new(move |call: WriteCall| async move {
        let s = &call.state;
        let p = call.ports();
        let deps = PaymentLinkDeps {
            links: p.payment_links(),
            wallets: p.wallets(),
            tokens: &s.tokens,
            feeds: &s.price_feeds,
            clock: s.clock.as_ref(),
        };
        let link = create_payment_link(&call.auth, new, &deps).await?;
        Reply::created(&PaymentLinkResource::new(link, &s.public_url))
    }))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdatePaymentLinkRequest)]
pub struct UpdateLinkBody {
    /// `false` stops the link opening sessions (those it opened stay payable until they
    /// expire); `true` turns it back on. A link's price and terms never change: make a
    /// new link instead.
    #[schema(value_type = bool, required = true)]
    active: Option<Value>,
}

#[utoipa::path(
    post,
    path = "/api/v1/payment_links/{id}",
    operation_id = "update_payment_link",
    tag = "Payment links",
    params(("id" = PaymentLinkId, Path)),
    request_body = UpdateLinkBody,
    responses((status = 200, description = "The link", body = PaymentLinkResource)),
)]
pub async fn update(call: WriteCall) -> Result<InTransaction, ApiError> {
    let id: PaymentLinkId = call.path_id()?;
    let body: UpdateLinkBody = json_body(&call.body)?;
    let active = match body.active {
        Some(Value::Bool(b)) => b,
        None | Some(Value::Null) => return Err(ApiError::invalid_field("active", "is required")),
        Some(_) => return Err(ApiError::invalid_field("active", "must be true or false")),
    };
    Ok(InTransaction::new(move |call: WriteCall| async move {
        let link =
            set_payment_link_active(&call.auth, id, active, call.ports().payment_links()).await?;
        Reply::ok(&PaymentLinkResource::new(link, &call.state.public_url))
    }))
}

#[utoipa::path(
    get,
    path = "/api/v1/payment_links/{id}",
    operation_id = "retrieve_payment_link",
    tag = "Payment links",
    params(("id" = PaymentLinkId, Path)),
    responses((status = 200, description = "The link", body = PaymentLinkResource)),
)]
pub async fn retrieve(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let id: PaymentLinkId = call.path_id()?;
    let link = call.reads().payment_link(id).await?;
    let link = link.try_map(|l| l.ok_or_else(|| Missing::of(id)))?;
    let url = &call.state.public_url;
    Reply::read(link.map(|l| PaymentLinkResource::new(l, url)))
}

#[utoipa::path(
    get,
    path = "/api/v1/payment_links",
    operation_id = "list_payment_links",
    tag = "Payment links",
    params(crate::openapi::PageParams),
    responses((status = 200, description = "Links, newest first", body = List<PaymentLinkResource>)),
)]
pub async fn list(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let mut q = call.query()?;
    let page = q.page::<PaymentLinkId>()?;
    q.finish()?;
    let links = call.reads().payment_links(&page).await?;
    let url = &call.state.public_url;
    Reply::read(links.map(|l| List::from_page(l, |l| PaymentLinkResource::new(l, url))))
}
