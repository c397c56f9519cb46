//! The dashboard over real HTTP (helpers here; tests by use case in the submodules): setup link, sign-in, cookie attributes, CSRF, sign-out,
//! lockout, merchant isolation, and the pages calling the same use cases as the API.

use std::collections::BTreeMap;

use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use reqwest::redirect::Policy;
use reqwest::{Client, Response, StatusCode};
use stablepay_domain::ports::{ApiKeyManager, DashboardUserStore, SystemClock};
use stablepay_domain::rules::dashboard_auth::SessionPolicy;
use stablepay_domain::services::invite_dashboard_user;
use stablepay_domain::{Email, MerchantId};

use crate::support::{spawn_app, TestApp, WALLET_KEY};

pub const PASSWORD: &str = "correct horse battery staple";

/// A cookie-keeping client that never follows redirects, like a careful browser.
pub struct Browser {
    base: String,
    http: Client,
    pub cookies: BTreeMap<String, String>,
}

impl Browser {
    pub fn new(app: &TestApp) -> Self {
        Self {
            base: app.base.clone(),
            http: Client::builder().redirect(Policy::none()).build().unwrap(),
            cookies: BTreeMap::new(),
        }
    }

    pub fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub fn keep(&mut self, res: &Response) {
        for raw in res.headers().get_all(SET_COOKIE) {
            let raw = raw.to_str().unwrap();
            let (pair, attrs) = raw.split_once(';').unwrap_or((raw, ""));
            let (name, value) = pair.split_once('=').unwrap();
            if attrs.contains("Max-Age=0") || value.is_empty() {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_owned(), value.to_owned());
            }
        }
    }

    pub async fn get(&mut self, path: &str) -> Response {
        let res = self
            .http
            .get(format!("{}{path}", self.base))
            .header(COOKIE, self.cookie_header())
            .send()
            .await
            .unwrap();
        self.keep(&res);
        res
    }

    pub async fn post(&mut self, path: &str, form: &[(&str, &str)]) -> Response {
        let req = self.http.post(format!("{}{path}", self.base));
        self.send_form(req, form).await
    }

    /// A post whose client address a trusted proxy (loopback) names in `X-Forwarded-For`.
    pub async fn post_from(&mut self, client: &str, path: &str, form: &[(&str, &str)]) -> Response {
        let req = self
            .http
            .post(format!("{}{path}", self.base))
            .header("X-Forwarded-For", client);
        self.send_form(req, form).await
    }

    async fn send_form(&mut self, req: reqwest::RequestBuilder, form: &[(&str, &str)]) -> Response {
        let res = req
            .header(COOKIE, self.cookie_header())
            .form(form)
            .send()
            .await
            .unwrap();
        self.keep(&res);
        res
    }

    pub async fn text(&mut self, path: &str) -> String {
        let res = self.get(path).await;
        assert_eq!(res.status(), 200, "GET {path}");
        res.text().await.unwrap()
    }

    /// The CSRF token a page embeds in its forms.
    pub async fn csrf(&mut self, path: &str) -> String {
        hidden(&self.text(path).await, "csrf")
    }
}

/// The value of the first hidden input with this name.
pub fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} in page"))
        + marker.len();
    html[start..start + html[start..].find('"').unwrap()].to_owned()
}

pub fn location(res: &Response) -> String {
    res.headers()
        .get(LOCATION)
        .map(|l| l.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

/// Creates a user through the operator's use case and completes its setup link.
pub async fn user(app: &TestApp, merchant: MerchantId, email: &str) -> Browser {
    let invite = invite_dashboard_user(
        merchant,
        Email::parse(email).unwrap(),
        &SessionPolicy::default(),
        &app.store,
        &SystemClock,
    )
    .await
    .unwrap();
    let mut b = Browser::new(app);
    let path = format!("/dashboard/setup/{}", invite.setup_token);
    let csrf = b.csrf(&path).await;
    let res = b
        .post(
            &path,
            &[
                ("csrf", &csrf),
                ("password", PASSWORD),
                ("confirm", PASSWORD),
            ],
        )
        .await;
    assert_eq!(res.status(), 303);
    // The link works once.
    assert_eq!(b.get(&path).await.status(), 400);
    b
}

pub async fn sign_in(b: &mut Browser, email: &str, password: &str) -> Response {
    let csrf = b.csrf("/dashboard/login").await;
    b.post(
        "/dashboard/login",
        &[
            ("csrf", &csrf),
            ("email", email),
            ("password", password),
            ("next", "/dashboard/test"),
        ],
    )
    .await
}

pub async fn signed_in(app: &TestApp, merchant: MerchantId, email: &str) -> Browser {
    let mut b = user(app, merchant, email).await;
    let res = sign_in(&mut b, email, PASSWORD).await;
    assert_eq!(res.status(), 303, "{}", res.text().await.unwrap());
    b
}

mod isolation;
mod pages;
mod payment_links;
mod sign_in_load;
mod sign_in_tests;
