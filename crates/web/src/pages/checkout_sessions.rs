//! Checkout sessions: the list, and payment links created from a form (the same use case
//! as POST /checkout/sessions), with the hosted URL ready to copy.

use askama::Template;
use stablepay_domain::rules::validation::{bounded_text, DESCRIPTION_MAX, EXPIRES_DEFAULT};
use stablepay_domain::services::{
    create_checkout_session, list_checkout_sessions, prepare_checkout_session, CreateSessionError,
    NewSessionRequest,
};
use stablepay_domain::{
    Address, Amount, CheckoutSession, CheckoutSessionId, Currency, CustomerReference, MetadataJson,
    RedirectUrl, SessionFilter, SessionMode, SessionStatus, SessionTerms, Title, ValidationErrors,
    WalletStatus,
};

use super::payments::enc;
use super::{next_page, page_handler, page_request};
use crate::format::{amount, money, short, time};
use crate::shell::{Chrome, Page, Reply, WebError};

pub struct SessionLine {
    pub id: String,
    pub title: String,
    pub status: &'static str,
    pub mode: &'static str,
    pub amount: String,
    /// What arrived at the deposit address, with "underpaid" while short ("" for none).
    pub received: String,
    /// The price in a currency and its rate (D34), or empty.
    pub price: String,
    pub url: String,
    pub recipient: String,
    pub customer_reference: String,
    pub payment_link: Option<String>,
    pub created: String,
    pub expires: String,
}

fn line(p: &Page, s: &CheckoutSession) -> SessionLine {
    SessionLine {
        id: s.id.to_string(),
        title: s.title.clone(),
        status: s.status.as_str(),
        mode: s.session_mode.as_str(),
        amount: amount(s.amount, s.currency),
        received: match s.amount_received_micros {
            0 => String::new(),
            got if got < s.amount.micros() => {
                format!("{} received · underpaid", money(got, s.currency))
            }
            got if got > s.amount.micros() => {
                format!("{} received · overpaid", money(got, s.currency))
            }
            got => format!("{} received", money(got, s.currency)),
        },
        price: s
            .priced
            .as_ref()
            .map(|q| crate::format::price_and_rate(q, s.currency))
            .unwrap_or_default(),
        url: if s.status == SessionStatus::Open {
            format!("{}/pay/{}", p.state.public_url.trim_end_matches('/'), s.id)
        } else {
            String::new()
        },
        recipient: short(&s.recipient_address.to_string()),
        customer_reference: s.customer_reference.clone().unwrap_or_default(),
        payment_link: (s.status == SessionStatus::Completed || s.amount_received_micros > 0)
            .then(|| p.link(&format!("/payments?checkout_session={}", s.id))),
        created: time(s.created_at),
        expires: time(s.expires_at),
    }
}

#[derive(Template)]
#[template(path = "checkout_sessions.html")]
struct ListView {
    chrome: Chrome,
    sessions: Vec<SessionLine>,
    statuses: Vec<super::Choice>,
    next: Option<String>,
    recipients: Vec<String>,
    created: Option<SessionLine>,
    errors: Vec<String>,
    form: FormValues,
}

#[derive(Default)]
struct FormValues {
    title: String,
    amount: String,
    currency: String,
    description: String,
    customer_reference: String,
    success_url: String,
    cancel_url: String,
}

async fn render(
    p: &Page,
    created: Option<SessionLine>,
    errors: Vec<String>,
    form: FormValues,
) -> Result<Reply, WebError> {
    let ctx = p.ctx();
    let s = &p.state;
    let status = p.query("status").unwrap_or_default();
    let wanted = p
        .query("id")
        .and_then(|id| CheckoutSessionId::parse(&id).ok());
    let filter = SessionFilter {
        status: SessionStatus::parse(&status),
        customer_reference: match p.query("customer_reference") {
            None => None,
            Some(r) => Some(
                CustomerReference::parse(&r)
                    .map_err(|e| WebError::Invalid(format!("The customer reference {e}")))?,
            ),
        },
        payment_link: p
            .query("payment_link")
            .and_then(|l| stablepay_domain::PaymentLinkId::parse(&l).ok()),
    };
    let page = page_request::<CheckoutSessionId>(p)?;
    let mut rows =
        list_checkout_sessions(&ctx, &filter, &page, s.store.sessions(), s.clock.as_ref()).await?;
    if let Some(id) = wanted {
        rows.data.retain(|x| x.id == id);
        if rows.data.is_empty() {
            if let Some(one) = s
                .store
                .sessions()
                .get(ctx.merchant_id, ctx.mode, id)
                .await?
            {
                rows.data.push(one);
            }
        }
        rows.has_more = false;
    }
    let recipients = s
        .store
        .wallets()
        .list(ctx.merchant_id, &stablepay_domain::PageRequest::first(100))
        .await?
        .data
        .into_iter()
        .filter(|w| w.status == WalletStatus::Verified)
        .map(|w| w.address.to_string())
        .collect();
    Reply::render(&ListView {
        chrome: p.chrome("checkout_sessions", "Checkout sessions"),
        next: next_page(
            &p.link("/checkout_sessions"),
            rows.has_more,
            rows.data.last().map(|x| x.id.to_string()),
            &format!(
                "&status={}&customer_reference={}",
                enc(&status),
                enc(filter
                    .customer_reference
                    .as_ref()
                    .map_or("", |r| r.as_str()))
            ),
        ),
        sessions: rows.data.iter().map(|x| line(p, x)).collect(),
        statuses: super::choices(&["open", "completed", "expired"], &status),
        recipients,
        created,
        errors,
        form,
    })
}

