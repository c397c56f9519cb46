use super::*;

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
async fn a_second_factor_once_enrolled_is_required_at_sign_in() {
    use stablepay_domain::ports::Clock;
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
    // Codes follow the api's clock, which the test moves a time step at a time.
    let code_now = || {
        format!(
            "{:06}",
            totp::code_at(&secret, app.clock.now().unix_seconds())
        )
    };
    let next_step = || app.clock.advance(std::time::Duration::from_secs(30));
    let code = code_now();
    let wrong = format!("{:06}", (code.parse::<u32>().unwrap() + 1) % 1_000_000);
    let confirm = "/dashboard/test/security/totp/confirm";
    let res = b
        .post(
            confirm,
            &[
                ("csrf", &csrf),
                ("secret", &secret_hex),
                ("code", &wrong),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert!(res.text().await.unwrap().contains("does not match"));
    // A stolen session without the password cannot enrol its own secret.
    for password in ["", "not the password"] {
        let res = b
            .post(
                confirm,
                &[
                    ("csrf", &csrf),
                    ("secret", &secret_hex),
                    ("code", &code),
                    ("password", password),
                ],
            )
            .await;
        assert!(res.text().await.unwrap().contains("current password"));
    }
    assert!(!app.store.users(Some(app.a.id)).await.unwrap()[0].totp_enabled);
    let res = b
        .post(
            confirm,
            &[
                ("csrf", &csrf),
                ("secret", &secret_hex),
                ("code", &code),
                ("password", PASSWORD),
            ],
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
    // The code that enrolled is used up; the next step's code signs in.
    let with_code = |code: String| {
        let app = &app;
        async move {
            let mut browser = Browser::new(app);
            let csrf = browser.csrf("/dashboard/login").await;
            let res = browser
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
            (res.status().as_u16(), browser)
        }
    };
    assert_eq!(
        with_code(code.clone()).await.0,
        401,
        "the enrolling code is used up"
    );
    next_step();
    let code = code_now();
    let (status, mut fresh) = with_code(code.clone()).await;
    assert_eq!(status, 303);
    assert!(fresh.cookies.contains_key("__Host-stablepay_session"));
    // The same code a second time (replayed) is refused.
    assert_eq!(
        with_code(code.clone()).await.0,
        401,
        "a TOTP code is single-use"
    );

    // Turning it off takes a current code too, one not used already; its step is then used.
    let csrf = fresh.csrf("/dashboard/test/security").await;
    let wrong = format!("{:06}", (code.parse::<u32>().unwrap() + 1) % 1_000_000);
    let text = disable_totp(&mut fresh, &csrf, &wrong).await.1;
    assert!(text.contains("does not match"), "{text}");
    let text = disable_totp(&mut fresh, &csrf, &code).await.1;
    assert!(text.contains("already used"), "{text}");
    assert!(app.store.users(Some(app.a.id)).await.unwrap()[0].totp_enabled);
    next_step();
    assert_eq!(disable_totp(&mut fresh, &csrf, &code_now()).await.0, 303);
    assert!(!app.store.users(Some(app.a.id)).await.unwrap()[0].totp_enabled);
}

async fn disable_totp(b: &mut Browser, csrf: &str, code: &str) -> (u16, String) {
    let res = b
        .post(
            "/dashboard/test/security/totp/confirm",
            &[("csrf", csrf), ("disable", "1"), ("code", code)],
        )
        .await;
    (res.status().as_u16(), res.text().await.unwrap())
}

/// The limit counts in windows of the api's clock, which the test stops: however slowly
/// the machine serves the 21 posts, they fall in one window, and only `advance` opens
/// the next.
#[tokio::test]
async fn sign_in_posts_are_throttled_per_client_ip() {
    use stablepay_domain::ports::Clock;
    let app = spawn_app().await;
    app.clock.freeze();
    // To the start of a window, so the wait it answers is a whole window.
    let into_window = app.clock.now().unix_seconds().rem_euclid(60);
    app.clock
        .advance(std::time::Duration::from_secs((60 - into_window) as u64));
    let mut b = Browser::new(&app);
    let mut answers = Vec::new();
    for i in 0..21 {
        let res = sign_in(&mut b, &format!("nobody{i}@a.example"), PASSWORD).await;
        let retry_after = res.headers().get("retry-after").cloned();
        answers.push((res.status().as_u16(), retry_after));
    }
    assert!(answers[..20].iter().all(|a| a.0 == 401), "{answers:?}");
    assert_eq!(answers[20].0, 429);
    assert_eq!(answers[20].1.as_ref().unwrap(), "60", "the whole window");
    app.clock.advance(std::time::Duration::from_secs(59));
    let res = sign_in(&mut b, "nobody21@a.example", PASSWORD).await;
    assert_eq!(res.status(), 429, "the window's last second");
    assert_eq!(res.headers()["retry-after"], "1");
    app.clock.advance(std::time::Duration::from_secs(1));
    let res = sign_in(&mut b, "nobody22@a.example", PASSWORD).await;
    assert_eq!(res.status(), 401, "a new window");
}
