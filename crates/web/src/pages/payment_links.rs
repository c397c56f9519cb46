//! Payment links (D34): the list, a form that makes one (the same use case as POST
//! /payment_links), and each link's page with its URL, a QR code of it, its sessions and
//! the switch that turns it off or on.

use askama::Template;
use stablepay_domain::rules::validation::{bounded_text, DESCRIPTION_MAX};
use stablepay_domain::services::{
    create_payment_link, set_payment_link_active, NewPaymentLink, PaymentLinkDeps, PaymentLinkError,
};
use stablepay_domain::{
    Address, Amount, AmountBounds, Currency, Fiat, LinkPricing, MetadataJson, PaymentLink,
    PaymentLinkId, Price, RedirectUrl, Title, ValidationErrors, WalletStatus,
};

use super::checkout_sessions::field_messages;
use super::{next_page, page_handler, page_request};
use crate::format::{amount, fiat_money, time};
use crate::shell::{Chrome, Page, Reply, WebError};

pub struct LinkLine {
    pub id: String,
    pub name: String,
    pub price: String,
    pub url: String,
    pub active: bool,
    pub completed: String,
    pub created: String,
    pub href: String,
}

/// What the link charges, as people read it: "25.00 USDC", "20.00 EUR in USDC",
/// "1.00–100.00 USDC, buyer's choice".
fn price(l: &PaymentLink) -> String {
    // "in USDC" only where the token is not the price's own money.
    let paid_in = |fiat: Fiat| {
        if l.currency.fiat() == fiat {
            String::new()
        } else {
            format!(" in {}", l.currency)
        }
    };
    match l.pricing {
        LinkPricing::Amount(a) => amount(a, l.currency),
        LinkPricing::Price(p) => format!(
            "{}{}",
            fiat_money(p.amount.micros(), p.fiat),
            paid_in(p.fiat)
        ),
        LinkPricing::Custom { bounds, fiat } => {
            let (min, max) = (bounds.minimum().micros(), bounds.maximum().micros());
            match fiat {
                None => format!(
                    "{}–{}, buyer's choice",
                    amount(bounds.minimum(), l.currency),
                    amount(bounds.maximum(), l.currency)
                ),
                Some(f) => format!(
                    "{}–{}{}, buyer's choice",
                    fiat_money(min, f),
                    fiat_money(max, f),
                    paid_in(f)
                ),
            }
        }
    }
}

fn line(p: &Page, l: &PaymentLink) -> LinkLine {
    LinkLine {
        id: l.id.to_string(),
        name: l.name.clone(),
        price: price(l),
        url: l.url(&p.state.public_url),
        active: l.active,
        completed: match l.completed_limit {
            Some(limit) => format!("{} of {limit}", l.completed_count),
            None => l.completed_count.to_string(),
        },
        created: time(l.created_at),
        href: p.link(&format!("/payment_links/{}", l.id)),
    }
}

#[derive(Template)]
#[template(path = "payment_links.html")]
struct ListView {
    chrome: Chrome,
    links: Vec<LinkLine>,
    next: Option<String>,
    recipients: Vec<String>,
    errors: Vec<String>,
    form: FormValues,
}

#[derive(Default)]
struct FormValues {
    name: String,
    pricing: String,
    amount: String,
    minimum: String,
    maximum: String,
    unit: String,
    token: String,
    completed_limit: String,
    description: String,
    success_url: String,
}

impl FormValues {
    fn blank() -> Self {
        Self {
            pricing: "fixed".into(),
            unit: "USDC".into(),
            token: "auto".into(),
            ..Self::default()
        }
    }

    fn of(p: &Page) -> Self {
        let f = &p.form;
        let get = |name: &str, default: &str| f.get(name).unwrap_or(default).to_owned();
        Self {
            name: get("name", ""),
            pricing: get("pricing", "fixed"),
            amount: get("amount", ""),
            minimum: get("minimum", ""),
            maximum: get("maximum", ""),
            unit: get("unit", "USDC"),
            token: get("token", "auto"),
            completed_limit: get("completed_limit", ""),
            description: get("description", ""),
            success_url: get("success_url", ""),
        }
    }
}

async fn render(p: &Page, errors: Vec<String>, form: FormValues) -> Result<Reply, WebError> {
    let ctx = p.ctx();
    let s = &p.state;
    let page = page_request::<PaymentLinkId>(p)?;
    let links = s
        .store
        .payment_links()
        .links(ctx.merchant_id, ctx.mode, &page)
        .await?;
    let recipients = s
        .store
        .wallets()
        .verified(ctx.merchant_id)
        .await?
        .into_iter()
        .filter(|w| w.status == WalletStatus::Verified && w.pays_in(ctx.mode))
        .map(|w| w.address.to_string())
        .collect();
    Reply::render(&ListView {
        chrome: p.chrome("payment_links", "Payment links"),
        next: next_page(
            &p.link("/payment_links"),
            links.has_more,
            links.data.last().map(|l| l.id.to_string()),
            "",
        ),
        links: links.data.iter().map(|l| line(p, l)).collect(),
        recipients,
        errors,
        form,
    })
}

page_handler!(list, |p| async move {
    render(&p, Vec::new(), FormValues::blank()).await
});

