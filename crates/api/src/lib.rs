//! stablepay's REST API: actix-web routes over the domain's use cases.

pub mod app;
pub mod config;
pub mod contracts;
pub mod doctor;
pub mod error;
pub mod input;
pub mod openapi;
pub mod operator;
pub mod request;
pub mod routes;
pub mod state;

use std::sync::Arc;

use actix_web::web::Data;
use stablepay_domain::deployment::{ChainDirectory, TokenDirectory};
use stablepay_domain::ports::{ChainReader, Clock};
use stablepay_domain::PrivateKey;
use stablepay_postgres::PgStore;

use stablepay_domain::rules::dashboard_auth::SessionPolicy;
use stablepay_limits::{AccountRateLimiter, ClientWindowLimiter, IpRateLimiter, TrustedProxies};
use stablepay_web::{ArgonPasswords, WebState};

use crate::request::auth_failures::{AuthFailureLimiter, AUTH_FAILURES_PER_MIN};
use crate::request::rate_limit::KeyRateLimiter;
use crate::state::AppState;

/// Chain-facing settings of the api.
pub struct ChainSettings {
    pub reader: Arc<dyn ChainReader>,
    pub contracts: ChainDirectory,
    pub operator_key: Option<PrivateKey>,
    /// Lifetime of a signed payment intent (D18).
    pub intent_ttl_secs: u64,
    /// `STABLEPAY_PLAN_MIN_INTERVAL` in seconds (D19).
    pub plan_min_interval_secs: u64,
    /// Sends one-signature payments (D23); `None` without `STABLEPAY_RELAYER_KEY`.
    pub relayer: Option<Arc<dyn stablepay_domain::ports::PaymentRelayer>>,
    /// The sanctions sources payers are screened against, and in which modes (D33).
    pub screening: stablepay_domain::services::PayerScreening,
    /// The price feeds that quote prices in a currency, and how (D34).
    pub price_feeds: stablepay_domain::deployment::PriceFeeds,
}

/// The request limits: per API key, and per client of the public pages and sign-in.
#[derive(Debug, Clone)]
pub struct Limits {
    /// `STABLEPAY_RATE_LIMIT_PER_MIN`: per key, across processes; the public pages allow
    /// five times as much per client.
    pub per_key_per_min: u32,
    /// `STABLEPAY_TRUSTED_PROXIES`: who may name the client in `X-Forwarded-For`.
    pub trusted_proxies: TrustedProxies,
}

/// Wires the PostgreSQL store into every port; `clock` is the time every use case and
/// page reads (the system clock in production, an adjustable one in tests).
pub fn state_from_store(
    store: PgStore,
    chain: ChainSettings,
    tokens: TokenDirectory,
    public_url: String,
    limits: Limits,
    dashboard: SessionPolicy,
    clock: Arc<dyn Clock>,
) -> (Data<AppState>, Data<WebState>) {
    let store = Arc::new(store);
    let ping = store.readiness();
    let rate_limit_per_min = limits.per_key_per_min;
    let public_limiter = Arc::new(IpRateLimiter::new(
        rate_limit_per_min.saturating_mul(5),
        limits.trusted_proxies.clone(),
    ));
    let web = Data::new(WebState {
        public_limiter: public_limiter.clone(),
        store: store.clone(),
        chain: chain.reader.clone(),
        clock: clock.clone(),
        tokens: tokens.clone(),
        chains: chain.contracts.clone(),
        price_feeds: chain.price_feeds.clone(),
        plan_min_interval_secs: chain.plan_min_interval_secs,
        public_url: public_url.clone(),
        policy: dashboard,
        // Sign-in attempts per client IP and per account (D21), beside the lockout.
        login_limiter: ClientWindowLimiter::new(
            LOGIN_ATTEMPTS_PER_MIN,
            limits.trusted_proxies.clone(),
            clock.clone(),
        ),
        account_limiter: AccountRateLimiter::new(LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MIN),
        passwords: Arc::new(ArgonPasswords::for_this_machine()),
        relayer: chain.relayer.clone(),
        // The dashboard offers a choice only where a source is configured.
        screening: chain
            .screening
            .policy()
            .filter(|_| chain.screening.source_count() > 0),
    });
    let for_worker = store.clone();
    let api = Data::new(AppState {
        store_for_worker: Arc::new(move |n| Arc::new(for_worker.for_worker(n))),
        plan_min_interval_secs: chain.plan_min_interval_secs,
        chain: chain.reader,
        chains: chain.contracts,
        price_feeds: chain.price_feeds,
        operator_key: chain.operator_key,
        relayer: chain.relayer,
        screening: chain.screening,
        intent_ttl_secs: chain.intent_ttl_secs,
        public_rate_limiter: public_limiter,
        clock,
        tokens,
        public_url,
        rate_limiter: KeyRateLimiter::new(rate_limit_per_min),
        auth_guesses: Default::default(),
        auth_failures: AuthFailureLimiter::new(AUTH_FAILURES_PER_MIN, limits.trusted_proxies),
        ping: Some(ping),
    });
    (api, web)
}

/// Sign-in form posts per client IP per minute.
const LOGIN_ATTEMPTS_PER_MIN: u32 = 20;
/// Sign-in form posts per account (by email, known or not) per minute, from anywhere.
const LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MIN: u32 = 10;
