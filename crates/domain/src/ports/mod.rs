//! Ports: what the domain needs from the outside world. Adapters implement them
//! (`stablepay-postgres`, `stablepay-evm`, ...); unit tests use the mockall mocks
//! generated behind the `mocks` feature.
//!
//! Ports are coarse: one method writes one consistent change atomically, so no
//! transaction object ever crosses a port (an API request's atomic write may group its
//! calls into one transaction without any port seeing it: `stablepay-request-store`).

mod account;
mod auth;
mod chain;
mod clock;
mod dashboard;
mod delivery;
mod deposits;
mod idempotency;
mod keeper;
mod merchant_admin;
mod payment_links;
mod payment_reviews;
mod reader;
mod reconcile;
mod recoveries;
mod refund_requests;
mod refunds;
mod relayer;
mod retention;
mod screening;
mod sending;
mod sessions;
mod settlement;
mod storage;
mod subscriptions;
mod wallets;
mod webhook_endpoints;

pub use account::*;
pub use auth::*;
pub use chain::*;
pub use clock::*;
pub use dashboard::*;
pub use delivery::*;
pub use deposits::*;
pub use idempotency::*;
pub use keeper::*;
pub use merchant_admin::*;
pub use payment_links::*;
pub use payment_reviews::*;
pub use reader::*;
pub use reconcile::*;
pub use recoveries::*;
pub use refund_requests::*;
pub use refunds::*;
pub use relayer::*;
pub use retention::*;
pub use screening::*;
pub use sending::*;
pub use sessions::*;
pub use settlement::*;
pub use storage::*;
pub use subscriptions::*;
pub use wallets::*;
pub use webhook_endpoints::*;

/// Errors every storage port may return.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The row does not exist for this merchant and mode.
    #[error("not found")]
    NotFound,
    /// A write kept losing to concurrent writers of the same rows and was given up on
    /// (the caller maps this to 503 with a short `Retry-After`). Business outcomes such as
    /// "already used" or "still pending" are never errors: ports return them typed.
    #[error("the rows kept changing under concurrent writers")]
    Contended,
    /// The database could not be reached in time (the caller maps this to 503/500).
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// Anything else; the message is for logs only, never for clients.
    #[error("storage failure: {0}")]
    Internal(String),
}
