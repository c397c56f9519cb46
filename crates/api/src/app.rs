//! Routing table, request ids, access logs, and the envelope for unknown routes/methods.

use std::net::TcpListener;
use std::time::Instant;

use actix_web::dev::{Server, Service};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::Method;
use actix_web::web::{self, Data};
use actix_web::{App, HttpRequest, HttpResponse, HttpServer};
use actix_web::{Resource, Route};
use metrics::SharedString;
use tracing::Instrument;

use crate::error::{ApiError, ErrorCode};
use crate::routes::{
    checkout_sessions, hosted, hosted_authorization, payment_links, payment_reviews, portal, reads,
    refund_requests, refunds, wallets, webhook_endpoints, webhook_events, x402, x402_facilitator,
};
use stablepay_web::WebState;

use crate::request::{atomic_write, list, read, write};
use crate::state::{AppState, HttpWorkerStore};

/// Where the API's resources are mounted.
const API_PREFIX: &str = "/api/v1";

/// The full pattern of the resource a request matched, set on each resource as it is
/// registered: the metrics' `route` label without a second walk of the routing table
/// (actix's `match_pattern`) on every request.
struct RoutePattern(SharedString);

/// A response's `route` label: its resource's pattern, never the raw path (ids would
/// explode the series).
fn route_label(req: &HttpRequest) -> SharedString {
    match req.app_data::<RoutePattern>() {
        Some(pattern) => pattern.0.clone(),
        // Routes registered elsewhere (the dashboard's pages).
        None => req.match_pattern().map_or(
            SharedString::const_str("unmatched"),
            SharedString::from_owned,
        ),
    }
}

async fn unknown_route(req: HttpRequest) -> HttpResponse {
    ApiError::new(
        ErrorCode::NotFound,
        format!("Unrecognized request URL ({} {})", req.method(), req.path()),
    )
    .to_response()
}

async fn method_not_allowed(req: HttpRequest, allow: &str) -> HttpResponse {
    let mut res = ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("{} is not allowed on {}", req.method(), req.path()),
    )
    .to_response();
    if let Ok(value) = HeaderValue::from_str(allow) {
        res.headers_mut()
            .insert(actix_web::http::header::ALLOW, value);
    }
    res
}

/// One resource: a handler per method, and for any other method a 405 whose `Allow`
/// names them (RFC 9110).
fn resource<const N: usize>(path: &str, routes: [(Method, Route); N]) -> Resource {
    mounted("", path, routes)
}

/// `resource` inside the `API_PREFIX` scope.
fn api<const N: usize>(path: &str, routes: [(Method, Route); N]) -> Resource {
    mounted(API_PREFIX, path, routes)
}

