//! The customer portal page (`GET /portal/subscriptions/:id`, D11/D20): public, per-IP
//! limited, the subscription id is the capability. The cancel message and the signed
//! cancel are JSON endpoints of the API crate; this renders the page around the same
//! public view of the subscription.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;
use stablepay_domain::representation::PublicSubscription;
use stablepay_domain::services::{
    portal_merchant_name, portal_subscription, PortalDeps, PortalError,
};
use stablepay_domain::SubscriptionId;

use crate::shell::{admit_public, html, WebError};
use crate::WebState;

#[derive(Template)]
#[template(path = "portal.html")]
struct PortalView {
    test: bool,
    /// The public subscription for the page's script (JSON; `<` escaped).
    data: String,
}

fn page_error(e: PortalError) -> WebError {
    match e {
        PortalError::NotFound(_) => WebError::NotFound,
        PortalError::Store(e) => e.into(),
        other => {
            tracing::warn!(error = %other, "portal page");
            WebError::Unavailable
        }
    }
}

pub async fn page(state: Data<WebState>, req: HttpRequest) -> HttpResponse {
    if let Err(e) = admit_public(&state, &req) {
        return e.to_response();
    }
    let raw = req.match_info().get("id").unwrap_or_default();
    let Ok(id) = SubscriptionId::parse(raw) else {
        return WebError::NotFound.to_response();
    };
    let deps = PortalDeps {
        subscriptions: state.store.subscriptions(),
        chain: state.chain.as_ref(),
        clock: state.clock.as_ref(),
    };
    let view = async {
        let rec = portal_subscription(id, &deps).await?;
        let name = portal_merchant_name(&rec, &deps).await?;
        let test = !rec.subscription.mode.is_live();
        Ok::<_, PortalError>((test, PublicSubscription::new(rec, name)))
    }
    .await;
    let (test, public) = match view {
        Ok(v) => v,
        Err(e) => return page_error(e).to_response(),
    };
    let data = serde_json::to_string(&public)
        .unwrap_or_default()
        .replace('<', "\\u003c");
    match (PortalView { test, data }).render() {
        Ok(body) => html(StatusCode::OK, body),
        Err(e) => {
            tracing::error!(error = %e, "portal template");
            WebError::Internal.to_response()
        }
    }
}
