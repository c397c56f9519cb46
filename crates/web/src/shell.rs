//! The one wrapper every signed-in page goes through: the session cookie, the mode in the
//! path, the CSRF check on every POST, security headers, and error pages that never show
//! internals.

use std::future::Future;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::web::{Data, Payload};
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder};
use askama::Template;
use futures_util::StreamExt;
use stablepay_domain::ports::StoreError;
use stablepay_domain::rules::dashboard_auth::{csrf_matches, csrf_token};
use stablepay_domain::services::{resume_dashboard_session, LookupError};
use stablepay_domain::{AuthContext, DashboardSession, Mode};

use crate::form::Form;
use crate::WebState;

/// The session cookie (`__Host-`: Secure, Path=/, no Domain).
pub const SESSION_COOKIE: &str = "__Host-stablepay_session";
/// Forms are small; anything bigger is refused.
const MAX_FORM_BYTES: usize = 64 * 1024;

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// What a page handler gets.
pub struct Page {
    pub state: Data<WebState>,
    pub session: DashboardSession,
    token: String,
    pub mode: Mode,
    pub req: HttpRequest,
    pub form: Form,
}

impl Page {
    /// The context every use case takes: this merchant, the mode on screen.
    pub fn ctx(&self) -> AuthContext {
        self.session.context(self.mode)
    }

    /// Who makes this page's changes, for the audit log: the signed-in user, from the
    /// client's address.
    pub fn changer(&self) -> stablepay_domain::Changer {
        stablepay_domain::Changer::new(self.ctx().actor, Some(self.client_address()))
    }

    /// The client's address, by the trusted proxies the per-IP limits use.
    pub fn client_address(&self) -> std::net::IpAddr {
        self.state.public_limiter.client_address(&self.req)
    }

    pub fn csrf(&self) -> String {
        csrf_token(&self.token)
    }

    pub fn path(&self, name: &str) -> String {
        self.req
            .match_info()
            .get(name)
            .unwrap_or_default()
            .to_owned()
    }

    /// A query-string parameter (filters, the pagination cursor).
    pub fn query(&self, name: &str) -> Option<String> {
        url::form_urlencoded::parse(self.req.query_string().as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
            .filter(|v| !v.is_empty())
    }

    /// The frame every page shares.
    pub fn chrome(&self, section: &'static str, title: impl Into<String>) -> Chrome {
        Chrome {
            title: title.into(),
            section,
            merchant: self.session.merchant_name.clone(),
            email: self.session.user.email.to_string(),
            mode: self.mode.as_str(),
            live: self.mode.is_live(),
            other_mode: if self.mode.is_live() { "test" } else { "live" },
            csrf: self.csrf(),
            notice: self.query("notice").and_then(|n| notice_text(&n)),
            base: format!("/dashboard/{}", self.mode.as_str()),
        }
    }

    /// `/dashboard/<mode><rest>`.
    pub fn link(&self, rest: &str) -> String {
        format!("/dashboard/{}{rest}", self.mode.as_str())
    }
}

/// Shared page frame: navigation, the mode switch, the signed-in account.
pub struct Chrome {
    pub title: String,
    pub section: &'static str,
    pub merchant: String,
    pub email: String,
    pub mode: &'static str,
    pub live: bool,
    pub other_mode: &'static str,
    pub csrf: String,
    pub notice: Option<&'static str>,
    pub base: String,
}

/// Notices after a redirect come from this fixed list, so no text is reflected.
fn notice_text(code: &str) -> Option<&'static str> {
    Some(match code {
        "key_revoked" => "The API key was revoked; requests with it now get 401.",
        "endpoint_updated" => "The endpoint was saved.",
        "endpoint_deleted" => "The endpoint was deleted.",
        "test_sent" => "A test event was queued for delivery.",
        "resent" => "The event was queued for redelivery.",
        "wallet_verified" => "The wallet is verified and can receive payments.",
        "wallet_revoked" => "The wallet was revoked; new sessions cannot use it.",
        "refund_recorded" => "The refund was verified on-chain and recorded.",
        "review_approved" => "Approved: the checkout completed and its webhooks were sent.",
        "review_returned" => "Returned: a refund request to the sender was opened (see Payments → its refund requests).",
        "totp_enabled" => "Two-factor sign-in is on.",
        "totp_disabled" => "Two-factor sign-in is off.",
        "link_created" => "The payment link was created: share its URL or QR code.",
        "link_off" => "The link is off: its URL opens no session.",
        "link_on" => "The link is on again.",
        "settings_saved" => "The settings were saved; new sessions use them.",
        "screening_saved" => "Screening was saved; it applies to every payer checked from now on.",
        _ => return None,
    })
}