/// The form into the domain request: a price in `unit` (a token, or USD/EUR paid in
/// `token`), fixed or the buyer's choice between two bounds.
fn parse(p: &Page) -> Result<NewPaymentLink, ValidationErrors> {
    let f = &p.form;
    let mut e = ValidationErrors::default();
    let name = e.check("name", Title::parse(f.get("name").unwrap_or("")));
    let unit = f.get("unit").unwrap_or("USDC");
    let (fiat, unit_token) = match (Fiat::parse(unit), Currency::parse(unit)) {
        (Some(fiat), _) => (Some(fiat), None),
        (None, Some(token)) => (None, Some(token)),
        _ => {
            e.push("unit", "must be USDC, USDT, EURC, USD or EUR");
            (None, None)
        }
    };
    let currency = match (unit_token, f.get("token").unwrap_or("auto")) {
        (Some(token), _) => Some(token),
        (None, "auto") => None,
        (None, t) => e.check(
            "token",
            Currency::parse(t).ok_or("must be USDC, USDT or EURC"),
        ),
    };
    let decimal = |e: &mut ValidationErrors, field: &str| match f.text(field) {
        Some(v) => e.check(field, Amount::parse(&v)),
        None => {
            e.push(field, "is required");
            None
        }
    };
    let pricing = if f.get("pricing") == Some("custom") {
        let (min, max) = (decimal(&mut e, "minimum"), decimal(&mut e, "maximum"));
        min.zip(max)
            .and_then(|(min, max)| e.check("maximum", AmountBounds::new(min, max)))
            .map(|bounds| LinkPricing::Custom { bounds, fiat })
    } else {
        decimal(&mut e, "amount").map(|a| match fiat {
            Some(fiat) => LinkPricing::Price(Price { amount: a, fiat }),
            None => LinkPricing::Amount(a),
        })
    };
    let completed_limit = f.text("completed_limit").and_then(|n| {
        e.check(
            "completed_limit",
            n.parse::<u32>()
                .ok()
                .filter(|n| (1..=1_000_000_000).contains(n))
                .ok_or("must be a whole number from 1 to 1000000000"),
        )
    });
    let description = f
        .text("description")
        .and_then(|d| e.check("description", bounded_text(&d, 0, DESCRIPTION_MAX)));
    let recipient = f
        .text("recipient")
        .and_then(|r| e.check("recipient", Address::parse(&r)));
    let success_url = f
        .text("success_url")
        .and_then(|u| e.check("success_url", RedirectUrl::parse(&u)));
    match (name, pricing) {
        (Some(name), Some(pricing)) if e.is_empty() => Ok(NewPaymentLink {
            name,
            description,
            pricing,
            currency,
            recipient,
            success_url,
            metadata: MetadataJson::empty(),
            completed_limit,
        }),
        _ => Err(e),
    }
}

page_handler!(create, |p| async move {
    let new = match parse(&p) {
        Ok(new) => new,
        Err(v) => return render(&p, field_messages(&v), FormValues::of(&p)).await,
    };
    let s = &p.state;
    let deps = PaymentLinkDeps {
        links: s.store.payment_links(),
        wallets: s.store.wallets(),
        tokens: &s.tokens,
        feeds: &s.price_feeds,
        clock: s.clock.as_ref(),
    };
    match create_payment_link(&p.ctx(), new, &deps).await {
        Ok(link) => Ok(Reply::Redirect(
            p.link(&format!("/payment_links/{}?notice=link_created", link.id)),
        )),
        Err(PaymentLinkError::Invalid(v)) => {
            render(&p, field_messages(&v), FormValues::of(&p)).await
        }
        Err(PaymentLinkError::NotFound(_)) => Err(WebError::NotFound),
        Err(PaymentLinkError::Store(e)) => Err(e.into()),
    }
});

#[derive(Template)]
#[template(path = "payment_link.html")]
struct LinkView {
    chrome: Chrome,
    link: LinkLine,
    description: String,
    recipient: String,
    success_url: String,
    /// The link's URL as an inline SVG QR code.
    qr_svg: String,
    sessions: String,
    toggle: String,
}

fn link_id(p: &Page) -> Result<PaymentLinkId, WebError> {
    PaymentLinkId::parse(&p.path("id")).map_err(|_| WebError::NotFound)
}

page_handler!(show, |p| async move {
    let ctx = p.ctx();
    let id = link_id(&p)?;
    let l = p
        .state
        .store
        .payment_links()
        .link(ctx.merchant_id, ctx.mode, id)
        .await?
        .ok_or(WebError::NotFound)?;
    let line = line(&p, &l);
    let qr_svg = qrcode::QrCode::new(line.url.as_bytes())
        .map(|qr| {
            qr.render::<qrcode::render::svg::Color>()
                .min_dimensions(200, 200)
                .build()
        })
        .ok()
        // Inline in HTML: no XML prolog.
        .and_then(|svg| svg.find("<svg").map(|i| svg[i..].to_owned()))
        .unwrap_or_default();
    Reply::render(&LinkView {
        chrome: p.chrome("payment_links", format!("Payment link {}", l.name)),
        description: l.description.clone().unwrap_or_default(),
        recipient: l.recipient.to_string(),
        success_url: l.success_url.clone().unwrap_or_default(),
        qr_svg,
        sessions: p.link(&format!("/checkout_sessions?payment_link={id}")),
        toggle: p.link(&format!("/payment_links/{id}/active")),
        link: line,
    })
});

page_handler!(set_active, |p| async move {
    let id = link_id(&p)?;
    let active = match p.form.get("active") {
        Some("true") => true,
        Some("false") => false,
        _ => return Err(WebError::Invalid("Choose on or off.".into())),
    };
    match set_payment_link_active(&p.ctx(), id, active, p.state.store.payment_links()).await {
        Ok(_) => Ok(Reply::Redirect(p.link(&format!(
            "/payment_links/{id}?notice={}",
            if active { "link_on" } else { "link_off" }
        )))),
        Err(PaymentLinkError::NotFound(_)) => Err(WebError::NotFound),
        Err(PaymentLinkError::Invalid(v)) => Err(WebError::Invalid(v.to_string())),
        Err(PaymentLinkError::Store(e)) => Err(e.into()),
    }
});