/// `resource` at `path` within a scope mounted at `prefix`.
fn mounted<const N: usize>(prefix: &str, path: &str, routes: [(Method, Route); N]) -> Resource {
    let allow: Vec<&str> = routes.iter().map(|(m, _)| m.as_str()).collect();
    let allow = allow.join(", ");
    let pattern = SharedString::from_shared(format!("{prefix}{path}").into());
    let mut resource = web::resource(path).app_data(RoutePattern(pattern));
    for (method, route) in routes {
        resource = resource.route(route.method(method));
    }
    resource.default_service(web::to(move |req: HttpRequest| {
        let allow = allow.clone();
        async move { method_not_allowed(req, &allow).await }
    }))
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

/// Registers the API routes, each with its policy (`request::{read, list, write,
/// atomic_write}`); each resource renders 405 for other methods.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(API_PREFIX)
            .service(api(
                "/openapi.json",
                [(Method::GET, web::route().to(crate::openapi::serve))],
            ))
            .service(api(
                "/checkout/sessions",
                [
                    (Method::POST, atomic_write(checkout_sessions::create)),
                    (Method::GET, list(checkout_sessions::list)),
                ],
            ))
            .service(api(
                "/checkout/sessions/{id}",
                [(Method::GET, read(checkout_sessions::retrieve))],
            ))
            .service(api(
                "/payment_links",
                [
                    (Method::POST, atomic_write(payment_links::create)),
                    (Method::GET, list(payment_links::list)),
                ],
            ))
            .service(api(
                "/payment_links/{id}",
                [
                    (Method::GET, read(payment_links::retrieve)),
                    (Method::POST, atomic_write(payment_links::update)),
                ],
            ))
            .service(api(
                "/payments",
                [(Method::GET, list(reads::list_payments))],
            ))
            .service(api(
                "/balance_transactions",
                [(Method::GET, list(reads::list_balance_transactions))],
            ))
            .service(api(
                "/balance_transactions/export",
                [(Method::GET, list(reads::export_balance_transactions))],
            ))
            .service(api(
                "/audit_events",
                [(Method::GET, list(reads::list_audit_events))],
            ))
            .service(api(
                "/payments/{id}",
                [(Method::GET, read(reads::get_payment))],
            ))
            .service(api(
                "/payments/{id}/screening_checks",
                [(Method::GET, read(reads::list_payment_screening_checks))],
            ))
            .service(api(
                "/refunds",
                [
                    (Method::GET, list(reads::list_refunds)),
                    (Method::POST, write(refunds::create)),
                ],
            ))
            .service(api(
                "/refunds/{id}",
                [(Method::GET, read(reads::get_refund))],
            ))
            .service(api(
                "/payments/{id}/review",
                [(Method::POST, write(payment_reviews::review))],
            ))
            .service(api(
                "/refund_requests",
                [
                    (Method::GET, list(refund_requests::list)),
                    (Method::POST, atomic_write(refund_requests::create)),
                ],
            ))
            .service(api(
                "/refund_requests/{id}",
                [(Method::GET, read(refund_requests::retrieve))],
            ))
            .service(api(
                "/subscriptions",
                [(Method::GET, list(reads::list_subscriptions))],
            ))
            .service(api(
                "/subscriptions/{id}",
                [(Method::GET, read(reads::get_subscription))],
            ))
            .service(api(
                "/payment_attempts",
                [(Method::GET, list(reads::list_payment_attempts))],
            ))
            .service(api(
                "/payment_attempts/{id}",
                [(Method::GET, read(reads::get_payment_attempt))],
            ))
            .service(api(
                "/webhook_events",
                [(Method::GET, list(reads::list_webhook_events))],
            ))
            .service(api(
                "/webhook_events/{id}",
                [(Method::GET, read(reads::get_webhook_event))],
            ))
            .service(api(
                "/webhook_events/{id}/attempts",
                [(Method::GET, list(reads::list_webhook_attempts))],
            ))
            .service(api(
                "/webhook_events/{id}/resend",
                [(
                    Method::POST,
                    atomic_write(webhook_events::resend_webhook_event),
                )],
            ))
            .service(api(
                "/wallets",
                [
                    (Method::POST, atomic_write(wallets::register)),
                    (Method::GET, list(wallets::list)),
                ],
            ))
            .service(api(
                "/wallets/{id}",
                [
                    (Method::GET, read(wallets::retrieve)),
                    (Method::DELETE, write(wallets::revoke)),
                ],
            ))
            .service(api(
                "/wallets/{id}/verify",
                [(Method::POST, write(wallets::verify))],
            ))
            .service(api(
                "/webhook_endpoints",
                [
                    (Method::POST, atomic_write(webhook_endpoints::create)),
                    (Method::GET, list(webhook_endpoints::list)),
                ],
            ))
            .service(api(
                "/webhook_endpoints/{id}",
                [
                    (Method::GET, read(webhook_endpoints::retrieve)),
                    (Method::POST, atomic_write(webhook_endpoints::update)),
                    (Method::DELETE, write(webhook_endpoints::delete)),
                ],
            ))
            .service(api(
                "/webhook_endpoints/{id}/recover",
                [(Method::POST, atomic_write(webhook_endpoints::recover))],
            ))
            .service(api(
                "/webhook_endpoints/{id}/test",
                [(Method::POST, atomic_write(webhook_endpoints::send_test))],
            ))
            .service(api(
                "/webhook_endpoints/{id}/rotate_secret",
                [(Method::POST, atomic_write(webhook_endpoints::rotate_secret))],
            ))
            .service(api(
                "/x402/supported",
                [(Method::GET, read(x402_facilitator::supported))],
            ))
            .service(api(
                "/x402/verify",
                [(Method::POST, write(x402_facilitator::verify))],
            ))
            .service(api(
                "/x402/settle",
                [(Method::POST, write(x402_facilitator::settle))],
            )),
    )
    .service(resource(
        "/pay/{id}",
        [(Method::GET, web::route().to(stablepay_web::checkout_page))],
    ))
    .service(resource(
        "/pay/{id}/intent",
        [(Method::GET, web::route().to(hosted::intent))],
    ))
    .service(resource(
        "/pay/{id}/authorization",
        [
            (
                Method::GET,
                web::route().to(hosted_authorization::authorization),
            ),
            (Method::POST, web::route().to(hosted_authorization::submit)),
        ],
    ))
    .service(resource(
        "/pay/{id}/requote",
        [(Method::POST, web::route().to(hosted::requote))],
    ))
    .service(resource(
        "/pay/{id}/status",
        [(Method::GET, web::route().to(hosted::status))],
    ))
    .service(resource(
        "/pay/{id}/confirm",
        [(Method::POST, web::route().to(hosted::confirm))],
    ))
    .service(resource(
        "/x402/{id}",
        [(Method::GET, web::route().to(x402::resource))],
    ))
    .service(resource(
        "/portal/subscriptions/{id}",
        [(Method::GET, web::route().to(stablepay_web::portal_page))],
    ))
    .service(resource(
        "/portal/subscriptions/{id}/cancel",
        [
            (Method::GET, web::route().to(portal::message)),
            (Method::POST, web::route().to(portal::cancel)),
        ],
    ))
    .service(resource(
        "/link/{id}",
        [(Method::GET, web::route().to(stablepay_web::link_page))],
    ))
    .service(resource(
        "/refund/{id}",
        [(Method::GET, web::route().to(stablepay_web::refund_page))],
    ))
    .service(resource(
        "/refund/{id}/message",
        [(Method::GET, web::route().to(refund_requests::message))],
    ))
    .service(resource(
        "/refund/{id}/address",
        [(Method::POST, web::route().to(refund_requests::confirm))],
    ))
    .service(resource(
        "/healthz",
        [(Method::GET, web::route().to(health))],
    ));
}