/// A successful page answer.
pub enum Reply {
    Html(String),
    /// 303 See Other, so a reload never re-posts a form.
    Redirect(String),
    /// A `text/csv` attachment streamed as its chunks arrive (`csv_attachment`).
    Csv {
        filename: &'static str,
        chunks: futures_util::stream::BoxStream<'static, Result<String, StoreError>>,
    },
}

impl Reply {
    pub fn render(t: &impl Template) -> Result<Self, WebError> {
        t.render().map(Reply::Html).map_err(|e| {
            tracing::error!(error = %e, "template rendering failed");
            WebError::Internal
        })
    }
}

/// Failures a page shows; the text is for people, never internals.
#[derive(Debug)]
pub enum WebError {
    NotFound,
    /// 400 with a message meant for the user.
    Invalid(String),
    /// 403: the form's CSRF token is missing or wrong.
    Forbidden,
    TooManyRequests(u64),
    Unavailable,
    Internal,
}

impl From<StoreError> for WebError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => WebError::NotFound,
            StoreError::Contended => {
                WebError::Invalid("That changed meanwhile; reload and try again.".into())
            }
            StoreError::Unavailable(detail) => {
                tracing::warn!(%detail, "dashboard: storage unavailable");
                WebError::Unavailable
            }
            StoreError::Internal(detail) => {
                tracing::error!(%detail, "dashboard: storage failure");
                WebError::Internal
            }
        }
    }
}

impl From<LookupError> for WebError {
    fn from(e: LookupError) -> Self {
        match e {
            LookupError::NotFound(_) => WebError::NotFound,
            LookupError::Store(e) => e.into(),
        }
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorView<'a> {
    status: u16,
    heading: &'a str,
    message: &'a str,
}

impl WebError {
    pub fn to_response(&self) -> HttpResponse {
        let (status, heading, message) = match self {
            WebError::NotFound => (
                StatusCode::NOT_FOUND,
                "Not found",
                "There is nothing here for this account and mode.",
            ),
            WebError::Invalid(m) => (StatusCode::BAD_REQUEST, "That did not work", m.as_str()),
            WebError::Forbidden => (
                StatusCode::FORBIDDEN,
                "Form expired",
                "This form was not sent from your current session. Go back, reload the page and try again.",
            ),
            WebError::TooManyRequests(_) => (
                StatusCode::TOO_MANY_REQUESTS,
                "Too many attempts",
                "Wait a minute before trying again.",
            ),
            WebError::Unavailable => (
                StatusCode::SERVICE_UNAVAILABLE,
                "Temporarily unavailable",
                "A service this page needs did not answer. Try again in a moment.",
            ),
            WebError::Internal => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "The error was logged. Try again in a moment.",
            ),
        };
        let body = ErrorView {
            status: status.as_u16(),
            heading,
            message,
        }
        .render()
        .unwrap_or_else(|_| heading.to_owned());
        let mut res = secured(HttpResponse::build(status));
        if let WebError::TooManyRequests(wait) = self {
            res.insert_header((header::RETRY_AFTER, wait.to_string()));
        }
        res.content_type("text/html; charset=utf-8").body(body)
    }
}

/// Security headers every dashboard response carries.
pub fn secured(mut b: HttpResponseBuilder) -> HttpResponseBuilder {
    b.insert_header((header::CONTENT_SECURITY_POLICY, CSP))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "same-origin"))
        .insert_header((header::CACHE_CONTROL, "no-store"));
    b
}

pub fn html(status: StatusCode, body: String) -> HttpResponse {
    secured(HttpResponse::build(status))
        .content_type("text/html; charset=utf-8")
        .body(body)
}