page_handler!(list, |p| async move {
    render(
        &p,
        None,
        Vec::new(),
        FormValues {
            currency: "USDC".into(),
            ..FormValues::default()
        },
    )
    .await
});

/// Parses the payment-link form into the domain request, collecting every field error.
fn parse(p: &Page) -> Result<NewSessionRequest, ValidationErrors> {
    let f = &p.form;
    let mut e = ValidationErrors::default();
    let title = e.check("title", Title::parse(f.get("title").unwrap_or("")));
    let amount = f
        .text("amount")
        .and_then(|a| e.check("amount", Amount::parse(&a)));
    let currency = e.check(
        "currency",
        Currency::parse(f.get("currency").unwrap_or("USDC")).ok_or("must be USDC, USDT or EURC"),
    );
    let description = f
        .text("description")
        .and_then(|d| e.check("description", bounded_text(&d, 0, DESCRIPTION_MAX)));
    let customer_reference = f
        .text("customer_reference")
        .and_then(|r| e.check("customer_reference", CustomerReference::parse(&r)));
    let recipient = f
        .text("recipient")
        .and_then(|r| e.check("recipient", Address::parse(&r)));
    let success_url = f
        .text("success_url")
        .and_then(|u| e.check("success_url", RedirectUrl::parse(&u)));
    let cancel_url = f
        .text("cancel_url")
        .and_then(|u| e.check("cancel_url", RedirectUrl::parse(&u)));
    // Payment links are payment mode: the one rule set decides what that requires.
    let terms = SessionTerms::collect(
        SessionMode::Payment,
        p.mode,
        amount,
        None,
        None,
        None,
        &mut e,
    );
    match (title, terms, currency, e.is_empty()) {
        (Some(title), Some(terms), Some(currency), true) => Ok(NewSessionRequest {
            terms,
            title,
            description,
            recipient,
            customer_reference,
            metadata: MetadataJson::empty(),
            success_url,
            cancel_url,
            expires_in_seconds: EXPIRES_DEFAULT,
            chain: None,
            currency: Some(currency),
            underpayment_tolerance: None,
            payment_link: None,
            requoted_from: None,
        }),
        _ => Err(e),
    }
}

page_handler!(create, |p| async move {
    let f = &p.form;
    let values = FormValues {
        title: f.get("title").unwrap_or("").to_owned(),
        amount: f.get("amount").unwrap_or("").to_owned(),
        currency: f.get("currency").unwrap_or("USDC").to_owned(),
        description: f.get("description").unwrap_or("").to_owned(),
        customer_reference: f.get("customer_reference").unwrap_or("").to_owned(),
        success_url: f.get("success_url").unwrap_or("").to_owned(),
        cancel_url: f.get("cancel_url").unwrap_or("").to_owned(),
    };
    let request = match parse(&p) {
        Ok(r) => r,
        Err(v) => return render(&p, None, field_messages(&v), values).await,
    };
    let s = &p.state;
    let read = s.prepare_session_deps();
    let deps = s.create_session_deps();
    let created = async {
        let prepared = prepare_checkout_session(&p.ctx().owner(), request, &read).await?;
        create_checkout_session(&p.ctx().owner(), prepared, &deps).await
    };
    match created.await {
        Ok(session) => {
            let created = line(&p, &session);
            render(
                &p,
                Some(created),
                Vec::new(),
                FormValues {
                    currency: "USDC".into(),
                    ..FormValues::default()
                },
            )
            .await
        }
        Err(CreateSessionError::Invalid(v)) => render(&p, None, field_messages(&v), values).await,
        Err(CreateSessionError::Store(e)) => Err(e.into()),
        Err(CreateSessionError::ChainUnavailable(detail)) => {
            tracing::warn!(%detail, "dashboard: chain unavailable creating a session");
            Err(WebError::Unavailable)
        }
        // The form prices in token units only; a price is never quoted here.
        Err(CreateSessionError::PriceUnavailable(why)) => {
            tracing::warn!(%why, "dashboard: a price could not be quoted");
            Err(WebError::Unavailable)
        }
    }
});

pub fn field_messages(v: &ValidationErrors) -> Vec<String> {
    v.0.iter()
        .map(|f| format!("{}: {}", f.field, f.message))
        .collect()
}
