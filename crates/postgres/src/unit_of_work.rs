//! The storage of one API request (`UnitOfWork`): a `PgStore` bound to the request's
//! connection, so every port call made through it knows which connection to use from
//! the value itself.
//!
//! - `Read`: a connection shared with the other reads this store (one per HTTP worker,
//!   `PgStore::for_worker`) is serving at the time: concurrent reads travel to the
//!   database together, fewer round trips and wake-ups.
//! - `List`, `Write`: a connection of the request's own. A statement issued while the
//!   request's other statements hold it may take another from the pool (no transaction).
//! - `AtomicWrite`: a connection of its own that every statement waits for, with a
//!   transaction from `begin` to `finish`.
//!
//! Within one unit, statements issued concurrently share the connection and are
//! pipelined in the order they were issued.

use std::sync::{Arc, Mutex, Weak};

use futures_util::future::LocalBoxFuture;
use stablepay_domain::ports::{self, Access, KeyClaim, StoreError, UnitOfWork, UnitsOfWork};
use tokio::sync::RwLock;

use crate::diesel_internals::{end_transaction, open_transaction, send_begin};
use crate::key_check::KeyCheck;
use crate::pool::Pooled;
use crate::PgStore;

/// The connection a unit is bound to.
#[derive(Clone)]
pub(crate) struct Bound {
    pub(crate) conn: Arc<RwLock<Pooled>>,
    /// Every statement must run on this connection (`AtomicWrite`).
    pub(crate) exclusive: bool,
    /// Shared with other requests' reads (`Read`): never to hold a transaction, never
    /// taken for exclusive use.
    pub(crate) shared: bool,
    /// Reads of the claimed merchant carry the key's check.
    pub(crate) check: Option<Arc<KeyCheck>>,
}

/// How many requests may share one read connection before the next takes a fresh one:
/// the old one goes back to the pool when its last reader ends, and the pool replaces it
/// if it broke meanwhile.
const MAX_SHARED_READS: u32 = 64;

/// The read connection a worker's concurrent `Read` units share now.
#[derive(Default)]
pub(crate) struct SharedReads {
    current: Mutex<Option<(Weak<RwLock<Pooled>>, u32)>>,
}

impl PgStore {
    /// A connection for a `Read` unit: the one this store's concurrent reads share while
    /// it is in use and has served fewer than `MAX_SHARED_READS`, else a fresh one.
    async fn shared_read_connection(&self) -> Result<Arc<RwLock<Pooled>>, StoreError> {
        {
            let mut current = self.reads.current.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((weak, joins)) = current.as_mut() {
                if let (Some(conn), true) = (weak.upgrade(), *joins < MAX_SHARED_READS) {
                    *joins += 1;
                    return Ok(conn);
                }
            }
        }
        let conn = Arc::new(RwLock::new(self.pooled().await?));
        *self.reads.current.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((Arc::downgrade(&conn), 1));
        Ok(conn)
    }
}

impl UnitsOfWork for PgStore {
    fn open(
        &self,
        access: Access,
        claim: Option<KeyClaim>,
    ) -> LocalBoxFuture<'_, Result<Box<dyn UnitOfWork>, StoreError>> {
        Box::pin(async move {
            let unit: Box<dyn UnitOfWork> = Box::new(self.open_unit(access, claim).await?);
            Ok(unit)
        })
    }
}

impl PgStore {
    /// `UnitsOfWork::open`, as the concrete unit.
    pub(crate) async fn open_unit(
        &self,
        access: Access,
        claim: Option<KeyClaim>,
    ) -> Result<PgUnitOfWork, StoreError> {
        let conn = match access {
            Access::Read => self.shared_read_connection().await?,
            _ => Arc::new(RwLock::new(self.pooled().await?)),
        };
        let bound = Bound {
            conn,
            exclusive: access == Access::AtomicWrite,
            shared: access == Access::Read,
            check: claim.as_ref().and_then(KeyCheck::new).map(Arc::new),
        };
        Ok(PgUnitOfWork {
            store: self.bound_to(bound.clone()),
            bound,
            access,
            began: std::sync::atomic::AtomicBool::new(false),
        })
    }
}

/// One request's storage.
pub(crate) struct PgUnitOfWork {
    /// The store bound to `bound`: the ports handed to the request.
    pub(crate) store: PgStore,
    bound: Bound,
    access: Access,
    began: std::sync::atomic::AtomicBool,
}

impl UnitOfWork for PgUnitOfWork {
    fn ports(&self) -> &dyn stablepay_domain::ports::Storage {
        &self.store
    }

    fn claim_held(&self) -> bool {
        let Some(check) = self.bound.check.as_ref().filter(|c| c.confirmed()) else {
            return false;
        };
        // What authentication would have recorded (at most once a minute per key).
        self.store.note_key_use(check.key_id, None);
        true
    }

    fn begin(&self) -> Result<LocalBoxFuture<'_, Result<(), StoreError>>, StoreError> {
        use std::sync::atomic::Ordering;
        if self.access != Access::AtomicWrite || self.began.load(Ordering::Relaxed) {
            return Err(StoreError::Internal(
                "a transaction was begun outside an atomic write, or twice".into(),
            ));
        }
        open_transaction(&self.bound.conn)?;
        self.began.store(true, Ordering::Relaxed);
        Ok(Box::pin(send_begin(&self.bound.conn)))
    }

    fn finish(&self, commit: bool) -> LocalBoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            if !self.began.load(std::sync::atomic::Ordering::Relaxed) {
                return Ok(());
            }
            end_transaction(&self.bound.conn, commit).await
        })
    }
}

impl stablepay_domain::ports::Storage for PgStore {
    fn keys(&self) -> &dyn ports::ApiKeyStore {
        self
    }
    fn key_manager(&self) -> &dyn ports::ApiKeyManager {
        self
    }
    fn users(&self) -> &dyn ports::DashboardUserStore {
        self
    }
    fn summaries(&self) -> &dyn ports::DashboardReader {
        self
    }
    fn sessions(&self) -> &dyn ports::SessionRepository {
        self
    }
    fn wallets(&self) -> &dyn ports::WalletRepository {
        self
    }
    fn endpoints(&self) -> &dyn ports::WebhookEndpointRepository {
        self
    }
    fn reader(&self) -> &dyn ports::ResourceReader {
        self
    }
    fn idempotency(&self) -> &dyn ports::IdempotencyStore {
        self
    }
    fn outbox(&self) -> &dyn ports::Outbox {
        self
    }
    fn recoveries(&self) -> &dyn ports::RecoveryQueue {
        self
    }
    fn settlement(&self) -> &dyn ports::SettlementStore {
        self
    }
    fn deposits(&self) -> &dyn ports::DepositStore {
        self
    }
    fn refunds(&self) -> &dyn ports::RefundStore {
        self
    }
    fn subscriptions(&self) -> &dyn ports::SubscriptionStore {
        self
    }
}
