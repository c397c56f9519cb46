//! The customer's refund page (`GET /refund/:id`, D32): public, per-IP limited, the
//! request id is the capability. The confirmation text and the address post are JSON
//! endpoints of the API crate; this renders the page around the request's public view.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;
use stablepay_domain::representation::PublicRefundRequest;
use stablepay_domain::RefundRequestId;

use crate::shell::{admit_public, html, WebError};
use crate::WebState;

#[derive(Template)]
#[template(path = "refund.html")]
struct RefundView {
    test: bool,
    /// The public request for the page's script (JSON; `<` escaped).
    data: String,
}

pub async fn page(state: Data<WebState>, req: HttpRequest) -> HttpResponse {
    if let Err(e) = admit_public(&state, &req) {
        return e.to_response();
    }
    let raw = req.match_info().get("id").unwrap_or_default();
    let Ok(id) = RefundRequestId::parse(raw) else {
        return WebError::NotFound.to_response();
    };
    let view = async {
        let Some(request) = state.store.refund_requests().request_by_id(id).await? else {
            return Ok(None);
        };
        let name = state
            .store
            .subscriptions()
            .merchant_name(request.merchant_id)
            .await?
            .unwrap_or_default();
        let now = state.clock.now();
        Ok::<_, stablepay_domain::ports::StoreError>(Some(PublicRefundRequest::new(
            request, now, name,
        )))
    }
    .await;
    let public = match view {
        Ok(Some(v)) => v,
        Ok(None) => return WebError::NotFound.to_response(),
        Err(e) => return WebError::from(e).to_response(),
    };
    let test = !public.livemode;
    let data = serde_json::to_string(&public)
        .unwrap_or_default()
        .replace('<', "\\u003c");
    match (RefundView { test, data }).render() {
        Ok(body) => html(StatusCode::OK, body),
        Err(e) => {
            tracing::error!(error = %e, "refund template");
            WebError::Internal.to_response()
        }
    }
}
