//! The ledger (D32): every balance transaction, newest first, filtered by type and by the
//! days it was booked, and the same selection as a CSV download (the API's export).

use askama::Template;
use chrono::NaiveDate;
use stablepay_domain::{
    BalanceTransaction, BalanceTransactionFilter, BalanceTransactionId, BalanceType, Timestamp,
};

use super::payments::enc;
use super::{next_page, page_handler, page_request};
use crate::format::{signed_money, time, tx_link};
use crate::shell::{Chrome, Page, Reply, WebError};

/// One entry as a table row.
pub struct EntryLine {
    pub id: String,
    pub kind: &'static str,
    pub amount: String,
    pub fee: String,
    pub net: String,
    pub source: String,
    pub payment_link: String,
    pub tx: String,
    pub tx_link: String,
    pub block_time: String,
    /// The payment's review (D33): `pending`, `approved`, `returned`, or empty.
    pub review: &'static str,
    /// The payment's price in a currency and its rate (D34), or empty.
    pub price: String,
}

impl EntryLine {
    fn new(p: &Page, e: &BalanceTransaction) -> Self {
        Self {
            id: e.id.to_string(),
            kind: e.kind.as_str(),
            amount: signed_money(e.amount_micros, e.currency),
            fee: signed_money(e.fee_micros, e.currency),
            net: signed_money(e.net_micros, e.currency),
            source: e.source.to_string(),
            payment_link: p.link(&format!("/payments/{}", e.payment)),
            tx: crate::format::short(&e.tx_hash.to_string()),
            tx_link: tx_link(e.chain, &e.tx_hash),
            block_time: e.block_time.map(time).unwrap_or_else(|| "—".to_owned()),
            review: e.review.map(|r| r.as_str()).unwrap_or_default(),
            price: e
                .priced
                .as_ref()
                .map(|q| crate::format::price_and_rate(q, e.currency))
                .unwrap_or_default(),
        }
    }
}

#[derive(Template)]
#[template(path = "balance.html")]
struct ListView {
    chrome: Chrome,
    entries: Vec<EntryLine>,
    types: Vec<super::Choice>,
    from: String,
    to: String,
    export: String,
    next: Option<String>,
}

/// The page's filters: `type`, and `from`/`to` as days (UTC), `to` included.
struct Selection {
    filter: BalanceTransactionFilter,
    kind: String,
    from: String,
    to: String,
}

impl Selection {
    fn read(p: &Page) -> Result<Self, WebError> {
        let kind = p.query("type").unwrap_or_default();
        let from = p.query("from").unwrap_or_default();
        let to = p.query("to").unwrap_or_default();
        let filter = BalanceTransactionFilter {
            kind: BalanceType::parse(&kind),
            created_gte: day_start(&from, 0)?,
            created_lt: day_start(&to, 1)?,
            ..Default::default()
        };
        Ok(Self {
            filter,
            kind,
            from,
            to,
        })
    }

    fn query(&self) -> String {
        format!(
            "type={}&from={}&to={}",
            enc(&self.kind),
            enc(&self.from),
            enc(&self.to)
        )
    }
}

/// Midnight UTC `days_later` days after the day `day` (YYYY-MM-DD); nothing when empty.
fn day_start(day: &str, days_later: u64) -> Result<Option<Timestamp>, WebError> {
    if day.is_empty() {
        return Ok(None);
    }
    let invalid = || WebError::Invalid(format!("{day} is not a date such as 2026-11-28"));
    let date = NaiveDate::parse_from_str(day, "%Y-%m-%d").map_err(|_| invalid())?;
    let midnight = date
        .checked_add_days(chrono::Days::new(days_later))
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .ok_or_else(invalid)?;
    Timestamp::from_unix_seconds(midnight.and_utc().timestamp())
        .map(Some)
        .ok_or_else(invalid)
}

page_handler!(list, |p| async move {
    let ctx = p.ctx();
    let selection = Selection::read(&p)?;
    let page = page_request::<BalanceTransactionId>(&p)?;
    let rows = p
        .state
        .store
        .reader()
        .balance_transactions(ctx.merchant_id, ctx.mode, &selection.filter, &page)
        .await?;
    let query = selection.query();
    Reply::render(&ListView {
        chrome: p.chrome("balance", "Balance"),
        next: next_page(
            &p.link("/balance"),
            rows.has_more,
            rows.data.last().map(|x| x.id.to_string()),
            &format!("&{query}"),
        ),
        export: format!("{}?{query}", p.link("/balance/export")),
        entries: rows.data.iter().map(|e| EntryLine::new(&p, e)).collect(),
        types: super::choices(
            &BalanceType::ALL
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>(),
            &selection.kind,
        ),
        from: selection.from,
        to: selection.to,
    })
});

page_handler!(export, |p| async move {
    let ctx = p.ctx();
    let selection = Selection::read(&p)?;
    let batches = p
        .state
        .store
        .reader()
        .balance_transaction_export(ctx.merchant_id, ctx.mode, &selection.filter)
        .await?;
    Ok(Reply::Csv {
        filename: "balance_transactions.csv",
        chunks: stablepay_domain::representation::ledger_csv(batches),
    })
});
