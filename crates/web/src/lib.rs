//! stablepay's HTML surfaces, composed into the `stablepay-api` binary beside the JSON
//! API: the hosted checkout page (`/pay/:id`), the customer portal page
//! (`/portal/subscriptions/:id`) and the merchant dashboard under
//! `/dashboard` (D21). Pages parse their input, call
//! one domain use case, and render an askama template; no business rule lives here.

mod assets;
mod checkout;
mod form;
mod format;
mod link_page;
mod pages;
mod passwords;
mod portal;
mod refund_page;
mod shell;

use std::sync::Arc;

use actix_web::web;
use stablepay_domain::deployment::{ChainDirectory, TokenDirectory};
use stablepay_domain::ports::{ChainReader, Clock, PasswordChecker, Storage};
use stablepay_domain::rules::dashboard_auth::SessionPolicy;

pub use passwords::ArgonPasswords;
use stablepay_limits::{AccountRateLimiter, ClientWindowLimiter, IpRateLimiter};

/// What the dashboard pages reach: the same ports the JSON API uses.
pub struct WebState {
    /// Every storage port: the same store the API's `AppState` holds.
    pub store: Arc<dyn Storage>,
    pub chain: Arc<dyn ChainReader>,
    pub clock: Arc<dyn Clock>,
    pub tokens: TokenDirectory,
    /// The price feeds that quote prices in a currency (D34).
    pub price_feeds: stablepay_domain::deployment::PriceFeeds,
    pub chains: ChainDirectory,
    /// `STABLEPAY_PLAN_MIN_INTERVAL` in seconds (D19).
    pub plan_min_interval_secs: u64,
    /// Where hosted URLs point (`STABLEPAY_PUBLIC_URL`).
    pub public_url: String,
    pub policy: SessionPolicy,
    /// The per-IP limit of the public pages, shared with the API's hosted endpoints.
    pub public_limiter: Arc<IpRateLimiter>,
    /// Sign-in attempts per client IP, on the same clock as `clock`.
    pub login_limiter: ClientWindowLimiter,
    /// Sign-in attempts per account, whatever the address.
    pub account_limiter: AccountRateLimiter,
    /// Sends one-signature payments (`STABLEPAY_RELAYER_KEY`); the hosted page offers them
    /// while it is above its balance floor.
    pub relayer: Option<Arc<dyn stablepay_domain::ports::PaymentRelayer>>,
    /// argon2id checks, off the request threads (sign-in, enrolling a second factor).
    pub passwords: Arc<dyn PasswordChecker>,
    /// Who decides which modes screen payers (D33); `None`: the operator alone, or no
    /// screening configured.
    pub screening: Option<stablepay_domain::rules::screening::ScreeningPolicy>,
}

impl WebState {
    /// What a session create reads before anything is written (the API's `AppState` has
    /// the same).
    pub fn prepare_session_deps(&self) -> stablepay_domain::services::PrepareSessionDeps<'_> {
        stablepay_domain::services::PrepareSessionDeps {
            tokens: &self.tokens,
            chain: self.chain.as_ref(),
            chains: &self.chains,
            feeds: &self.price_feeds,
            clock: self.clock.as_ref(),
        }
    }

    /// What a session create writes through: the store's ports, each call on its own.
    pub fn create_session_deps(&self) -> stablepay_domain::services::CreateSessionDeps<'_> {
        stablepay_domain::services::CreateSessionDeps {
            sessions: self.store.sessions(),
            wallets: self.store.wallets(),
            clock: self.clock.as_ref(),
            tokens: &self.tokens,
            chains: &self.chains,
            subscriptions: self.store.subscriptions(),
            plan_min_interval_secs: self.plan_min_interval_secs,
        }
    }
}

pub use checkout::page as checkout_page;
pub use link_page::page as link_page;
pub use portal::page as portal_page;
pub use refund_page::page as refund_page;
pub use shell::{csv_attachment, redirect};

/// Registers every `/dashboard` route and `/assets/*`; the API's route table mounts
/// [`checkout_page`] and [`portal_page`] beside their JSON endpoints.
pub fn configure(cfg: &mut web::ServiceConfig) {
    pages::configure(cfg);
}