pub fn redirect(to: &str) -> HttpResponse {
    let mut b = secured(HttpResponse::SeeOther());
    if let Ok(v) = HeaderValue::from_str(to) {
        b.insert_header((header::LOCATION, v));
    }
    b.finish()
}

/// The public pages' per-IP limit (D15), shared with the API's hosted endpoints.
pub fn admit_public(state: &WebState, req: &HttpRequest) -> Result<(), WebError> {
    state
        .public_limiter
        .check(req)
        .map_err(WebError::TooManyRequests)
}

/// The value of a request cookie.
pub fn cookie(req: &HttpRequest, name: &str) -> Option<String> {
    req.cookie(name).map(|c| c.value().to_owned())
}

/// Reads an urlencoded form body (POST only), capped at 64 KiB.
pub async fn read_form(req: &HttpRequest, mut payload: Payload) -> Result<Form, WebError> {
    if req.method() != Method::POST {
        return Ok(Form::default());
    }
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| WebError::Invalid("The form could not be read.".into()))?;
        if body.len() + chunk.len() > MAX_FORM_BYTES {
            return Err(WebError::Invalid("The form is too large.".into()));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Form::parse(&body))
}

/// Runs a signed-in page: no session → the sign-in page; a POST without this session's
/// CSRF token → 403 before the handler runs.
pub async fn page<F, Fut>(
    state: Data<WebState>,
    req: HttpRequest,
    payload: Payload,
    handler: F,
) -> HttpResponse
where
    F: FnOnce(Page) -> Fut,
    Fut: Future<Output = Result<Reply, WebError>>,
{
    let mode = match req.match_info().get("mode").and_then(Mode::parse) {
        Some(m) => m,
        None => return WebError::NotFound.to_response(),
    };
    let Some(token) = cookie(&req, SESSION_COOKIE) else {
        return to_sign_in(&req);
    };
    let session = match resume_dashboard_session(
        &token,
        &state.policy,
        state.store.users(),
        state.clock.as_ref(),
    )
    .await
    {
        Ok(Some(s)) => s,
        Ok(None) => return to_sign_in(&req),
        Err(e) => return WebError::from(e).to_response(),
    };
    let form = match read_form(&req, payload).await {
        Ok(f) => f,
        Err(e) => return e.to_response(),
    };
    if req.method() == Method::POST && !csrf_matches(&token, form.get("csrf").unwrap_or("")) {
        tracing::warn!(path = %req.path(), "dashboard: POST without a valid CSRF token");
        return WebError::Forbidden.to_response();
    }
    let p = Page {
        state,
        session,
        token,
        mode,
        req,
        form,
    };
    match handler(p).await {
        Ok(Reply::Html(body)) => html(StatusCode::OK, body),
        Ok(Reply::Redirect(to)) => redirect(&to),
        Ok(Reply::Csv { filename, chunks }) => csv_attachment(filename, chunks),
        Err(e) => e.to_response(),
    }
}

/// A 200 `text/csv` attachment written as `chunks` arrive (the dashboard's downloads and
/// the API's export): a failed chunk is logged and breaks the transfer, so the client never
/// holds a short file that looks complete.
pub fn csv_attachment(
    filename: &str,
    chunks: futures_util::stream::BoxStream<'static, Result<String, StoreError>>,
) -> HttpResponse {
    use futures_util::StreamExt;
    let body = chunks.map(|chunk| {
        chunk.map(actix_web::web::Bytes::from).map_err(|e| {
            tracing::error!(error = %e, "export failed");
            std::io::Error::other("the export failed")
        })
    });
    HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            actix_web::http::header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{filename}\""),
        ))
        .streaming(body)
}

fn to_sign_in(req: &HttpRequest) -> HttpResponse {
    let next = if req.method() == Method::GET {
        let path = req.uri().path_and_query().map(|p| p.as_str()).unwrap_or("");
        let encoded: String = url::form_urlencoded::byte_serialize(path.as_bytes()).collect();
        format!("/dashboard/login?next={encoded}")
    } else {
        "/dashboard/login".to_owned()
    };
    redirect(&next)
}
