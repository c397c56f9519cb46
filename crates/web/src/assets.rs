//! The dashboard's stylesheet and script: served from the binary, no CDN, no build step.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};

const CSS: &str = include_str!("../assets/dashboard.css");
const JS: &str = include_str!("../assets/dashboard.js");

pub async fn asset(req: HttpRequest) -> HttpResponse {
    let (body, kind) = match req.match_info().get("name") {
        Some("dashboard.css") => (CSS, "text/css; charset=utf-8"),
        Some("dashboard.js") => (JS, "text/javascript; charset=utf-8"),
        _ => return crate::shell::WebError::NotFound.to_response(),
    };
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, kind))
        .insert_header((header::CACHE_CONTROL, "public, max-age=300"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body)
}
