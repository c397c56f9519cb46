use std::sync::Arc;

use stablepay_domain::ports::{
    ApiKeyStore, ChainReader, Clock, IdempotencyStore, Outbox, RecoveryQueue, RefundStore,
    RequestScope, ResourceReader, SessionRepository, SettlementStore, SubscriptionStore,
    WalletRepository, WebhookEndpointRepository,
};
use stablepay_domain::services::{ChainDirectory, TokenDirectory};
use stablepay_domain::PrivateKey;

use crate::rate_limit::KeyRateLimiter;

/// What every handler can reach: ports as trait objects, plus deployment settings.
pub struct AppState {
    /// Groups a request's storage calls on one connection (and one transaction).
    pub scope: Arc<dyn RequestScope>,
    pub keys: Arc<dyn ApiKeyStore>,
    pub sessions: Arc<dyn SessionRepository>,
    pub wallets: Arc<dyn WalletRepository>,
    pub endpoints: Arc<dyn WebhookEndpointRepository>,
    pub reader: Arc<dyn ResourceReader>,
    pub idempotency: Arc<dyn IdempotencyStore>,
    pub outbox: Arc<dyn Outbox>,
    /// Recoveries continued by the worker past the first batch.
    pub recoveries: Arc<dyn RecoveryQueue>,
    pub chain: Arc<dyn ChainReader>,
    pub settlement: Arc<dyn SettlementStore>,
    pub deposits: Arc<dyn stablepay_domain::ports::DepositStore>,
    pub refunds: Arc<dyn RefundStore>,
    pub subscriptions: Arc<dyn SubscriptionStore>,
    /// `STABLEPAY_PLAN_MIN_INTERVAL` in seconds (D19).
    pub plan_min_interval_secs: u64,
    pub chains: ChainDirectory,
    /// Signs EIP-712 payment intents for the hosted page; never logged.
    pub operator_key: Option<PrivateKey>,
    /// Sends one-signature payments (D23); `None` without a relayer key.
    pub relayer: Option<Arc<dyn stablepay_domain::ports::PaymentRelayer>>,
    /// Lifetime of a signed payment intent (D18).
    pub intent_ttl_secs: u64,
    /// Per-client-IP limiter for the public hosted-page endpoints (D15).
    pub public_rate_limiter: Arc<stablepay_web::IpRateLimiter>,
    pub clock: Arc<dyn Clock>,
    pub tokens: TokenDirectory,
    pub public_url: String,
    pub rate_limiter: KeyRateLimiter,
    /// Failed authentications per client address (429 past the budget).
    pub auth_failures: crate::auth_failures::AuthFailureLimiter,
    /// Where each key belongs, to pipeline a read with its authentication.
    pub auth_guesses: crate::auth_guess::AuthGuesses,
    /// Readiness probe (None: always ready).
    pub ping: Option<stablepay_postgres::Readiness>,
}
