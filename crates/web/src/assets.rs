//! The stylesheets and scripts of the dashboard and the hosted checkout: served from the binary, no CDN, no build step.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};

const CSS: &str = include_str!("../assets/dashboard.css");
const JS: &str = include_str!("../assets/dashboard.js");
const CHECKOUT_CSS: &str = include_str!("../assets/checkout.css");
const CHECKOUT_JS: &str = include_str!("../assets/checkout.js");
const PORTAL_JS: &str = include_str!("../assets/portal.js");
const REFUND_JS: &str = include_str!("../assets/refund.js");

pub async fn asset(req: HttpRequest) -> HttpResponse {
    let (body, kind) = match req.match_info().get("name") {
        Some("dashboard.css") => (CSS, "text/css; charset=utf-8"),
        Some("dashboard.js") => (JS, "text/javascript; charset=utf-8"),
        Some("checkout.css") => (CHECKOUT_CSS, "text/css; charset=utf-8"),
        Some("checkout.js") => (CHECKOUT_JS, "text/javascript; charset=utf-8"),
        Some("portal.js") => (PORTAL_JS, "text/javascript; charset=utf-8"),
        Some("refund.js") => (REFUND_JS, "text/javascript; charset=utf-8"),
        _ => return crate::shell::WebError::NotFound.to_response(),
    };
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, kind))
        .insert_header((header::CACHE_CONTROL, "public, max-age=300"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body)
}
