//! The hosted checkout page a buyer opens (`GET /pay/:id`): public, per-IP limited, the
//! session id is the capability. Its JSON companions (intent, confirm, status) live in
//! the API crate; this renders the page around the same public view of the session.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;
use stablepay_domain::representation::PublicSession;
use stablepay_domain::rules::deposit::transfer_request_uri;
use stablepay_domain::services::{
    find_public_session, one_signature_offered, HostedError, OneSignatureOffer,
};
use stablepay_domain::{CheckoutSessionId, FeedPair, SessionMode, SessionStatus};

use crate::format::{amount, money, time};
use crate::shell::{admit_public, html, WebError};
use crate::WebState;

#[derive(Template)]
#[template(path = "checkout.html")]
struct CheckoutView {
    merchant: String,
    title: String,
    description: String,
    test: bool,
    amount: String,
    /// A price in a currency (D34): what it was and the rate it was quoted at.
    price: Option<String>,
    every: String,
    network: &'static str,
    chain_id: u64,
    recipient_short: String,
    expires: String,
    expires_unix: i64,
    state: &'static str,
    subscription: bool,
    /// One signature, no gas (EIP-3009) is the primary way to pay.
    one_signature: bool,
    /// Why one signature is not offered, when relaying is paused on the chain (D30).
    relay_paused: Option<String>,
    has_cancel: bool,
    /// "Send from any wallet or exchange" (D24), for an open payment with an address.
    deposit: Option<DepositPanel>,
    /// Where software agents pay by x402 (D29), when the session offers it.
    x402_url: Option<String>,
    /// Where to ask for a fresh session at a new quote, for a session whose quote lapses
    /// before it does (D34): shown once the quote lapsed.
    requote: Option<String>,
    /// The public session for the page's script (JSON; `<` escaped).
    data: String,
}

/// The plain-transfer panel: the address, what to send, and its EIP-681 QR code.
struct DepositPanel {
    address: String,
    /// What is still to send, e.g. "16.00 USDC".
    remaining: String,
    received: String,
    currency: &'static str,
    uri: String,
    /// An inline SVG, rendered here (no third-party script or CDN).
    qr_svg: String,
}

fn deposit_panel(session: &stablepay_domain::CheckoutSession) -> Option<DepositPanel> {
    let address = session.deposit_address?;
    if session.status != SessionStatus::Open || session.session_mode != SessionMode::Payment {
        return None;
    }
    let left = session
        .amount
        .micros()
        .saturating_sub(session.amount_received_micros);
    let uri = transfer_request_uri(&session.token_address, session.chain, &address, left);
    let qr_svg = qrcode::QrCode::new(uri.as_bytes())
        .ok()?
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(200, 200)
        .build();
    // Inline in HTML: no XML prolog.
    let qr_svg = qr_svg.find("<svg").map(|i| qr_svg[i..].to_owned())?;
    Some(DepositPanel {
        address: address.to_string(),
        remaining: money(left, session.currency),
        received: money(session.amount_received_micros, session.currency),
        currency: session.currency.as_str(),
        uri,
        qr_svg,
    })
}

/// "Priced at 20.00 EUR · 1 EUR = 1.0825 USD (EUR/USD feed, round 42)": what the buyer is
/// paying for, beside the token amount.
fn price_line(session: &stablepay_domain::CheckoutSession) -> Option<String> {
    let p = session.priced.as_ref()?;
    let line = crate::format::price_and_rate(p, session.currency);
    Some(match p.quote.pair {
        FeedPair::EurUsd => format!(
            "Priced at {line} ({} feed, round {})",
            p.quote.pair.as_str(),
            p.quote.round_id
        ),
        _ => format!("Priced at {line}"),
    })
}

fn every(secs: Option<u64>) -> String {
    match secs {
        None => String::new(),
        Some(s) if s % 86_400 == 0 => plural(s / 86_400, "day"),
        Some(s) if s % 3600 == 0 => plural(s / 3600, "hour"),
        Some(s) if s % 60 == 0 => plural(s / 60, "minute"),
        Some(s) => plural(s, "second"),
    }
}

