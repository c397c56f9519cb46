//! Payments: the list with its filters, the detail (session, customer, wallet, the
//! transaction on a block explorer, refunds), and the non-custodial refund: the merchant's
//! own wallet sends the transfer in the browser, and the page reports it through the same
//! use case as POST /refunds.

use askama::Template;
use stablepay_domain::rules::validation::{bounded_text, REASON_MAX};
use stablepay_domain::services::{
    record_refund, NewRefund, RefundDeps, RefundError, RefundOutcome,
};
use stablepay_domain::{
    render_micros, Amount, CheckoutSessionId, Payment, PaymentFilter, PaymentId, PaymentStatus,
    RefundFilter, SubscriptionId, TxHash,
};

use super::{next_page, page_handler, page_request};
use crate::format::{money, short, time, tx_link};
use crate::shell::{Chrome, Page, Reply, WebError};

/// A payment as one table row.
pub struct PaymentLine {
    pub id: String,
    pub link: String,
    pub status: &'static str,
    pub amount: String,
    pub kind: &'static str,
    pub wallet: String,
    pub customer_reference: String,
    pub created: String,
}

impl PaymentLine {
    pub fn new(p: &Page, x: &Payment) -> Self {
        Self {
            id: x.id.to_string(),
            link: p.link(&format!("/payments/{}", x.id)),
            status: x.status.as_str(),
            amount: money(x.amount.micros(), x.currency),
            kind: x.charge_type.as_str(),
            wallet: short(&x.wallet_address.to_string()),
            customer_reference: x.customer_reference.clone().unwrap_or_default(),
            created: time(x.created_at),
        }
    }
}

#[derive(Template)]
#[template(path = "payments.html")]
struct ListView {
    chrome: Chrome,
    payments: Vec<PaymentLine>,
    statuses: Vec<super::Choice>,
    reviews: Vec<super::Choice>,
    checkout_session: String,
    subscription: String,
    next: Option<String>,
}

page_handler!(list, |p| async move {
    let ctx = p.ctx();
    let status = p.query("status").unwrap_or_default();
    let session = p.query("checkout_session").unwrap_or_default();
    let subscription = p.query("subscription").unwrap_or_default();
    let review = p.query("review").unwrap_or_default();
    let filter = PaymentFilter {
        status: PaymentStatus::parse(&status),
        checkout_session: CheckoutSessionId::parse(&session).ok(),
        subscription: SubscriptionId::parse(&subscription).ok(),
        review: stablepay_domain::ReviewStatus::parse(&review),
    };
    // An id that cannot exist matches nothing, as in the API.
    let impossible = (!session.is_empty() && filter.checkout_session.is_none())
        || (!subscription.is_empty() && filter.subscription.is_none());
    let page = page_request::<PaymentId>(&p)?;
    let rows = if impossible {
        stablepay_domain::Page {
            data: Vec::new(),
            has_more: false,
        }
    } else {
        p.state
            .store
            .reader()
            .payments(ctx.merchant_id, ctx.mode, &filter, &page)
            .await?
    };
    let filters = format!(
        "&status={}&checkout_session={}&subscription={}&review={}",
        enc(&status),
        enc(&session),
        enc(&subscription),
        enc(&review)
    );
    Reply::render(&ListView {
        chrome: p.chrome("payments", "Payments"),
        next: next_page(
            &p.link("/payments"),
            rows.has_more,
            rows.data.last().map(|x| x.id.to_string()),
            &filters,
        ),
        payments: rows.data.iter().map(|x| PaymentLine::new(&p, x)).collect(),
        statuses: super::choices(
            &PaymentStatus::ALL
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>(),
            &status,
        ),
        reviews: super::choices(
            &stablepay_domain::ReviewStatus::ALL
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>(),
            &review,
        ),
        checkout_session: session,
        subscription,
    })
});

pub fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

pub struct RefundLine {
    pub id: String,
    pub amount: String,
    pub from: String,
    pub tx: String,
    pub tx_link: String,
    pub reason: String,
    pub created: String,
}

pub struct DepositLine {
    pub amount: String,
    pub from: String,
    pub tx: String,
    pub tx_link: String,
    pub status: &'static str,
    /// The sweep transaction ("" before one was sent) and its explorer link.
    pub sweep: String,
    pub sweep_link: String,
}

