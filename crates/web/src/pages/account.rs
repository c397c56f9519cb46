//! Signing in and out, the setup link, and the account's security page (TOTP, sessions).

use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::StatusCode;
use actix_web::web::{Data, Payload};
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;
use secrecy::SecretString;
use stablepay_domain::rules::dashboard_auth::{csrf_matches, new_token};
use stablepay_domain::rules::totp;
use stablepay_domain::services::{
    complete_dashboard_setup, enroll_totp, remove_totp, resume_dashboard_session, setup_link_user,
    sign_in, sign_out, SetupError, SignInDeps, SignInError, TotpDeps, TotpError,
};
use stablepay_domain::NewPassword;

use super::page_handler;
use crate::shell::{
    cookie, html, read_form, redirect, secured, Chrome, Reply, WebError, SESSION_COOKIE,
};
use crate::WebState;

/// Double-submit token for the sign-in and setup forms (there is no session yet).
const LOGIN_COOKIE: &str = "__Host-stablepay_login";

fn strict_cookie(name: &str, value: String) -> Cookie<'static> {
    Cookie::build(name.to_owned(), value)
        .path("/")
        .secure(true)
        .http_only(true)
        .same_site(SameSite::Strict)
        .finish()
}

fn expired_cookie(name: &str) -> Cookie<'static> {
    let mut c = strict_cookie(name, String::new());
    c.make_removal();
    c
}

/// Only a dashboard path may be a post-sign-in destination (no open redirect).
fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(n) if n.starts_with("/dashboard/") && !n.contains("//") && !n.contains('\\') => {
            n.to_owned()
        }
        _ => "/dashboard/live".to_owned(),
    }
}

#[derive(Template)]
#[template(path = "login.html")]
struct LoginView {
    csrf: String,
    next: String,
    email: String,
    error: Option<String>,
    ask_code: bool,
}

fn login_page(status: StatusCode, view: LoginView) -> HttpResponse {
    let body = view.render().unwrap_or_default();
    let mut res = html(status, body);
    let _ = res.add_cookie(&strict_cookie(LOGIN_COOKIE, view.csrf));
    res
}

