//! Subscriptions and their payment attempts (live mode; test mode shows none).

use askama::Template;
use stablepay_domain::{
    AttemptStatus, PageRequest, PaymentAttemptFilter, SubscriptionFilter, SubscriptionId,
    SubscriptionStatus,
};

use super::{next_page, page_handler, page_request};
use crate::format::{amount, opt_time, short, time, tx_link};
use crate::shell::{Chrome, Reply, WebError};

pub struct SubscriptionLine {
    pub id: String,
    pub link: String,
    pub title: String,
    pub status: &'static str,
    pub amount: String,
    pub every: String,
    pub wallet: String,
    pub next_payment: String,
    pub retry_count: u32,
    pub last_failure: String,
    pub created: String,
}

fn every(secs: u64) -> String {
    match secs {
        s if s % 86_400 == 0 => format!("{} d", s / 86_400),
        s if s % 3600 == 0 => format!("{} h", s / 3600),
        s if s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

#[derive(Template)]
#[template(path = "subscriptions.html")]
struct ListView {
    chrome: Chrome,
    subscriptions: Vec<SubscriptionLine>,
    statuses: Vec<super::Choice>,
    next: Option<String>,
}

fn line(p: &crate::shell::Page, x: &stablepay_domain::Subscription) -> SubscriptionLine {
    SubscriptionLine {
        id: x.id.to_string(),
        link: p.link(&format!("/subscriptions/{}", x.id)),
        title: x.title.clone(),
        status: x.status.as_str(),
        amount: amount(x.amount, stablepay_domain::Currency::Usdc),
        every: every(x.interval_seconds),
        wallet: short(&x.wallet_address.to_string()),
        next_payment: opt_time(x.next_payment_at),
        retry_count: x.retry_count,
        last_failure: x.last_failure_code.clone().unwrap_or_default(),
        created: time(x.created_at),
    }
}

page_handler!(list, |p| async move {
    let ctx = p.ctx();
    let status = p.query("status").unwrap_or_default();
    let filter = SubscriptionFilter {
        status: SubscriptionStatus::parse(&status),
        wallet_address: None,
    };
    let page = page_request::<SubscriptionId>(&p)?;
    let rows = p
        .state
        .store
        .reader()
        .subscriptions(ctx.merchant_id, ctx.mode, &filter, &page)
        .await?;
    Reply::render(&ListView {
        chrome: p.chrome("subscriptions", "Subscriptions"),
        next: next_page(
            &p.link("/subscriptions"),
            rows.has_more,
            rows.data.last().map(|x| x.id.to_string()),
            &format!("&status={}", super::payments::enc(&status)),
        ),
        subscriptions: rows.data.iter().map(|x| line(&p, x)).collect(),
        statuses: super::choices(
            &SubscriptionStatus::ALL
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>(),
            &status,
        ),
    })
});

pub struct AttemptLine {
    pub number: u32,
    pub status: &'static str,
    pub failed: bool,
    pub period: String,
    pub failure: String,
    pub tx: String,
    pub tx_link: String,
    pub payment_link: String,
    pub created: String,
}

#[derive(Template)]
#[template(path = "subscription.html")]
struct DetailView {
    chrome: Chrome,
    sub: SubscriptionLine,
    chain_subscription_id: String,
    chain_plan_id: String,
    wallet_address: String,
    customer: String,
    canceled_at: String,
    next_retry: String,
    portal: String,
    attempts: Vec<AttemptLine>,
    payments_link: String,
}

page_handler!(show, |p| async move {
    let ctx = p.ctx();
    let id = SubscriptionId::parse(&p.path("id")).map_err(|_| WebError::NotFound)?;
    let s = &p.state;
    let x = s
        .store
        .reader()
        .subscription(ctx.merchant_id, ctx.mode, id)
        .await?
        .ok_or(WebError::NotFound)?;
    let attempts = s
        .store
        .reader()
        .payment_attempts(
            ctx.merchant_id,
            ctx.mode,
            &PaymentAttemptFilter {
                subscription: Some(id),
                status: None,
            },
            &PageRequest::first(100),
        )
        .await?;
    Reply::render(&DetailView {
        chrome: p.chrome("subscriptions", format!("Subscription {id}")),
        chain_subscription_id: x.chain_subscription_id.clone(),
        chain_plan_id: x.chain_plan_id.clone(),
        wallet_address: x.wallet_address.to_string(),
        customer: x.customer.to_string(),
        canceled_at: opt_time(x.canceled_at),
        next_retry: opt_time(x.next_retry_at),
        portal: format!(
            "{}/portal/subscriptions/{id}",
            s.public_url.trim_end_matches('/')
        ),
        payments_link: p.link(&format!("/payments?subscription={id}")),
        attempts: attempts
            .data
            .iter()
            .map(|a| AttemptLine {
                number: a.attempt_number,
                status: a.status.as_str(),
                failed: a.status == AttemptStatus::Failed,
                period: time(a.period_key),
                failure: match (&a.failure_code, &a.failure_reason) {
                    (Some(c), Some(r)) => format!("{c}: {r}"),
                    (Some(c), None) => c.clone(),
                    _ => String::new(),
                },
                tx: a.tx_hash.map(|t| short(&t.to_string())).unwrap_or_default(),
                tx_link: a.tx_hash.map(|t| tx_link(x.chain, &t)).unwrap_or_default(),
                payment_link: a
                    .payment
                    .map(|pay| p.link(&format!("/payments/{pay}")))
                    .unwrap_or_default(),
                created: time(a.created_at),
            })
            .collect(),
        sub: line(&p, &x),
    })
});