#[derive(Template)]
#[template(path = "payment.html")]
struct DetailView {
    chrome: Chrome,
    payment: PaymentLine,
    /// Its session's price in a currency and the rate (D34), or empty.
    price: String,
    currency: String,
    fee: String,
    net: String,
    refunded: String,
    /// What arrived beyond the amount at a deposit address ("" when nothing did).
    overpaid: String,
    /// Transfers to the session's deposit address and the sweeps that moved them.
    deposits: Vec<DepositLine>,
    refundable_micros: u64,
    refundable: String,
    chain_id: u64,
    network: &'static str,
    token: String,
    payer: String,
    tx: String,
    tx_link: String,
    block: String,
    /// Depth the refund transfer must reach before it is reported.
    confirmations: u64,
    session_link: Option<(String, String)>,
    subscription_link: Option<(String, String)>,
    customer: String,
    refunds: Vec<RefundLine>,
    can_refund: bool,
    error: Option<String>,
    refund_action: String,
    request_action: String,
    /// The merchant's verified wallets (lower-case, space-separated): the page refuses to
    /// send a refund from any other account, since it could not be recorded.
    wallets: String,
    /// What the form held when a report was refused, so nothing has to be found again.
    form_amount: String,
    form_tx: String,
    form_reason: String,
    /// Held for review (D33): why, and where the decision stands.
    review: Option<ReviewLine>,
    review_action: String,
    /// Every sanctions check made for the payment's session (D33): the proof.
    screening: Vec<CheckLine>,
}

pub struct CheckLine {
    pub checked: String,
    pub path: &'static str,
    pub payer: String,
    pub source: String,
    pub answer: &'static str,
    pub list: String,
}

pub struct ReviewLine {
    pub status: &'static str,
    pub reason: String,
    pub source: String,
    pub decided: String,
    pub pending: bool,
}

