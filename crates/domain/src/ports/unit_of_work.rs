//! The storage of one API request, as one value: the ports it works through, what the
//! route said it does with them, its transaction when it needs one, and the check that
//! the request's API key still stands.

use futures_util::future::LocalBoxFuture;

use super::{
    ApiKeyManager, ApiKeyStore, DashboardReader, DashboardUserStore, DepositStore,
    IdempotencyStore, Outbox, RecoveryQueue, RefundStore, ResourceReader, SessionRepository,
    SettlementStore, StoreError, SubscriptionStore, WalletRepository, WebhookEndpointRepository,
};
use crate::model::AuthContext;

/// What a route does with storage, declared where the route is registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Short reads of one resource, served together with other requests' concurrent
    /// reads; never a transaction.
    Read,
    /// Reads (a page of rows), served on their own; never a transaction.
    List,
    /// Writes, each port call one consistent change of its own.
    Write,
    /// Writes that commit together, with the request's idempotency record, or not at all
    /// (`UnitOfWork::begin` / `finish`).
    AtomicWrite,
}

/// An API key's claim to stand for a merchant and mode, as this process last saw it.
/// A unit opened with one makes its reads of that merchant and mode on condition that
/// the key still stands so, in the same statement (`UnitOfWork::claim_held`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyClaim {
    pub key_sha256: [u8; 32],
    pub claimed: AuthContext,
}

/// Every storage port, from one store.
pub trait Storage: Send + Sync {
    fn keys(&self) -> &dyn ApiKeyStore;
    fn key_manager(&self) -> &dyn ApiKeyManager;
    fn users(&self) -> &dyn DashboardUserStore;
    fn summaries(&self) -> &dyn DashboardReader;
    fn sessions(&self) -> &dyn SessionRepository;
    fn wallets(&self) -> &dyn WalletRepository;
    fn endpoints(&self) -> &dyn WebhookEndpointRepository;
    fn reader(&self) -> &dyn ResourceReader;
    fn idempotency(&self) -> &dyn IdempotencyStore;
    fn outbox(&self) -> &dyn Outbox;
    fn recoveries(&self) -> &dyn RecoveryQueue;
    fn settlement(&self) -> &dyn SettlementStore;
    fn deposits(&self) -> &dyn DepositStore;
    fn refunds(&self) -> &dyn RefundStore;
    fn subscriptions(&self) -> &dyn SubscriptionStore;
}

/// Hands each API request its unit of work; as `Storage`, every call stands alone.
pub trait UnitsOfWork: Storage {
    /// The storage of one request that does `access`, checking `claim` with its reads.
    /// Errors: `Unavailable` when the store cannot serve the request in time.
    fn open(
        &self,
        access: Access,
        claim: Option<KeyClaim>,
    ) -> LocalBoxFuture<'_, Result<Box<dyn UnitOfWork>, StoreError>>;
}

/// The storage of one request. Dropped without `finish`, whatever it began is undone.
pub trait UnitOfWork: Send + Sync {
    /// The ports, bound to this unit.
    fn ports(&self) -> &dyn Storage;

    /// Whether a read made by this unit found its row with the key standing as claimed
    /// (keys are only ever revoked, so it stood for the whole request); records the key's
    /// use when so. `false` without a claim, and after a read that found nothing.
    fn claim_held(&self) -> bool;

    /// Begins the unit's transaction (`Access::AtomicWrite` only): every later call
    /// through `ports` is inside it until `finish`. Returns the future that starts it at
    /// the database, to be run beside the first statements, which then travel with it.
    /// Errors: `Internal` for another access, a second begin, or a unit whose calls are
    /// still running; nothing was begun. The future: `Unavailable` when the transaction
    /// could not start (`finish` still ends the unit).
    fn begin(&self) -> Result<LocalBoxFuture<'_, Result<(), StoreError>>, StoreError>;

    /// Ends the transaction: committed when `commit`, else rolled back; nothing for a
    /// unit that began none.
    /// Errors: `Unavailable` when the commit failed: the work must not be reported done.
    fn finish(&self, commit: bool) -> LocalBoxFuture<'_, Result<(), StoreError>>;
}
