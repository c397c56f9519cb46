use std::sync::Arc;

use stablepay_domain::deployment::{ChainDirectory, TokenDirectory};
use stablepay_domain::ports::{ChainReader, Clock, Storage};
use stablepay_domain::PrivateKey;
use stablepay_request_store::RequestStore;

use crate::request::auth_failures::AuthFailureLimiter;
use crate::request::auth_guess::AuthGuesses;
use crate::request::rate_limit::KeyRateLimiter;

/// What every handler can reach: the store, the chain and deployment settings, shared
/// by every HTTP worker of the process.
pub struct AppState {
    /// The store of the `n`th HTTP worker (`HttpWorkerStore`). There is no other: an
    /// authenticated handler reaches storage only through what its policy opened
    /// (`WriteCall::ports`, `ReadCall::reads`); a public one through its worker's store.
    pub store_for_worker: Arc<dyn Fn(usize) -> Arc<dyn RequestStore> + Send + Sync>,
    pub chain: Arc<dyn ChainReader>,
    /// `STABLEPAY_PLAN_MIN_INTERVAL` in seconds (D19).
    pub plan_min_interval_secs: u64,
    pub chains: ChainDirectory,
    /// The price feeds that quote prices in a currency (D34).
    pub price_feeds: stablepay_domain::deployment::PriceFeeds,
    /// Signs EIP-712 payment intents for the hosted page; never logged.
    pub operator_key: Option<PrivateKey>,
    /// Sends one-signature payments (D23); `None` without a relayer key.
    pub relayer: Option<Arc<dyn stablepay_domain::ports::PaymentRelayer>>,
    /// Sanctions screening of payers (D33).
    pub screening: stablepay_domain::services::PayerScreening,
    /// Lifetime of a signed payment intent (D18).
    pub intent_ttl_secs: u64,
    /// Per-client-IP limiter for the public hosted-page endpoints (D15).
    pub public_rate_limiter: Arc<stablepay_limits::IpRateLimiter>,
    pub clock: Arc<dyn Clock>,
    pub tokens: TokenDirectory,
    pub public_url: String,
    pub rate_limiter: KeyRateLimiter,
    /// Failed authentications per client address (429 past the budget).
    pub auth_failures: AuthFailureLimiter,
    /// Where each key belongs, to check it inside a read instead of beside it.
    pub auth_guesses: AuthGuesses,
    /// Readiness probe (None: always ready).
    pub ping: Option<stablepay_postgres::Readiness>,
}

impl AppState {
    /// What a session create reads before anything is written: the chain and where its
    /// contracts, tokens and price feeds are.
    pub fn prepare_session_deps(&self) -> stablepay_domain::services::PrepareSessionDeps<'_> {
        stablepay_domain::services::PrepareSessionDeps {
            tokens: &self.tokens,
            chain: self.chain.as_ref(),
            chains: &self.chains,
            feeds: &self.price_feeds,
            clock: self.clock.as_ref(),
        }
    }

    /// What a session create writes through: `store`'s ports.
    pub fn create_session_deps<'a>(
        &'a self,
        store: &'a dyn stablepay_domain::ports::Storage,
    ) -> stablepay_domain::services::CreateSessionDeps<'a> {
        stablepay_domain::services::CreateSessionDeps {
            sessions: store.sessions(),
            wallets: store.wallets(),
            clock: self.clock.as_ref(),
            tokens: &self.tokens,
            chains: &self.chains,
            subscriptions: store.subscriptions(),
            plan_min_interval_secs: self.plan_min_interval_secs,
        }
    }
}

/// The store of one HTTP worker thread (not the worker process), which opens the storage
/// of the requests that thread serves (its concurrent one-resource reads share a
/// connection; its connections come from its own sub-pool first).
pub struct HttpWorkerStore(pub Arc<dyn RequestStore>);

impl HttpWorkerStore {
    /// Every port, each call on its own (the public hosted and portal routes).
    pub fn storage(&self) -> &dyn Storage {
        self.0.as_ref()
    }
}
