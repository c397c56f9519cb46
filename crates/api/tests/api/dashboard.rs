//! The dashboard over real HTTP: setup link, sign-in, cookie attributes, CSRF, sign-out,
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

const PASSWORD: &str = "correct horse battery staple";

/// A cookie-keeping client that never follows redirects, like a careful browser.
struct Browser {
    base: String,
    http: Client,
    cookies: BTreeMap<String, String>,
}

impl Browser {
    fn new(app: &TestApp) -> Self {
        Self {
            base: app.base.clone(),
            http: Client::builder().redirect(Policy::none()).build().unwrap(),
            cookies: BTreeMap::new(),
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn keep(&mut self, res: &Response) {
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

    async fn get(&mut self, path: &str) -> Response {
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

    async fn post(&mut self, path: &str, form: &[(&str, &str)]) -> Response {
        let res = self
            .http
            .post(format!("{}{path}", self.base))
            .header(COOKIE, self.cookie_header())
            .form(form)
            .send()
            .await
            .unwrap();
        self.keep(&res);
        res
    }

    async fn text(&mut self, path: &str) -> String {
        let res = self.get(path).await;
        assert_eq!(res.status(), 200, "GET {path}");
        res.text().await.unwrap()
    }

    /// The CSRF token a page embeds in its forms.
    async fn csrf(&mut self, path: &str) -> String {
        hidden(&self.text(path).await, "csrf")
    }
}

/// The value of the first hidden input with this name.
fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} in page"))
        + marker.len();
    html[start..start + html[start..].find('"').unwrap()].to_owned()
}

fn location(res: &Response) -> String {
    res.headers()
        .get(LOCATION)
        .map(|l| l.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

/// Creates a user through the operator's use case and completes its setup link.
async fn user(app: &TestApp, merchant: MerchantId, email: &str) -> Browser {
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

async fn sign_in(b: &mut Browser, email: &str, password: &str) -> Response {
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

async fn signed_in(app: &TestApp, merchant: MerchantId, email: &str) -> Browser {
    let mut b = user(app, merchant, email).await;
    let res = sign_in(&mut b, email, PASSWORD).await;
    assert_eq!(res.status(), 303, "{}", res.text().await.unwrap());
    b
}

#[tokio::test]
async fn sign_in_sets_a_host_only_strict_cookie_and_pages_carry_a_strict_csp() {
    let app = spawn_app().await;
    let mut b = user(&app, app.a.id, "ops@a.example").await;
    // Signed out: every page sends you to sign in, remembering where you were going.
    let res = b.get("/dashboard/test/payments").await;
    assert_eq!(res.status(), 303);
    assert_eq!(
        location(&res),
        "/dashboard/login?next=%2Fdashboard%2Ftest%2Fpayments"
    );

    let res = sign_in(&mut b, "OPS@a.example", PASSWORD).await;
    assert_eq!(res.status(), 303);
    assert_eq!(location(&res), "/dashboard/test");
    let set: Vec<String> = res
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect();
    let session = set
        .iter()
        .find(|c| c.starts_with("__Host-stablepay_session="))
        .expect("session cookie");
    for attr in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/"] {
        assert!(session.contains(attr), "{attr} missing: {session}");
    }
    assert!(!session.contains("Domain"), "{session}");
    // Only a hash of the token is stored.
    let token = b.cookies["__Host-stablepay_session"].clone();
    let stored = app
        .store
        .session(stablepay_domain::rules::dashboard_auth::token_hash(&token));
    assert!(stored.await.unwrap().is_some());

    let res = b.get("/dashboard/test").await;
    assert_eq!(res.status(), 200);
    let csp = res.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        csp.contains("default-src 'none'") && csp.contains("script-src 'self'"),
        "{csp}"
    );
    assert_eq!(res.headers()["x-frame-options"], "DENY");
    let html = res.text().await.unwrap();
    assert!(html.contains("TEST MODE"), "test mode is clearly marked");
    assert!(html.contains("Merchant A"));
    let live = b.text("/dashboard/live").await;
    assert!(!live.contains("TEST MODE"));
}

#[tokio::test]
async fn wrong_passwords_never_say_which_part_was_wrong_and_the_fifth_locks() {
    let app = spawn_app().await;
    let mut b = user(&app, app.a.id, "ops@a.example").await;
    let unknown = sign_in(&mut b, "nobody@a.example", PASSWORD).await;
    assert_eq!(unknown.status(), 401);
    let unknown = unknown.text().await.unwrap();
    for _ in 0..5 {
        let res = sign_in(&mut b, "ops@a.example", "not the password").await;
        assert_eq!(res.status(), 401);
        let wrong = res.text().await.unwrap();
        assert!(
            wrong.contains("wrong email or password")
                && unknown.contains("wrong email or password")
        );
    }
    // Locked: even the right password is refused for now, with the same answer.
    let res = sign_in(&mut b, "ops@a.example", PASSWORD).await;
    assert_eq!(res.status(), 401);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("wrong email or password"));
    assert!(!b.cookies.contains_key("__Host-stablepay_session"));
}

#[tokio::test]
async fn forms_without_the_sessions_csrf_token_are_refused() {
    let app = spawn_app().await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let before = app.store.keys(app.a.id).await.unwrap().len();
    let res = b.post("/dashboard/test/developers/api_keys", &[]).await;
    assert_eq!(res.status(), 403);
    let res = b
        .post(
            "/dashboard/test/developers/api_keys",
            &[("csrf", "0".repeat(64).as_str())],
        )
        .await;
    assert_eq!(res.status(), 403);
    // Another session's token does not work either.
    let mut other = signed_in(&app, app.a.id, "dev@a.example").await;
    let foreign = other.csrf("/dashboard/test/developers/api_keys").await;
    let res = b
        .post("/dashboard/test/developers/api_keys", &[("csrf", &foreign)])
        .await;
    assert_eq!(res.status(), 403);
    assert_eq!(
        app.store.keys(app.a.id).await.unwrap().len(),
        before,
        "no key was made"
    );
    // The login form has its own double-submit token.
    let res = Browser::new(&app)
        .post(
            "/dashboard/login",
            &[("email", "ops@a.example"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(res.status(), 403);
}

#[tokio::test]
async fn after_sign_out_the_old_cookie_is_refused_and_everywhere_means_every_device() {
    let app = spawn_app().await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let stolen = b.cookies.clone();
    let csrf = b.csrf("/dashboard/test").await;
    let res = b.post("/dashboard/logout", &[("csrf", &csrf)]).await;
    assert_eq!(res.status(), 303);
    assert!(!b.cookies.contains_key("__Host-stablepay_session"));
    let mut replay = Browser::new(&app);
    replay.cookies = stolen;
    assert_eq!(replay.get("/dashboard/test").await.status(), 303);

    // Two devices; "sign out everywhere" on one ends both.
    let mut laptop = Browser::new(&app);
    assert_eq!(
        sign_in(&mut laptop, "ops@a.example", PASSWORD)
            .await
            .status(),
        303
    );
    let mut phone = Browser::new(&app);
    assert_eq!(
        sign_in(&mut phone, "ops@a.example", PASSWORD)
            .await
            .status(),
        303
    );
    let csrf = laptop.csrf("/dashboard/test").await;
    laptop
        .post("/dashboard/logout", &[("csrf", &csrf), ("everywhere", "1")])
        .await;
    assert_eq!(phone.get("/dashboard/test").await.status(), 303);
}

#[tokio::test]
async fn a_key_created_on_the_developers_page_works_once_shown_and_dies_on_revoke() {
    let app = spawn_app().await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let csrf = b.csrf("/dashboard/test/developers/api_keys").await;
    let res = b
        .post("/dashboard/test/developers/api_keys", &[("csrf", &csrf)])
        .await;
    assert_eq!(res.status(), 200);
    let html = res.text().await.unwrap();
    let start = html.find("id=\"new-key-secret\">").unwrap() + "id=\"new-key-secret\">".len();
    let secret = &html[start..start + 44];
    assert!(secret.starts_with("svc_sk_test_"), "{secret}");
    assert_eq!(app.get(secret, "/checkout/sessions").await.status(), 200);
    // Shown once: the list never carries it again.
    let list = b.text("/dashboard/test/developers/api_keys").await;
    assert!(!list.contains(secret));

    let key = app.store.keys(app.a.id).await.unwrap()[0].clone();
    assert!(secret.ends_with(&key.last4), "newest first");
    // "Last used" is written off the request path: poll for it.
    let mut used = None;
    for _ in 0..100 {
        used = app.store.keys(app.a.id).await.unwrap()[0].last_used_at;
        if used.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let used = used.expect("last_used_at recorded");
    assert!(b
        .text("/dashboard/test/developers/api_keys")
        .await
        .contains(
            &used
                .as_datetime()
                .format("%Y-%m-%d %H:%M:%S UTC")
                .to_string()
        ));
    assert!(list.contains(&key.id.to_string()), "the new key is listed");
    let res = b
        .post(
            &format!("/dashboard/test/developers/api_keys/{}/revoke", key.id),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(res.status(), 303);
    assert_eq!(app.get(secret, "/checkout/sessions").await.status(), 401);
}

#[tokio::test]
async fn another_merchants_ids_are_not_found_and_change_nothing() {
    let app = spawn_app().await;
    let mut a = signed_in(&app, app.a.id, "ops@a.example").await;
    let csrf = a.csrf("/dashboard/test").await;
    // B's key, endpoint and wallet.
    let b_key = app.store.keys(app.b.id).await.unwrap()[0].id;
    let ep: serde_json::Value = app
        .post(
            &app.b.test_key,
            "/webhook_endpoints",
            serde_json::json!({"url": "https://b.example/hook"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let b_endpoint = ep["id"].as_str().unwrap().to_owned();
    let b_wallet = app.verified_wallet(&app.b.test_key, &WALLET_KEY).await;
    let b_wallet_id = app
        .get(&app.b.test_key, "/wallets")
        .await
        .json::<serde_json::Value>()
        .await
        .unwrap()["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    for path in [
        format!("/dashboard/test/developers/webhooks/{b_endpoint}"),
        format!("/dashboard/live/developers/webhooks/{b_endpoint}"),
        "/dashboard/test/payments/pay_0000000000000000000000".to_owned(),
        "/dashboard/test/subscriptions/sub_nonsense".to_owned(),
    ] {
        assert_eq!(a.get(&path).await.status(), StatusCode::NOT_FOUND, "{path}");
    }
    for path in [
        format!("/dashboard/test/developers/api_keys/{b_key}/revoke"),
        format!("/dashboard/test/developers/webhooks/{b_endpoint}/delete"),
        format!("/dashboard/test/developers/webhooks/{b_endpoint}/rotate"),
        format!("/dashboard/test/developers/webhooks/{b_endpoint}/test"),
        format!("/dashboard/test/wallets/{b_wallet_id}/revoke"),
    ] {
        let res = a.post(&path, &[("csrf", &csrf)]).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{path}");
        let body = res.text().await.unwrap();
        assert!(
            !body.to_lowercase().contains("sql") && !body.contains("postgres"),
            "{body}"
        );
    }
    // A's own live key cannot be revoked from test mode.
    let a_live = app
        .store
        .keys(app.a.id)
        .await
        .unwrap()
        .into_iter()
        .find(|k| k.mode == stablepay_domain::Mode::Live)
        .unwrap()
        .id;
    let res = a
        .post(
            &format!("/dashboard/test/developers/api_keys/{a_live}/revoke"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        app.get(&app.a.live_key, "/checkout/sessions")
            .await
            .status(),
        200
    );
    // B's things still stand.
    assert_eq!(
        app.get(&app.b.test_key, "/checkout/sessions")
            .await
            .status(),
        200
    );
    let ep = app
        .get(&app.b.test_key, &format!("/webhook_endpoints/{b_endpoint}"))
        .await;
    assert_eq!(ep.status(), 200);
    let wallets: serde_json::Value = app
        .get(&app.b.test_key, "/wallets")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(wallets["data"][0]["status"], "verified", "{b_wallet}");
}

#[tokio::test]
async fn webhook_endpoints_from_the_dashboard_follow_the_api_rules() {
    let app = spawn_app().await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let csrf = b.csrf("/dashboard/test/developers/webhooks").await;
    let res = b
        .post(
            "/dashboard/test/developers/webhooks",
            &[
                ("csrf", &csrf),
                ("url", "https://merchant.example/hooks"),
                ("enabled_events", "payment.succeeded"),
                ("enabled_events", "payment.refunded"),
            ],
        )
        .await;
    let html = res.text().await.unwrap();
    assert!(html.contains("whsec_"), "the secret is shown once");
    let endpoints: serde_json::Value = app
        .get(&app.a.test_key, "/webhook_endpoints")
        .await
        .json()
        .await
        .unwrap();
    let ep = &endpoints["data"][0];
    assert_eq!(
        ep["enabled_events"],
        serde_json::json!(["payment.succeeded", "payment.refunded"])
    );
    let id = ep["id"].as_str().unwrap().to_owned();
    let page = format!("/dashboard/test/developers/webhooks/{id}");
    assert!(!b.text(&page).await.contains("whsec_"));

    // A test event outside the filter is refused with the API's message.
    let res = b
        .post(
            &format!("{page}/test"),
            &[("csrf", &csrf), ("type", "subscription.created")],
        )
        .await;
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("is not in this endpoint"));
    let res = b
        .post(
            &format!("{page}/test"),
            &[("csrf", &csrf), ("type", "payment.succeeded")],
        )
        .await;
    assert_eq!(res.status(), 303);
    let html = b.text(&page).await;
    let start = html.find("/developers/events/evt_").unwrap() + "/developers/events/".len();
    let event = html[start..start + 26].to_owned();
    // Still pending (no worker here): a resend is refused as in the API (409's rule).
    let res = b
        .post(
            &format!("/dashboard/test/developers/events/{event}/resend"),
            &[("csrf", &csrf)],
        )
        .await;
    assert!(res.text().await.unwrap().contains("still pending"));

    // Disable through the edit form: the API sees it.
    let res = b
        .post(
            &page,
            &[
                ("csrf", &csrf),
                ("url", "https://merchant.example/hooks2"),
                ("status", "disabled"),
            ],
        )
        .await;
    assert_eq!(res.status(), 303);
    let ep: serde_json::Value = app
        .get(&app.a.test_key, &format!("/webhook_endpoints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ep["status"], "disabled");
    assert_eq!(ep["url"], "https://merchant.example/hooks2");
    assert_eq!(
        ep["enabled_events"],
        serde_json::json!([]),
        "no box ticked: all events"
    );
}

#[tokio::test]
async fn a_payment_link_from_the_form_is_a_real_session_and_bad_input_is_named() {
    let app = spawn_app().await;
    let address = app.verified_wallet(&app.a.test_key, &WALLET_KEY).await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let csrf = b.csrf("/dashboard/test/checkout_sessions").await;
    let res = b
        .post(
            "/dashboard/test/checkout_sessions",
            &[
                ("csrf", &csrf),
                ("title", ""),
                ("amount", "12.1234567"),
                ("currency", "USDC"),
            ],
        )
        .await;
    let html = res.text().await.unwrap();
    assert!(
        html.contains("title:") && html.contains("amount:"),
        "both fields are named"
    );
    let res = b
        .post(
            "/dashboard/test/checkout_sessions",
            &[
                ("csrf", &csrf),
                ("title", "Espresso beans"),
                ("amount", "24.9"),
                ("currency", "USDC"),
                ("recipient", &address),
                ("customer_reference", "cust_42"),
            ],
        )
        .await;
    let html = res.text().await.unwrap();
    assert!(
        html.contains("https://pay.example/pay/cs_"),
        "the hosted URL to copy"
    );
    assert!(html.contains("24.90 USDC"), "money reads like money");
    let list: serde_json::Value = app
        .get(&app.a.test_key, "/checkout/sessions")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["data"][0]["title"], "Espresso beans");
    assert_eq!(list["data"][0]["amount"], "24.9");
    assert_eq!(list["data"][0]["customer_reference"], "cust_42");
    assert_eq!(list["data"][0]["livemode"], false);
}

#[tokio::test]
async fn a_second_factor_once_enrolled_is_required_at_sign_in() {
    use stablepay_domain::rules::totp;
    let app = spawn_app().await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let csrf = b.csrf("/dashboard/test/security").await;
    let res = b
        .post("/dashboard/test/security/totp", &[("csrf", &csrf)])
        .await;
    let html = res.text().await.unwrap();
    let secret_hex = hidden(&html, "secret");
    let secret = hex::decode(&secret_hex).unwrap();
    assert!(
        html.contains(&totp::base32(&secret)),
        "the secret is shown for the app"
    );
    let now = chrono::Utc::now().timestamp();
    let wrong = format!("{:06}", (totp::code_at(&secret, now) + 1) % 1_000_000);
    let res = b
        .post(
            "/dashboard/test/security/totp/confirm",
            &[("csrf", &csrf), ("secret", &secret_hex), ("code", &wrong)],
        )
        .await;
    assert!(res.text().await.unwrap().contains("does not match"));
    let code = format!("{:06}", totp::code_at(&secret, now));
    let res = b
        .post(
            "/dashboard/test/security/totp/confirm",
            &[("csrf", &csrf), ("secret", &secret_hex), ("code", &code)],
        )
        .await;
    assert_eq!(res.status(), 303);
    // Stored encrypted, not as the raw secret.
    let users = app.store.users(Some(app.a.id)).await.unwrap();
    assert!(users[0].totp_enabled);

    let mut fresh = Browser::new(&app);
    let res = sign_in(&mut fresh, "ops@a.example", PASSWORD).await;
    assert_eq!(res.status(), 401);
    assert!(res.text().await.unwrap().contains("authenticator"));
    let csrf = fresh.csrf("/dashboard/login").await;
    let code = format!(
        "{:06}",
        totp::code_at(&secret, chrono::Utc::now().timestamp())
    );
    let res = fresh
        .post(
            "/dashboard/login",
            &[
                ("csrf", &csrf),
                ("email", "ops@a.example"),
                ("password", PASSWORD),
                ("code", &code),
            ],
        )
        .await;
    assert_eq!(res.status(), 303);
    assert!(fresh.cookies.contains_key("__Host-stablepay_session"));
    // The same code a second time (replayed) is refused.
    let mut replay = Browser::new(&app);
    let csrf2 = replay.csrf("/dashboard/login").await;
    let res = replay
        .post(
            "/dashboard/login",
            &[
                ("csrf", &csrf2),
                ("email", "ops@a.example"),
                ("password", PASSWORD),
                ("code", &code),
            ],
        )
        .await;
    assert_eq!(res.status(), 401, "a TOTP code is single-use");

    // Turning it off takes a current code too.
    let csrf = fresh.csrf("/dashboard/test/security").await;
    let res = fresh
        .post(
            "/dashboard/test/security/totp/confirm",
            &[("csrf", &csrf), ("disable", "1"), ("code", &wrong)],
        )
        .await;
    assert!(res.text().await.unwrap().contains("does not match"));
    assert!(app.store.users(Some(app.a.id)).await.unwrap()[0].totp_enabled);
    let code = format!(
        "{:06}",
        totp::code_at(&secret, chrono::Utc::now().timestamp())
    );
    let res = fresh
        .post(
            "/dashboard/test/security/totp/confirm",
            &[("csrf", &csrf), ("disable", "1"), ("code", &code)],
        )
        .await;
    assert_eq!(res.status(), 303);
    assert!(!app.store.users(Some(app.a.id)).await.unwrap()[0].totp_enabled);
}

#[tokio::test]
async fn sign_in_posts_are_throttled_per_client_ip() {
    let app = spawn_app().await;
    let mut b = Browser::new(&app);
    let mut statuses = Vec::new();
    for i in 0..21 {
        let res = sign_in(&mut b, &format!("nobody{i}@a.example"), PASSWORD).await;
        statuses.push(res.status().as_u16());
    }
    assert!(statuses[..20].iter().all(|s| *s == 401), "{statuses:?}");
    assert_eq!(statuses[20], 429);
}

#[tokio::test]
async fn pages_of_the_other_mode_show_only_that_modes_data() {
    let app = spawn_app().await;
    let address = app.verified_wallet(&app.a.test_key, &WALLET_KEY).await;
    let s = app
        .create_session(
            &app.a.test_key,
            serde_json::json!({"mode": "payment", "title": "Test-mode only", "amount": "5", "recipient": address}),
        )
        .await;
    let id = s["id"].as_str().unwrap();
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    assert!(b
        .text("/dashboard/test/checkout_sessions")
        .await
        .contains(id));
    assert!(!b
        .text("/dashboard/live/checkout_sessions")
        .await
        .contains(id));
    // Merchant B's user sees none of A's.
    let mut other = signed_in(&app, app.b.id, "ops@b.example").await;
    assert!(!other
        .text("/dashboard/test/checkout_sessions")
        .await
        .contains(id));
}