/// A fresh request id (`req_` and a UUIDv7, time-ordered) written into `buf`.
fn request_id(buf: &mut [u8; 36]) -> &str {
    buf[..4].copy_from_slice(b"req_");
    uuid::Uuid::now_v7().simple().encode_lower(&mut buf[4..]);
    std::str::from_utf8(buf).unwrap_or("req_")
}

/// Starts the HTTP server on an already-bound listener (port 0 in tests).
pub fn serve(
    listener: TcpListener,
    (state, web): (Data<AppState>, Data<WebState>),
    workers: usize,
) -> std::io::Result<Server> {
    // Each HTTP worker gets its own store (`HttpWorkerStore`), numbered as the workers start.
    let workers_started = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let server = HttpServer::new(move || {
        let n = workers_started.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let store = Data::new(HttpWorkerStore((state.store_for_worker)(n)));
        App::new()
            .app_data(state.clone())
            .app_data(store)
            .app_data(web.clone())
            .wrap_fn(|req, srv| {
                let mut id = [0u8; 36];
                let id = request_id(&mut id);
                let method = req.method().clone();
                // A setup link's token is a credential: never in a log line.
                let path = match req.path().starts_with("/dashboard/setup/") {
                    true => "/dashboard/setup/…",
                    false => req.path(),
                };
                let started = Instant::now();
                let span = tracing::info_span!("request", request_id = %id, %method, %path, merchant = tracing::field::Empty);
                let header = HeaderValue::from_str(id);
                let fut = srv.call(req).instrument(span.clone());
                async move {
                    let mut res = fut.await?;
                    if let Ok(value) = header {
                        res.headers_mut().insert(HeaderName::from_static("request-id"), value);
                    }
                    let status = res.status().as_u16();
                    let elapsed = started.elapsed().as_secs_f64();
                    metrics::histogram!(
                        "stablepay_http_request_duration_seconds",
                        "route" => route_label(res.request()),
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
