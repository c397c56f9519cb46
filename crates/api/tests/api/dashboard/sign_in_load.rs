//! Sign-in under concurrency and load: guesses that arrive together are reserved one by
//! one before any is checked, and argon2id never runs on the threads serving the API.

use std::sync::Arc;
use std::time::Duration;

use secrecy::SecretString;
use stablepay_domain::rules::dashboard_auth::SessionPolicy;
use stablepay_domain::services::{sign_in as sign_in_use_case, SignInDeps, SignInError};
use stablepay_limits::TrustedProxies;
use stablepay_web::ArgonPasswords;

use super::*;
use crate::support::spawn_app_with_limits;

fn secret(s: &str) -> SecretString {
    SecretString::from(s.to_owned())
}

/// 20 wrong guesses at once against one account (real PostgreSQL, the real argon2id
/// adapter): at most `max_failures` of them are checked against the account's hash; the
/// right password is then refused until the lock ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_wrong_guesses_check_at_most_five_passwords() {
    let app = spawn_app().await;
    user(&app, app.a.id, "ops@a.example").await;
    let passwords = Arc::new(ArgonPasswords::new(2));
    let policy = SessionPolicy::default();
    let attempt = |password: &'static str| {
        let (store, clock, passwords) = (app.store.clone(), app.clock.clone(), passwords.clone());
        tokio::spawn(async move {
            let deps = SignInDeps {
                policy: &policy,
                users: &store,
                passwords: passwords.as_ref(),
                clock: clock.as_ref(),
            };
            sign_in_use_case("ops@a.example", &secret(password), None, &deps).await
        })
    };
    let guesses: Vec<_> = (0..20).map(|_| attempt("not the password")).collect();
    for guess in guesses {
        let result = guess.await.unwrap();
        assert!(
            matches!(result, Err(SignInError::InvalidCredentials)),
            "{result:?}"
        );
    }
    assert_eq!(
        passwords.account_checks(),
        5,
        "exactly max_failures guesses were checked against the account's hash"
    );
    let right = attempt(PASSWORD).await.unwrap();
    assert!(
        matches!(right, Err(SignInError::InvalidCredentials)),
        "locked"
    );
    assert_eq!(
        passwords.account_checks(),
        5,
        "a locked account checks nothing of its own"
    );
    app.clock
        .advance(Duration::from_secs(policy.lock_secs as u64 + 1));
    attempt(PASSWORD).await.unwrap().expect("the lock ended");
    assert_eq!(passwords.account_checks(), 6);
}

/// Loopback is the proxy, so each request can name its own client address.
async fn spawn_behind_proxy() -> TestApp {
    spawn_app_with_limits(stablepay_api::Limits {
        per_key_per_min: 10_000,
        trusted_proxies: TrustedProxies::parse("127.0.0.1/32").unwrap(),
    })
    .await
}

async fn sign_in_from(app: &TestApp, client: usize, email: &str, password: &str) -> u16 {
    let mut b = Browser::new(app);
    let csrf = b.csrf("/dashboard/login").await;
    b.post_from(
        &format!("10.9.{}.{}", client / 250, client % 250 + 1),
        "/dashboard/login",
        &[("csrf", &csrf), ("email", email), ("password", password)],
    )
    .await
    .status()
    .as_u16()
}

/// Over HTTP, from 20 addresses at once: the per-account limit answers 429 past its
/// budget, the rest are wrong-password answers, and the account is locked after them.
/// The api's clock is stopped, so the 20 fall in one window of the limit however slowly
/// they are served.
#[tokio::test]
async fn a_distributed_guess_locks_the_account_and_is_limited_per_account() {
    let app = spawn_behind_proxy().await;
    user(&app, app.a.id, "ops@a.example").await;
    app.clock.freeze();
    let statuses = futures_util::future::join_all(
        (0..20).map(|i| sign_in_from(&app, i, "OPS@a.example", "not the password")),
    )
    .await;
    let limited = statuses.iter().filter(|s| **s == 429).count();
    let refused = statuses.iter().filter(|s| **s == 401).count();
    assert_eq!((limited, refused), (10, 10), "{statuses:?}");
    // A new minute for the per-account limit; the lock (15 minutes) still holds.
    app.clock.advance(Duration::from_secs(61));
    assert_eq!(
        sign_in_from(&app, 100, "ops@a.example", PASSWORD).await,
        401
    );
    app.clock.advance(Duration::from_secs(15 * 60));
    assert_eq!(
        sign_in_from(&app, 101, "ops@a.example", PASSWORD).await,
        303
    );
}

/// While 50 sign-ins run (each an argon2id check, off the request threads), reads of a
/// checkout session keep being answered, and every sign-in gets its answer. How fast the
/// reads stay is a bar, measured by `cargo xtask bench sign-in` (p99 < 50 ms), never here.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_ins_do_not_stall_api_reads() {
    let app = spawn_behind_proxy().await;
    let key = app.a.test_key.clone();
    app.verified_wallet(&key, &WALLET_KEY).await;
    let session = app
        .create_session(
            &key,
            serde_json::json!({ "mode": "payment", "title": "T", "amount": "1" }),
        )
        .await;
    let path = format!("/checkout/sessions/{}", session["id"].as_str().unwrap());
    assert_eq!(app.get(&key, &path).await.status(), 200);
    let app = Arc::new(app);
    let sign_ins: Vec<_> = (0..50)
        .map(|i| {
            let app = app.clone();
            tokio::spawn(async move {
                sign_in_from(&app, i, &format!("nobody{i}@a.example"), "a guess").await
            })
        })
        .collect();
    let mut reads = 0;
    while sign_ins.iter().any(|s| !s.is_finished()) || reads == 0 {
        assert_eq!(app.get(&key, &path).await.status(), 200);
        reads += 1;
    }
    for s in sign_ins {
        assert_eq!(s.await.unwrap(), 401);
    }
}
