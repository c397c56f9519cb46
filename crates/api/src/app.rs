//! Routing table, request ids, access logs, and the envelope for unknown routes/methods.

use std::net::TcpListener;
use std::time::Instant;

use actix_web::dev::{Server, Service};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::web::{self, Data};
use actix_web::{App, HttpMessage, HttpRequest, HttpResponse, HttpServer};
use tracing::Instrument;

use crate::error::{ApiError, ErrorCode};
use crate::routes::{
    checkout_sessions, hosted, portal, reads, refunds, wallets, webhook_endpoints,
};
use stablepay_web::WebState;

use crate::state::AppState;

#[derive(Clone)]
pub struct RequestId(pub String);

async fn unknown_route(req: HttpRequest) -> HttpResponse {
    ApiError::new(
        ErrorCode::NotFound,
        format!("Unrecognized request URL ({} {})", req.method(), req.path()),
    )
    .to_response()
}

async fn method_not_allowed(req: HttpRequest) -> HttpResponse {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("{} is not allowed on {}", req.method(), req.path()),
    )
    .to_response()
}

async fn health(state: Data<AppState>) -> HttpResponse {
    let ready = match &state.ping {
        Some(ping) => ping().await,
        None => true,
    };
    if ready {
        HttpResponse::Ok()
            .content_type("application/json")
            .body(r#"{"status":"ok"}"#)
    } else {
        ApiError::unavailable("The database is not reachable", 1).to_response()
    }
}

/// Registers the API routes; each resource renders 405 for other methods.
pub fn configure(cfg: &mut web::ServiceConfig) {
    let nope = || web::to(method_not_allowed);
    cfg.service(
        web::scope("/api/v1")
            .service(
                web::resource("/checkout/sessions")
                    .route(web::post().to(checkout_sessions::create))
                    .route(web::get().to(checkout_sessions::list))
                    .default_service(nope()),
            )
            .service(
                web::resource("/checkout/sessions/{id}")
                    .route(web::get().to(checkout_sessions::retrieve))
                    .default_service(nope()),
            )
            .service(
                web::resource("/payments")
                    .route(web::get().to(reads::list_payments))
                    .default_service(nope()),
            )
            .service(
                web::resource("/payments/{id}")
                    .route(web::get().to(reads::get_payment))
                    .default_service(nope()),
            )
            .service(
                web::resource("/refunds")
                    .route(web::get().to(reads::list_refunds))
                    .route(web::post().to(refunds::create))
                    .default_service(nope()),
            )
            .service(
                web::resource("/refunds/{id}")
                    .route(web::get().to(reads::get_refund))
                    .default_service(nope()),
            )
            .service(
                web::resource("/subscriptions")
                    .route(web::get().to(reads::list_subscriptions))
                    .default_service(nope()),
            )
            .service(
                web::resource("/subscriptions/{id}")
                    .route(web::get().to(reads::get_subscription))
                    .default_service(nope()),
            )
            .service(
                web::resource("/payment_attempts")
                    .route(web::get().to(reads::list_payment_attempts))
                    .default_service(nope()),
            )
            .service(
                web::resource("/payment_attempts/{id}")
                    .route(web::get().to(reads::get_payment_attempt))
                    .default_service(nope()),
            )
            .service(
                web::resource("/webhook_events")
                    .route(web::get().to(reads::list_webhook_events))
                    .default_service(nope()),
            )
            .service(
                web::resource("/webhook_events/{id}")
                    .route(web::get().to(reads::get_webhook_event))
                    .default_service(nope()),
            )
            .service(
                web::resource("/webhook_events/{id}/attempts")
                    .route(web::get().to(reads::list_webhook_attempts))
                    .default_service(nope()),
            )
            .service(
                web::resource("/webhook_events/{id}/resend")
                    .route(web::post().to(reads::resend_webhook_event))
                    .default_service(nope()),
            )
            .service(
                web::resource("/wallets")
                    .route(web::post().to(wallets::register))
                    .route(web::get().to(wallets::list))
                    .default_service(nope()),
            )
            .service(
                web::resource("/wallets/{id}")
                    .route(web::get().to(wallets::retrieve))
                    .route(web::delete().to(wallets::revoke))
                    .default_service(nope()),
            )
            .service(
                web::resource("/wallets/{id}/verify")
                    .route(web::post().to(wallets::verify))
                    .default_service(nope()),
            )
            .service(
                web::resource("/webhook_endpoints")
                    .route(web::post().to(webhook_endpoints::create))
                    .route(web::get().to(webhook_endpoints::list))
                    .default_service(nope()),
            )
            .service(
                web::resource("/webhook_endpoints/{id}")
                    .route(web::get().to(webhook_endpoints::retrieve))
                    .route(web::post().to(webhook_endpoints::update))
                    .route(web::delete().to(webhook_endpoints::delete))
                    .default_service(nope()),
            )
            .service(
                web::resource("/webhook_endpoints/{id}/recover")
                    .route(web::post().to(webhook_endpoints::recover))
                    .default_service(nope()),
            )
            .service(
                web::resource("/webhook_endpoints/{id}/test")
                    .route(web::post().to(webhook_endpoints::send_test))
                    .default_service(nope()),
            )
            .service(
                web::resource("/webhook_endpoints/{id}/rotate_secret")
                    .route(web::post().to(webhook_endpoints::rotate_secret))
                    .default_service(nope()),
            ),
    )
    .service(
        web::resource("/pay/{id}")
            .route(web::get().to(stablepay_web::checkout_page))
            .default_service(nope()),
    )
    .service(
        web::resource("/pay/{id}/intent")
            .route(web::get().to(hosted::intent))
            .default_service(nope()),
    )
    .service(
        web::resource("/pay/{id}/status")
            .route(web::get().to(hosted::status))
            .default_service(nope()),
    )
    .service(
        web::resource("/pay/{id}/confirm")
            .route(web::post().to(hosted::confirm))
            .default_service(nope()),
    )
    .service(
        web::resource("/portal/subscriptions/{id}")
            .route(web::get().to(stablepay_web::portal_page))
            .default_service(nope()),
    )
    .service(
        web::resource("/portal/subscriptions/{id}/cancel")
            .route(web::get().to(portal::message))
            .route(web::post().to(portal::cancel))
            .default_service(nope()),
    )
    .service(
        web::resource("/healthz")
            .route(web::get().to(health))
            .default_service(nope()),
    );
}

/// Starts the HTTP server on an already-bound listener (port 0 in tests).
pub fn serve(
    listener: TcpListener,
    (state, web): (Data<AppState>, Data<WebState>),
    workers: usize,
) -> std::io::Result<Server> {
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .app_data(web.clone())
            .wrap_fn(|req, srv| {
                let id = format!("req_{}", uuid::Uuid::now_v7().simple());
                req.extensions_mut().insert(RequestId(id.clone()));
                let method = req.method().clone();
                // A setup link's token is a credential: never in a log line.
                let path = match req.path().strip_prefix("/dashboard/setup/") {
                    Some(_) => "/dashboard/setup/…".to_owned(),
                    None => req.path().to_owned(),
                };
                let started = Instant::now();
                let span = tracing::info_span!("request", request_id = %id, %method, %path, merchant = tracing::field::Empty);
                let fut = srv.call(req).instrument(span.clone());
                async move {
                    let mut res = fut.await?;
                    if let Ok(value) = HeaderValue::from_str(&id) {
                        res.headers_mut().insert(HeaderName::from_static("request-id"), value);
                    }
                    let status = res.status().as_u16();
                    let elapsed = started.elapsed().as_secs_f64();
                    // Labelled by route pattern, never by raw path: ids would explode the series.
                    let route = res.request().match_pattern().unwrap_or_else(|| "unmatched".to_owned());
                    metrics::histogram!(
                        "stablepay_http_request_duration_seconds",
                        "route" => route,
                        "method" => method.to_string(),
                        "status" => status.to_string()
                    )
                    .record(elapsed);
                    let ms = elapsed * 1000.0;
                    span.in_scope(|| tracing::info!(status, latency_ms = format!("{ms:.1}"), "request"));
                    Ok(res)
                }
            })
            .configure(configure)
            .configure(stablepay_web::configure)
            .default_service(web::to(unknown_route))
    })
    .workers(workers)
    .listen(listener)?
    .run();
    Ok(server)
}
