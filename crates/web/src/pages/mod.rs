//! Dashboard pages, one file per area. Every signed-in page runs through
//! [`crate::shell::page`].

mod account;
mod api_keys;
mod audit;
mod balance;
mod checkout_sessions;
mod customers;
mod home;
mod payment_links;
mod payments;
mod refund_requests;
mod reviews;
mod settings;
mod subscriptions;
mod wallets;
mod webhooks;

use actix_web::web;

use crate::assets::asset;
use crate::shell::redirect;

/// `/dashboard` goes to live mode (sign-in first when needed).
async fn root() -> actix_web::HttpResponse {
    redirect("/dashboard/live")
}

/// Anything else under `/dashboard` is a person's 404 page, not the API's JSON envelope.
async fn not_found() -> actix_web::HttpResponse {
    crate::shell::WebError::NotFound.to_response()
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/assets/{name}", web::get().to(asset));

    cfg.service(
        web::scope("/dashboard")
            .route("", web::get().to(root))
            .route("/", web::get().to(root))
            .route("/login", web::get().to(account::login_form))
            .route("/login", web::post().to(account::login))
            .route("/setup/{token}", web::get().to(account::setup_form))
            .route("/setup/{token}", web::post().to(account::setup))
            .route("/logout", web::post().to(account::logout))
            .service(
                web::scope("/{mode}")
                    .route("", web::get().to(home::show))
                    .route("/security", web::get().to(account::security))
                    .route("/security/history", web::get().to(audit::list))
                    .route("/settings", web::get().to(settings::show))
                    .route("/settings", web::post().to(settings::save))
                    .route(
                        "/settings/screening",
                        web::post().to(settings::save_screening),
                    )
                    .route("/security/totp", web::post().to(account::totp_start))
                    .route(
                        "/security/totp/confirm",
                        web::post().to(account::totp_confirm),
                    )
                    .route("/balance", web::get().to(balance::list))
                    .route("/balance/export", web::get().to(balance::export))
                    .route("/payments", web::get().to(payments::list))
                    .route("/payments/{id}", web::get().to(payments::show))
                    .route("/payments/{id}/refunds", web::post().to(payments::refund))
                    .route("/payments/{id}/review", web::post().to(reviews::decide))
                    .route(
                        "/payments/{id}/refund_requests",
                        web::post().to(refund_requests::create),
                    )
                    .route(
                        "/refund_requests/{id}",
                        web::get().to(refund_requests::show),
                    )
                    .route("/checkout_sessions", web::get().to(checkout_sessions::list))
                    .route(
                        "/checkout_sessions",
                        web::post().to(checkout_sessions::create),
                    )
                    .route("/payment_links", web::get().to(payment_links::list))
                    .route("/payment_links", web::post().to(payment_links::create))
                    .route("/payment_links/{id}", web::get().to(payment_links::show))
                    .route(
                        "/payment_links/{id}/active",
                        web::post().to(payment_links::set_active),
                    )
                    .route("/subscriptions", web::get().to(subscriptions::list))
                    .route("/subscriptions/{id}", web::get().to(subscriptions::show))
                    .route("/customers", web::get().to(customers::list))
                    .route("/wallets", web::get().to(wallets::list))
                    .route("/wallets", web::post().to(wallets::register))
                    .route("/wallets/{id}/verify", web::post().to(wallets::verify))
                    .route("/wallets/{id}/revoke", web::post().to(wallets::revoke))
                    .route("/developers/api_keys", web::get().to(api_keys::list))
                    .route("/developers/api_keys", web::post().to(api_keys::create))
                    .route(
                        "/developers/api_keys/{id}/revoke",
                        web::post().to(api_keys::revoke),
                    )
                    .route("/developers/webhooks", web::get().to(webhooks::list))
                    .route("/developers/webhooks", web::post().to(webhooks::create))
                    .route("/developers/webhooks/{id}", web::get().to(webhooks::show))
                    .route(
                        "/developers/webhooks/{id}",
                        web::post().to(webhooks::update),
                    )
                    .route(
                        "/developers/webhooks/{id}/rotate",
                        web::post().to(webhooks::rotate),
                    )
                    .route(
                        "/developers/webhooks/{id}/test",
                        web::post().to(webhooks::send_test),
                    )
                    .route(
                        "/developers/webhooks/{id}/delete",
                        web::post().to(webhooks::delete),
                    )
                    .route("/developers/events/{id}", web::get().to(webhooks::event))
                    .route(
                        "/developers/events/{id}/resend",
                        web::post().to(webhooks::resend),
                    )
                    .default_service(web::to(not_found)),
            )
            .default_service(web::to(not_found)),
    );
}

/// Declares a signed-in page handler: `page_handler!(name, |p| async move { ... })`.
macro_rules! page_handler {
    ($name:ident, $body:expr) => {
        pub async fn $name(
            state: actix_web::web::Data<crate::WebState>,
            req: actix_web::HttpRequest,
            payload: actix_web::web::Payload,
        ) -> actix_web::HttpResponse {
            crate::shell::page(state, req, payload, $body).await
        }
    };
}
pub(crate) use page_handler;

/// "Older →" link for keyset pagination: the id of the last row shown.
pub fn next_page(
    base: &str,
    has_more: bool,
    last: Option<String>,
    filters: &str,
) -> Option<String> {
    match (has_more, last) {
        (true, Some(last)) => Some(format!("{base}?starting_after={last}{filters}")),
        _ => None,
    }
}

/// The page request of a list page: 20 rows after the `starting_after` cursor.
pub fn page_request<I: stablepay_domain::TypedId>(
    p: &crate::shell::Page,
) -> Result<stablepay_domain::PageRequest, crate::shell::WebError> {
    let after = match p.query("starting_after") {
        None => None,
        Some(raw) => Some(
            I::parse_str(&raw)
                .map_err(|_| crate::shell::WebError::NotFound)?
                .as_uuid(),
        ),
    };
    stablepay_domain::PageRequest::new(None, after).map_err(|_| crate::shell::WebError::NotFound)
}

/// One option of a filter or form select.
pub struct Choice {
    pub value: &'static str,
    pub selected: bool,
}

pub fn choices(all: &[&'static str], current: &str) -> Vec<Choice> {
    all.iter()
        .map(|v| Choice {
            value: v,
            selected: *v == current,
        })
        .collect()
}
