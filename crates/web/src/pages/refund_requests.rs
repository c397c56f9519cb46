//! Payments → refund requests (D32): ask the customer where a refund goes (the same use
//! case as POST /refund_requests), follow the request, and pay it from the browser wallet
//! to the address the customer confirmed (reported like any refund, naming the request).

use askama::Template;
use stablepay_domain::services::{
    create_refund_request, NewRefundRequest, RefundRequestDeps, RefundRequestError,
};
use stablepay_domain::{Amount, PaymentId, RefundRequestId, RefundRequestStatus};

use super::page_handler;
use crate::format::{money, opt_time, time};
use crate::shell::{Chrome, Reply, WebError};

#[derive(Template)]
#[template(path = "refund_request.html")]
struct RequestView {
    chrome: Chrome,
    id: String,
    status: &'static str,
    amount: String,
    amount_plain: String,
    amount_micros: u64,
    currency: String,
    network: &'static str,
    chain_id: u64,
    token: String,
    url: String,
    reason: String,
    destination: String,
    confirmation: &'static str,
    confirmed_at: String,
    refund: String,
    expires_at: String,
    created_at: String,
    payment_link: (String, String),
    /// Payable now: its address confirmed and not expired.
    payable: bool,
    refund_action: String,
    wallets: String,
    confirmations: u64,
}

page_handler!(show, |p| async move {
    let ctx = p.ctx();
    let id = RefundRequestId::parse(&p.path("id")).map_err(|_| WebError::NotFound)?;
    let s = &p.state;
    let r = s
        .store
        .refund_requests()
        .request(ctx.merchant_id, ctx.mode, id)
        .await?
        .ok_or(WebError::NotFound)?;
    let status = r.status_at(s.clock.now());
    let wallets = s
        .store
        .wallets()
        .verified(ctx.merchant_id)
        .await?
        .into_iter()
        .map(|w| w.address.to_string().to_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    Reply::render(&RequestView {
        chrome: p.chrome("payments", format!("Refund request {}", r.id)),
        id: r.id.to_string(),
        status: status.as_str(),
        amount: money(r.amount.micros(), r.currency),
        amount_plain: r.amount.to_string(),
        amount_micros: r.amount.micros(),
        currency: r.currency.to_string(),
        network: r.chain.display_name(),
        chain_id: r.chain.id(),
        token: r.token_address.to_string(),
        url: format!("{}/refund/{}", s.public_url.trim_end_matches('/'), r.id),
        reason: r.reason.clone().unwrap_or_default(),
        destination: r
            .destination_address
            .map(|a| a.to_string())
            .unwrap_or_default(),
        confirmation: r.confirmation.map(|c| c.as_str()).unwrap_or(""),
        confirmed_at: opt_time(r.address_confirmed_at),
        refund: r.refund.map(|x| x.to_string()).unwrap_or_default(),
        expires_at: time(r.expires_at),
        created_at: time(r.created_at),
        payment_link: (
            r.payment.to_string(),
            p.link(&format!("/payments/{}", r.payment)),
        ),
        payable: status == RefundRequestStatus::AddressConfirmed,
        refund_action: p.link(&format!("/payments/{}/refunds", r.payment)),
        wallets,
        confirmations: s.chains.get(r.chain).map(|c| c.confirmations).unwrap_or(1),
    })
});

// "Ask the customer for a refund address" on a payment's page.
page_handler!(create, |p| async move {
    let payment = PaymentId::parse(&p.path("id")).map_err(|_| WebError::NotFound)?;
    let amount = match p.form.text("amount").map(|a| Amount::parse(a.trim())) {
        Some(Ok(a)) => a,
        _ => {
            return Err(WebError::Invalid(
                "amount: must be a decimal amount such as 10.50".into(),
            ))
        }
    };
    let reason = p.form.text("reason").filter(|r| !r.trim().is_empty());
    let s = &p.state;
    let deps = RefundRequestDeps {
        reader: s.store.reader(),
        requests: s.store.refund_requests(),
        clock: s.clock.as_ref(),
    };
    let new = NewRefundRequest {
        payment,
        amount,
        reason,
    };
    match create_refund_request(&p.ctx(), new, &p.changer(), &deps).await {
        Ok(r) => Ok(Reply::Redirect(
            p.link(&format!("/refund_requests/{}", r.id)),
        )),
        Err(RefundRequestError::NotFound(_)) => Err(WebError::NotFound),
        Err(RefundRequestError::Rejected(v)) => Err(WebError::Invalid(v.to_string())),
        Err(RefundRequestError::Store(e)) => Err(e.into()),
    }
});