async fn detail(p: &Page, error: Option<String>) -> Result<Reply, WebError> {
    let ctx = p.ctx();
    let raw = p.path("id");
    let id = PaymentId::parse(&raw).map_err(|_| WebError::NotFound)?;
    let s = &p.state;
    let x = s
        .store
        .reader()
        .payment(ctx.merchant_id, ctx.mode, id)
        .await?
        .ok_or(WebError::NotFound)?;
    let refunds = s
        .store
        .reader()
        .refunds(
            ctx.merchant_id,
            ctx.mode,
            &RefundFilter { payment: Some(id) },
            &stablepay_domain::PageRequest::first(100),
        )
        .await?;
    let refundable_micros = x.refundable_micros();
    let deposits = match x.checkout_session {
        Some(cs) => {
            s.store
                .summaries()
                .deposit_transfers(ctx.merchant_id, ctx.mode, cs)
                .await?
        }
        None => Vec::new(),
    };
    let price = match x.checkout_session {
        Some(cs) => s
            .store
            .sessions()
            .get(ctx.merchant_id, ctx.mode, cs)
            .await?
            .and_then(|session| {
                let q = session.priced?;
                Some(crate::format::price_and_rate(&q, session.currency))
            }),
        None => None,
    };
    let screening = match x.checkout_session {
        Some(cs) => s
            .store
            .screening_log()
            .checks_of_session(ctx.merchant_id, ctx.mode, cs)
            .await?
            .into_iter()
            .map(|c| CheckLine {
                checked: time(c.checked_at),
                path: c.path.as_str(),
                payer: short(&c.payer.address.to_string()),
                source: match c.source.version {
                    Some(v) => format!("{} v{v}", c.source.name),
                    None => c.source.name,
                },
                answer: c.answer.as_str(),
                list: match c.answer {
                    stablepay_domain::ScreeningAnswer::Listed { list, entry } => match entry {
                        Some(entry) => format!("{list}: {entry}"),
                        None => list,
                    },
                    _ => String::new(),
                },
            })
            .collect(),
        None => Vec::new(),
    };
    let wallets = s
        .store
        .wallets()
        .list(ctx.merchant_id, &stablepay_domain::PageRequest::first(100))
        .await?
        .data
        .into_iter()
        .filter(|w| w.status == stablepay_domain::WalletStatus::Verified)
        .map(|w| w.address.to_string().to_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    Reply::render(&DetailView {
        chrome: p.chrome("payments", format!("Payment {}", x.id)),
        price: price.unwrap_or_default(),
        currency: x.currency.to_string(),
        fee: money(x.fee_micros, x.currency),
        net: money(x.merchant_micros, x.currency),
        refunded: money(x.refunded_micros, x.currency),
        overpaid: if x.overpaid_micros > 0 {
            money(x.overpaid_micros, x.currency)
        } else {
            String::new()
        },
        deposits: deposits
            .iter()
            .map(|d| DepositLine {
                // Another configured token sent to the same address shows as its own.
                amount: match s.tokens.currency_of(d.chain, d.token) {
                    Some(currency) => money(d.amount_micros, currency),
                    None => money(d.amount_micros, x.currency),
                },
                from: short(&d.from.to_string()),
                tx: short(&d.tx_hash.to_string()),
                tx_link: tx_link(d.chain, &d.tx_hash),
                status: if d.confirmed { "confirmed" } else { "pending" },
                sweep: d
                    .swept_by
                    .map(|t| short(&t.to_string()))
                    .unwrap_or_default(),
                sweep_link: d.swept_by.map(|t| tx_link(d.chain, &t)).unwrap_or_default(),
            })
            .collect(),
        refundable: render_micros(refundable_micros),
        refundable_micros,
        chain_id: x.chain.id(),
        network: x.chain.display_name(),
        token: x.token_address.to_string(),
        payer: x.wallet_address.to_string(),
        tx: x.tx_hash.map(|t| t.to_string()).unwrap_or_default(),
        tx_link: x.tx_hash.map(|t| tx_link(x.chain, &t)).unwrap_or_default(),
        block: x
            .block_number
            .map(|b| b.to_string())
            .unwrap_or_else(|| "—".into()),
        confirmations: s.chains.get(x.chain).map(|c| c.confirmations).unwrap_or(1),
        session_link: x.checkout_session.map(|cs| {
            (
                cs.to_string(),
                p.link(&format!("/checkout_sessions?id={cs}")),
            )
        }),
        subscription_link: x
            .subscription
            .map(|sub| (sub.to_string(), p.link(&format!("/subscriptions/{sub}")))),
        customer: x.customer.map(|c| c.to_string()).unwrap_or_default(),
        refunds: refunds
            .data
            .iter()
            .map(|r| RefundLine {
                id: r.id.to_string(),
                amount: money(r.amount.micros(), r.currency),
                from: short(&r.from_address.to_string()),
                tx: short(&r.tx_hash.to_string()),
                tx_link: tx_link(r.chain, &r.tx_hash),
                reason: r.reason.clone().unwrap_or_default(),
                created: time(r.created_at),
            })
            .collect(),
        can_refund: x.can_refund(),
        review: x.review.as_ref().map(|r| ReviewLine {
            status: r.status.as_str(),
            reason: r.reason.clone(),
            source: r.source.clone(),
            decided: r.decided_at.map(time).unwrap_or_default(),
            pending: r.is_pending(),
        }),
        review_action: p.link(&format!("/payments/{}/review", x.id)),
        screening,
        refund_action: p.link(&format!("/payments/{}/refunds", x.id)),
        request_action: p.link(&format!("/payments/{}/refund_requests", x.id)),
        payment: PaymentLine::new(p, &x),
        error,
        wallets,
        form_amount: p
            .form
            .text("amount")
            // An overpaid payment offers the excess first.
            .unwrap_or_else(|| match x.overpaid_micros {
                0 => render_micros(refundable_micros),
                over => render_micros(over.min(refundable_micros)),
            }),
        form_tx: p.form.text("tx_hash").unwrap_or_default(),
        form_reason: p.form.text("reason").unwrap_or_default(),
    })
}

page_handler!(show, |p| async move { detail(&p, None).await });

// The browser has sent the refund transfer from the settlement wallet; verify and record
// it exactly as POST /refunds does.
page_handler!(refund, |p| async move {
    let raw = p.path("id");
    let payment = PaymentId::parse(&raw).map_err(|_| WebError::NotFound)?;
    let tx_hash = match p.form.text("tx_hash").as_deref().map(TxHash::parse) {
        Some(Ok(t)) => t,
        _ => {
            return detail(
                &p,
                Some("tx_hash: must be a 0x-prefixed 32-byte transaction hash".into()),
            )
            .await
        }
    };
    let amount = match p.form.text("amount").map(|a| Amount::parse(&a)) {
        None => None,
        Some(Ok(a)) => Some(a),
        Some(Err(e)) => return detail(&p, Some(format!("amount: {e}"))).await,
    };
    let reason = match p
        .form
        .text("reason")
        .map(|r| bounded_text(&r, 0, REASON_MAX))
    {
        None => None,
        Some(Ok(r)) => Some(r),
        Some(Err(e)) => return detail(&p, Some(format!("reason: {e}"))).await,
    };
    let s = &p.state;
    let deps = RefundDeps {
        reader: s.store.reader(),
        wallets: s.store.wallets(),
        refunds: s.store.refunds(),
        requests: s.store.refund_requests(),
        chain: s.chain.as_ref(),
        clock: s.clock.as_ref(),
        chains: &s.chains,
    };
    let refund_request = match p.form.text("refund_request").filter(|r| !r.is_empty()) {
        None => None,
        Some(r) => match stablepay_domain::RefundRequestId::parse(&r) {
            Ok(id) => Some(id),
            Err(_) => return detail(&p, Some("refund request: must be a rr_ id".into())).await,
        },
    };
    let new = NewRefund {
        payment,
        tx_hash,
        amount,
        reason,
        refund_request,
    };
    match record_refund(&p.ctx(), new, &p.changer(), &deps).await {
        Ok(RefundOutcome::Created(_) | RefundOutcome::Existing(_)) => Ok(Reply::Redirect(
            p.link(&format!("/payments/{payment}?notice=refund_recorded")),
        )),
        Err(RefundError::PaymentNotFound(_)) => Err(WebError::NotFound),
        Err(RefundError::Rejected(v)) => detail(&p, Some(v.to_string())).await,
        Err(e @ (RefundError::ChainUnavailable | RefundError::ChainNotConfigured(_))) => {
            detail(&p, Some(e.to_string())).await
        }
        Err(RefundError::Store(e)) => Err(e.into()),
    }
});