fn query_param(req: &HttpRequest, name: &str) -> Option<String> {
    url::form_urlencoded::parse(req.query_string().as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

pub async fn login_form(state: Data<WebState>, req: HttpRequest) -> HttpResponse {
    let next = safe_next(query_param(&req, "next").as_deref());
    // Already signed in: straight on.
    if let Some(token) = cookie(&req, SESSION_COOKIE) {
        if let Ok(Some(_)) = resume_dashboard_session(
            &token,
            &state.policy,
            state.store.users(),
            state.clock.as_ref(),
        )
        .await
        {
            return redirect(&next);
        }
    }
    login_page(
        StatusCode::OK,
        LoginView {
            csrf: new_token(),
            next,
            email: String::new(),
            error: None,
            ask_code: false,
        },
    )
}

pub async fn login(state: Data<WebState>, req: HttpRequest, payload: Payload) -> HttpResponse {
    let form = match read_form(&req, payload).await {
        Ok(f) => f,
        Err(e) => return e.to_response(),
    };
    let sent = form.get("csrf").unwrap_or("");
    let expected = cookie(&req, LOGIN_COOKIE).unwrap_or_default();
    if expected.is_empty() || expected != sent {
        return WebError::Forbidden.to_response();
    }
    if let Err(wait) = state.login_limiter.check(&req) {
        return WebError::TooManyRequests(wait).to_response();
    }
    let email = form.get("email").unwrap_or("").to_owned();
    if let Err(wait) = state.account_limiter.check(&email, state.clock.now()) {
        return WebError::TooManyRequests(wait).to_response();
    }
    let next = safe_next(form.get("next"));
    let code = form.text("code");
    let password = SecretString::from(form.get("password").unwrap_or("").to_owned());
    let deps = SignInDeps {
        policy: &state.policy,
        users: state.store.users(),
        passwords: state.passwords.as_ref(),
        clock: state.clock.as_ref(),
    };
    let result = sign_in(&email, &password, code.as_deref(), &deps).await;
    let (status, error, ask_code) = match result {
        Ok(signed) => {
            tracing::info!(user = %signed.user.id, "dashboard sign-in");
            let mut res = redirect(&next);
            let _ = res.add_cookie(&strict_cookie(SESSION_COOKIE, signed.token));
            let _ = res.add_cookie(&expired_cookie(LOGIN_COOKIE));
            return res;
        }
        Err(SignInError::Store(e)) => return WebError::from(e).to_response(),
        Err(e @ SignInError::TotpRequired) => (StatusCode::UNAUTHORIZED, e.to_string(), true),
        Err(e @ SignInError::InvalidCredentials) => {
            (StatusCode::UNAUTHORIZED, e.to_string(), code.is_some())
        }
    };
    login_page(
        status,
        LoginView {
            csrf: new_token(),
            next,
            email,
            error: Some(error),
            ask_code,
        },
    )
}

#[derive(Template)]
#[template(path = "setup.html")]
struct SetupView {
    csrf: String,
    email: String,
    error: Option<String>,
}

pub async fn setup_form(state: Data<WebState>, req: HttpRequest) -> HttpResponse {
    let token = req.match_info().get("token").unwrap_or_default();
    match setup_link_user(token, state.store.users(), state.clock.as_ref()).await {
        Ok(user) => login_cookie_page(SetupView {
            csrf: new_token(),
            email: user.email.to_string(),
            error: None,
        }),
        Err(SetupError::InvalidLink) => {
            WebError::Invalid(SetupError::InvalidLink.to_string()).to_response()
        }
        Err(SetupError::Store(e)) => WebError::from(e).to_response(),
    }
}

fn login_cookie_page(view: SetupView) -> HttpResponse {
    let status = if view.error.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    let mut res = html(status, view.render().unwrap_or_default());
    let _ = res.add_cookie(&strict_cookie(LOGIN_COOKIE, view.csrf));
    res
}

pub async fn setup(state: Data<WebState>, req: HttpRequest, payload: Payload) -> HttpResponse {
    let form = match read_form(&req, payload).await {
        Ok(f) => f,
        Err(e) => return e.to_response(),
    };
    let expected = cookie(&req, LOGIN_COOKIE).unwrap_or_default();
    if expected.is_empty() || form.get("csrf") != Some(expected.as_str()) {
        return WebError::Forbidden.to_response();
    }
    let token = req.match_info().get("token").unwrap_or_default().to_owned();
    let user = match setup_link_user(&token, state.store.users(), state.clock.as_ref()).await {
        Ok(u) => u,
        Err(SetupError::InvalidLink) => {
            return WebError::Invalid(SetupError::InvalidLink.to_string()).to_response()
        }
        Err(SetupError::Store(e)) => return WebError::from(e).to_response(),
    };
    let again = |error: String| {
        login_cookie_page(SetupView {
            csrf: new_token(),
            email: user.email.to_string(),
            error: Some(error),
        })
    };
    let password = form.get("password").unwrap_or("");
    if form.get("confirm") != Some(password) {
        return again("The two passwords differ.".into());
    }
    let password = match NewPassword::parse(password) {
        Ok(p) => p,
        Err(e) => return again(format!("The password {e}.")),
    };
    let client = state.public_limiter.client_address(&req);
    match complete_dashboard_setup(
        &token,
        &password,
        Some(client),
        state.store.users(),
        state.clock.as_ref(),
    )
    .await
    {
        Ok(_) => {
            let mut res = redirect("/dashboard/login?next=%2Fdashboard%2Flive&notice=ready");
            let _ = res.add_cookie(&expired_cookie(LOGIN_COOKIE));
            res
        }
        Err(SetupError::InvalidLink) => {
            WebError::Invalid(SetupError::InvalidLink.to_string()).to_response()
        }
        Err(SetupError::Store(e)) => WebError::from(e).to_response(),
    }
}

/// Signs out this session (and every other one with `everywhere=1`). The CSRF token of
/// the session is required, so a cross-site form cannot sign anyone out.
pub async fn logout(state: Data<WebState>, req: HttpRequest, payload: Payload) -> HttpResponse {
    let form = match read_form(&req, payload).await {
        Ok(f) => f,
        Err(e) => return e.to_response(),
    };
    let Some(token) = cookie(&req, SESSION_COOKIE) else {
        return redirect("/dashboard/login");
    };
    if !csrf_matches(&token, form.get("csrf").unwrap_or("")) {
        return WebError::Forbidden.to_response();
    }
    let session = resume_dashboard_session(
        &token,
        &state.policy,
        state.store.users(),
        state.clock.as_ref(),
    )
    .await;
    if let Ok(Some(s)) = session {
        let everywhere = form.get("everywhere") == Some("1");
        if let Err(e) = sign_out(&s, everywhere, state.store.users(), state.clock.as_ref()).await {
            return WebError::from(e).to_response();
        }
    } else if let Err(e) = session {
        return WebError::from(e).to_response();
    }
    let mut res = secured(HttpResponse::SeeOther())
        .insert_header(("Location", "/dashboard/login"))
        .finish();
    let _ = res.add_cookie(&expired_cookie(SESSION_COOKIE));
    res
}

#[derive(Template)]
#[template(path = "security.html")]
struct SecurityView {
    chrome: Chrome,
    totp_enabled: bool,
    /// While enrolling: the new secret (base32) and its otpauth URI.
    enrolling: Option<(String, String)>,
    secret_hex: String,
    error: Option<String>,
    idle: String,
    absolute: String,
}

fn span(secs: i64) -> String {
    match secs {
        s if s % 3600 == 0 => format!("{} hours", s / 3600),
        s if s % 60 == 0 => format!("{} minutes", s / 60),
        s => format!("{s} seconds"),
    }
}

page_handler!(security, |p| async move {
    Reply::render(&SecurityView {
        chrome: p.chrome("security", "Security"),
        totp_enabled: p.session.user.totp_enabled,
        enrolling: None,
        secret_hex: String::new(),
        error: None,
        idle: span(p.state.policy.idle_secs),
        absolute: span(p.state.policy.absolute_secs),
    })
});

page_handler!(totp_start, |p| async move {
    if p.session.user.totp_enabled {
        return Err(WebError::Invalid(TotpError::AlreadyEnrolled.to_string()));
    }
    let secret = totp::new_secret();
    Reply::render(&SecurityView {
        chrome: p.chrome("security", "Security"),
        totp_enabled: p.session.user.totp_enabled,
        enrolling: Some((
            totp::base32(&secret),
            totp::provisioning_uri(&secret, p.session.user.email.as_str()),
        )),
        secret_hex: hex::encode(&secret),
        error: None,
        idle: span(p.state.policy.idle_secs),
        absolute: span(p.state.policy.absolute_secs),
    })
});

page_handler!(totp_confirm, |p| async move {
    let s = &p.state;
    let deps = TotpDeps {
        policy: &s.policy,
        users: s.store.users(),
        passwords: s.passwords.as_ref(),
        clock: s.clock.as_ref(),
    };
    let again = |enrolling: Option<&[u8]>, error: TotpError| {
        Reply::render(&SecurityView {
            chrome: p.chrome("security", "Security"),
            totp_enabled: enrolling.is_none(),
            enrolling: enrolling.map(|secret| {
                (
                    totp::base32(secret),
                    totp::provisioning_uri(secret, p.session.user.email.as_str()),
                )
            }),
            secret_hex: enrolling.map(hex::encode).unwrap_or_default(),
            error: Some(error.to_string()),
            idle: span(s.policy.idle_secs),
            absolute: span(s.policy.absolute_secs),
        })
    };
    let code = p.form.get("code").unwrap_or("");
    if p.form.get("disable") == Some("1") {
        return match remove_totp(&p.session.user, code, Some(p.client_address()), &deps).await {
            Ok(()) => Ok(Reply::Redirect(p.link("/security?notice=totp_disabled"))),
            Err(TotpError::Store(e)) => Err(e.into()),
            Err(e) => again(None, e),
        };
    }
    let secret = hex::decode(p.form.get("secret").unwrap_or("")).unwrap_or_default();
    let password = SecretString::from(p.form.get("password").unwrap_or("").to_owned());
    let client = Some(p.client_address());
    match enroll_totp(
        &p.session.user,
        secret.clone(),
        code,
        &password,
        client,
        &deps,
    )
    .await
    {
        Ok(()) => Ok(Reply::Redirect(p.link("/security?notice=totp_enabled"))),
        Err(e @ TotpError::AlreadyEnrolled) => Err(WebError::Invalid(e.to_string())),
        Err(TotpError::Store(e)) => Err(e.into()),
        Err(e) => again(Some(&secret), e),
    }
});
