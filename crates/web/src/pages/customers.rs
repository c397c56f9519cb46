//! Customers as seen in payments (D7): one per payer wallet and mode.

use askama::Template;
use stablepay_domain::{Currency, CustomerId};

use super::{next_page, page_handler, page_request};
use crate::format::{money, opt_time, time};
use crate::shell::{Chrome, Reply};

pub struct CustomerLine {
    pub id: String,
    pub wallet: String,
    pub reference: String,
    pub payments: u64,
    pub paid: String,
    pub first_seen: String,
    pub last_payment: String,
}

#[derive(Template)]
#[template(path = "customers.html")]
struct ListView {
    chrome: Chrome,
    customers: Vec<CustomerLine>,
    next: Option<String>,
}

page_handler!(list, |p| async move {
    let ctx = p.ctx();
    let page = page_request::<CustomerId>(&p)?;
    let rows = p
        .state
        .store
        .summaries()
        .customers(ctx.merchant_id, ctx.mode, &page)
        .await?;
    Reply::render(&ListView {
        chrome: p.chrome("customers", "Customers"),
        next: next_page(
            &p.link("/customers"),
            rows.has_more,
            rows.data.last().map(|x| x.id.to_string()),
            "",
        ),
        customers: rows
            .data
            .iter()
            .map(|c| CustomerLine {
                id: c.id.to_string(),
                wallet: c.wallet_address.to_string(),
                reference: c.customer_reference.clone().unwrap_or_default(),
                payments: c.payments,
                paid: match c.paid_micros.as_slice() {
                    [] => money(0, Currency::Usdc),
                    paid => paid
                        .iter()
                        .map(|(currency, micros)| money(*micros, *currency))
                        .collect::<Vec<_>>()
                        .join(" + "),
                },
                first_seen: time(c.created_at),
                last_payment: opt_time(c.last_payment_at),
            })
            .collect(),
    })
});
