//! A payment link's public URL (`GET /link/:id`, D34): per-IP limited, the link id is the
//! capability. Each visit opens a fresh checkout session and answers 303 to its hosted
//! page; a visitor holding an open session of the link (its cookie) goes back to that one.
//! A link that takes the buyer's amount first asks for it; an inactive or sold-out link,
//! or one that cannot be paid now, answers a page that says so.

use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;
use stablepay_domain::services::{
    open_payment_link, CreateSessionError, LinkVisit, LinkVisitDeps, LinkVisitError, LinkVisitor,
};
use stablepay_domain::{CheckoutSessionId, LinkPricing, PaymentLink, PaymentLinkId};

use crate::shell::{admit_public, cookie, html, redirect, WebError};
use crate::WebState;

/// The visitor's open session of the link; scoped to the link's path, so one name serves
/// every link.
const VISIT_COOKIE: &str = "stablepay_link_session";

#[derive(Template)]
#[template(path = "link.html")]
struct LinkView {
    test: bool,
    merchant: String,
    name: String,
    description: String,
    /// `ask-amount`, `inactive`, `sold-out` or `unavailable`.
    state: &'static str,
    message: String,
    action: String,
    unit: &'static str,
    minimum: String,
    maximum: String,
    typed: String,
    refused: String,
}

pub async fn page(state: Data<WebState>, req: HttpRequest) -> HttpResponse {
    if let Err(e) = admit_public(&state, &req) {
        return e.to_response();
    }
    let raw = req.match_info().get("id").unwrap_or_default();
    let Ok(id) = PaymentLinkId::parse(raw) else {
        return WebError::NotFound.to_response();
    };
    let query = actix_web::web::Query::<Vec<(String, String)>>::from_query(req.query_string())
        .map(|q| q.into_inner())
        .unwrap_or_default();
    let chosen = query
        .iter()
        .find(|(k, _)| k == "amount")
        .map(|(_, v)| v.as_str());
    let visitor = LinkVisitor {
        returning: cookie(&req, VISIT_COOKIE).and_then(|c| CheckoutSessionId::parse(&c).ok()),
        chosen_amount: chosen,
    };
    let s = &state;
    let deps = LinkVisitDeps {
        links: s.store.payment_links(),
        prepare: s.prepare_session_deps(),
        create: s.create_session_deps(),
    };
    let public_url = s.public_url.trim_end_matches('/');
    let visit = match open_payment_link(id, visitor, &deps).await {
        Ok(visit) => visit,
        Err(LinkVisitError::NotFound(_)) => return WebError::NotFound.to_response(),
        Err(LinkVisitError::Store(e)) => return WebError::from(e).to_response(),
        Err(LinkVisitError::Unavailable { link, error }) => {
            return unavailable(s, &link, error).await
        }
    };
    let (link, state_name, status, message) = match visit {
        LinkVisit::Session { session, fresh } => {
            let to = format!("{public_url}/pay/{}", session.id);
            let mut reply = redirect(&to);
            if fresh {
                let secs =
                    (session.pays_until().unix_seconds() - s.clock.now().unix_seconds()).max(1);
                let visit = Cookie::build(VISIT_COOKIE, session.id.to_string())
                    .path(format!("/link/{id}"))
                    .http_only(true)
                    .secure(public_url.starts_with("https://"))
                    .same_site(SameSite::Lax)
                    .max_age(actix_web::cookie::time::Duration::seconds(secs))
                    .finish();
                if let Err(e) = reply.add_cookie(&visit) {
                    tracing::warn!(error = %e, "payment link: the visit cookie was not set");
                }
            }
            return reply;
        }
        LinkVisit::AskAmount { link, refused } => {
            let refused = refused.map(|r| r.to_string()).unwrap_or_default();
            let status = if refused.is_empty() {
                StatusCode::OK
            } else {
                StatusCode::BAD_REQUEST
            };
            let mut view = view(s, &link, "ask-amount", String::new()).await;
            view.refused = refused;
            view.typed = chosen.unwrap_or_default().to_owned();
            return render(status, &view);
        }
        LinkVisit::Inactive(link) => (
            link,
            "inactive",
            StatusCode::GONE,
            "This payment link is no longer active.".to_owned(),
        ),
        LinkVisit::SoldOut(link) => (
            link,
            "sold-out",
            StatusCode::GONE,
            "This payment link has reached its limit of payments.".to_owned(),
        ),
    };
    render(status, &view(s, &link, state_name, message).await)
}

/// The page of a link whose session could not be opened now: a price feed stale or the
/// network unreachable (503, try again), or terms that no longer hold, such as its wallet
/// revoked (409; the detail is the merchant's, in the log).
async fn unavailable(s: &WebState, link: &PaymentLink, e: CreateSessionError) -> HttpResponse {
    let (status, message) = match &e {
        CreateSessionError::PriceUnavailable(_) | CreateSessionError::ChainUnavailable(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "The price cannot be quoted right now. Try again in a minute.",
        ),
        CreateSessionError::Store(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "This page is unavailable right now. Try again in a minute.",
        ),
        CreateSessionError::Invalid(_) => (
            StatusCode::CONFLICT,
            "This payment link cannot take payments right now. Contact the seller.",
        ),
    };
    tracing::warn!(link = %link.id, error = %e, "payment link: no session opened");
    let mut reply = render(
        status,
        &view(s, link, "unavailable", message.to_owned()).await,
    );
    if status == StatusCode::SERVICE_UNAVAILABLE {
        if let Ok(v) = actix_web::http::header::HeaderValue::from_str("60") {
            reply
                .headers_mut()
                .insert(actix_web::http::header::RETRY_AFTER, v);
        }
    }
    reply
}

async fn view(s: &WebState, link: &PaymentLink, state: &'static str, message: String) -> LinkView {
    let merchant = s
        .store
        .subscriptions()
        .merchant_name(link.merchant_id)
        .await
        .ok()
        .flatten()
        .unwrap_or_default();
    let (minimum, maximum) = match link.pricing {
        LinkPricing::Custom { bounds, .. } => {
            (bounds.minimum().to_string(), bounds.maximum().to_string())
        }
        _ => Default::default(),
    };
    LinkView {
        test: !link.mode.is_live(),
        merchant,
        name: link.name.clone(),
        description: link.description.clone().unwrap_or_default(),
        state,
        message,
        action: format!("/link/{}", link.id),
        unit: link.unit(),
        minimum,
        maximum,
        typed: String::new(),
        refused: String::new(),
    }
}

fn render(status: StatusCode, view: &LinkView) -> HttpResponse {
    match view.render() {
        Ok(body) => html(status, body),
        Err(e) => {
            tracing::error!(error = %e, "payment link template");
            WebError::Internal.to_response()
        }
    }
}