fn plural(n: u64, unit: &str) -> String {
    if n == 1 {
        format!("every {unit}")
    } else {
        format!("every {n} {unit}s")
    }
}

pub async fn page(state: Data<WebState>, req: HttpRequest) -> HttpResponse {
    if let Err(e) = admit_public(&state, &req) {
        return e.to_response();
    }
    let raw = req.match_info().get("id").unwrap_or_default();
    let Ok(id) = CheckoutSessionId::parse(raw) else {
        return WebError::NotFound.to_response();
    };
    let session = match find_public_session(
        id,
        state.store.sessions(),
        state.store.wallets(),
        state.clock.as_ref(),
    )
    .await
    {
        Ok(s) => s,
        Err(HostedError::NotFound) => return WebError::NotFound.to_response(),
        Err(HostedError::Store(e)) => return WebError::from(e).to_response(),
        Err(e) => {
            tracing::warn!(error = %e, "hosted page");
            return WebError::Unavailable.to_response();
        }
    };
    let merchant = match state
        .store
        .subscriptions()
        .merchant_name(session.merchant_id)
        .await
    {
        Ok(name) => name.unwrap_or_default(),
        Err(e) => return WebError::from(e).to_response(),
    };
    let offer =
        one_signature_offered(&session, state.chain.as_ref(), state.relayer.as_deref()).await;
    // A lapsed quote (D34) offers no way to pay, as an expired session does; the page counts
    // down to whichever ends first.
    let quote_live = session.quote_live(state.clock.now());
    let ends = session.pays_until();
    let data = serde_json::to_string(&PublicSession::from(&session))
        .unwrap_or_default()
        .replace('<', "\\u003c");
    let view = CheckoutView {
        merchant,
        title: session.title.clone(),
        description: session.description.clone().unwrap_or_default(),
        test: !session.mode.is_live(),
        amount: amount(session.amount, session.currency),
        price: price_line(&session),
        every: every(session.interval_seconds),
        network: session.chain.display_name(),
        chain_id: session.chain.id(),
        // Shortened on purpose (issue 42): the one full address a buyer can copy is the
        // deposit address; paying the wallet directly credits no checkout.
        recipient_short: crate::format::short(&session.recipient_address.to_string()),
        expires: time(ends),
        expires_unix: ends.unix_seconds(),
        state: match session.status {
            // Paid, and held for the merchant's review (D33): not to be paid again.
            SessionStatus::Open if session.awaiting_review => "processing",
            SessionStatus::Open if !quote_live => "quote-expired",
            SessionStatus::Open => "open",
            SessionStatus::Completed => "paid",
            SessionStatus::Expired => "expired",
        },
        subscription: session.session_mode == SessionMode::Subscription,
        one_signature: offer == OneSignatureOffer::Offered,
        relay_paused: match offer {
            OneSignatureOffer::Paused(why) => Some(why.to_string()),
            _ => None,
        },
        has_cancel: session.cancel_url.is_some(),
        deposit: deposit_panel(&session).filter(|_| quote_live),
        x402_url: session.x402_url(&state.public_url).filter(|_| quote_live),
        requote: (session.status == SessionStatus::Open
            && !session.awaiting_review
            && session.amount_received_micros == 0
            && ends < session.expires_at)
            .then(|| format!("/pay/{}/requote", session.id)),
        data,
    };
    match view.render() {
        Ok(body) => html(StatusCode::OK, body),
        Err(e) => {
            tracing::error!(error = %e, "checkout template");
            WebError::Internal.to_response()
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_merchants_wallet_is_shown_too_short_to_send_to() {
        assert_eq!(
            crate::format::short("0x1234567890abcdef1234567890abcdef12345678"),
            "0x1234…5678"
        );
    }
}
