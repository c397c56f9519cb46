//! Home: settled gross, fees and net for the last 7 and 30 days with a daily chart,
//! recent payments, and webhook endpoints that are failing.

use std::collections::BTreeMap;

use askama::Template;
use stablepay_domain::{
    Currency, DailyTotal, DeliveryStatus, Fiat, PageRequest, PaymentFilter, WebhookEventFilter,
};

use super::page_handler;
use super::payments::PaymentLine;
use crate::format::{fiat_money, money};
use crate::shell::{Chrome, Reply};

pub struct Totals {
    pub label: &'static str,
    pub currency: String,
    pub payments: u64,
    pub gross: String,
    pub fees: String,
    pub refunded: String,
    /// Net of fees and of refunds sent back.
    pub net: String,
}

/// The 30-day chart of the tokens pegged to one money (USDC and USDT add up as USD;
/// EURC is charted apart, as EUR).
pub struct Chart {
    pub fiat: &'static str,
    pub bars: Vec<Bar>,
    /// The tallest bar's gross.
    pub max: String,
}

/// One bar of the 30-day chart (SVG coordinates precomputed; no inline styles).
pub struct Bar {
    pub x: u32,
    pub y: u32,
    pub height: u32,
    pub title: String,
}

pub struct FailingEndpoint {
    pub link: String,
    pub url: String,
    pub failed: usize,
    pub last_error: String,
}

#[derive(Template)]
#[template(path = "home.html")]
struct HomeView {
    chrome: Chrome,
    totals: Vec<Totals>,
    charts: Vec<Chart>,
    payments: Vec<PaymentLine>,
    failing: Vec<FailingEndpoint>,
}

const CHART_HEIGHT: u32 = 120;
const BAR_WIDTH: u32 = 18;

page_handler!(show, |p| async move {
    let s = &p.state;
    let ctx = p.ctx();
    let now = s.clock.now();
    let today = now.as_datetime().date_naive();
    let since = now.plus_seconds(-30 * 86_400);
    let days = s
        .store
        .summaries()
        .daily_totals(ctx.merchant_id, ctx.mode, since)
        .await?;

    let mut totals = Vec::new();
    for (label, window) in [("Last 7 days", 7i64), ("Last 30 days", 30)] {
        for currency in Currency::ALL {
            let rows = days
                .iter()
                .filter(|d| d.currency == currency && (today - d.day).num_days() < window);
            let (mut n, mut gross, mut fees, mut net, mut refunded) = (0u64, 0, 0, 0, 0);
            for d in rows {
                n += d.payments;
                gross += d.gross_micros;
                fees += d.fee_micros;
                net += d.net_micros;
                refunded += d.refunded_micros;
            }
            if n > 0 || currency == Currency::Usdc {
                totals.push(Totals {
                    label,
                    currency: currency.to_string(),
                    payments: n,
                    gross: money(gross, currency),
                    fees: money(fees, currency),
                    refunded: money(refunded, currency),
                    net: money(net.saturating_sub(refunded), currency),
                });
            }
        }
    }

    let charts = [Fiat::Usd, Fiat::Eur]
        .into_iter()
        .filter_map(|fiat| chart(&days, fiat, today))
        .collect();

    let recent = s
        .store
        .reader()
        .payments(
            ctx.merchant_id,
            ctx.mode,
            &PaymentFilter::default(),
            &PageRequest::first(5),
        )
        .await?;

    let failed = s
        .store
        .reader()
        .webhook_events(
            ctx.merchant_id,
            ctx.mode,
            &WebhookEventFilter {
                status: Some(DeliveryStatus::Failed),
                ..WebhookEventFilter::default()
            },
            &PageRequest::first(100),
        )
        .await?;
    let mut by_endpoint: BTreeMap<String, (usize, String, stablepay_domain::WebhookEndpointId)> =
        BTreeMap::new();
    for e in failed
        .data
        .iter()
        .filter(|e| now.unix_seconds() - e.created_at.unix_seconds() < 7 * 86_400)
    {
        let entry = by_endpoint.entry(e.endpoint.to_string()).or_insert((
            0,
            e.last_error.clone().unwrap_or_default(),
            e.endpoint,
        ));
        entry.0 += 1;
    }
    let mut failing = Vec::new();
    for (_, (count, last_error, id)) in by_endpoint {
        if let Some(endpoint) = s
            .store
            .endpoints()
            .get(ctx.merchant_id, ctx.mode, id)
            .await?
        {
            failing.push(FailingEndpoint {
                link: p.link(&format!("/developers/webhooks/{id}")),
                url: endpoint.url.as_str().to_owned(),
                failed: count,
                last_error,
            });
        }
    }

    Reply::render(&HomeView {
        chrome: p.chrome("home", "Home"),
        totals,
        charts,
        payments: recent
            .data
            .iter()
            .map(|x| PaymentLine::new(&p, x))
            .collect(),
        failing,
    })
});

/// Daily gross over 30 days of the tokens pegged to `fiat`; `None` when there is none.
fn chart(days: &[DailyTotal], fiat: Fiat, today: chrono::NaiveDate) -> Option<Chart> {
    let mut per_day: BTreeMap<i64, u64> = BTreeMap::new();
    for d in days.iter().filter(|d| d.currency.fiat() == fiat) {
        let age = (today - d.day).num_days();
        if (0..30).contains(&age) {
            *per_day.entry(29 - age).or_default() += d.gross_micros;
        }
    }
    let max = per_day.values().copied().max().filter(|m| *m > 0)?;
    let bars = per_day
        .iter()
        .filter(|(_, g)| **g > 0)
        .map(|(slot, gross)| {
            let height =
                ((u128::from(*gross) * u128::from(CHART_HEIGHT)) / u128::from(max)).max(1) as u32;
            let day = today - chrono_days(29 - *slot);
            Bar {
                x: (*slot as u32) * (BAR_WIDTH + 2),
                y: CHART_HEIGHT - height,
                height,
                title: format!("{day}: {}", fiat_money(*gross, fiat)),
            }
        })
        .collect();
    Some(Chart {
        fiat: fiat.as_str(),
        bars,
        max: fiat_money(max, fiat),
    })
}

fn chrono_days(n: i64) -> chrono::Duration {
    chrono::Duration::days(n)
}
