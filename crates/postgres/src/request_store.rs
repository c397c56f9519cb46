//! What one API request opens (`RequestStore`, D28): a `PgStore` bound to the request's
//! connection, so every port call made through it knows which connection to use from
//! the value itself.
//!
//! - Reads of one resource (`ReadShape::One`): a connection shared with the other such
//!   reads this store (one per HTTP worker, `PgStore::for_worker`) is serving at the time:
//!   concurrent reads travel to the database together, fewer round trips and wake-ups.
//! - Pages: a connection of the request's own. A statement issued while the request's
//!   other statements hold it may take another from the pool (no transaction).
//! - Writes: each call a pooled connection of its own, for its statements only.
//! - Atomic writes: a connection of its own that every statement waits for, with a
//!   transaction from `begin` to `finish`.
//!
//! Within one unit, statements issued concurrently share the connection and are
//! pipelined in the order they were issued.

use std::sync::{Arc, Mutex, Weak};

use futures_util::future::LocalBoxFuture;
use stablepay_domain::ports::{
    self, ApiKeyStore, IdempotencyScope, RecordOutcome, Storage, StoreError, StoredResponse,
};
use stablepay_domain::AuthContext;
use stablepay_request_store::{AtomicUnit, KeyClaim, ReadShape, ReadUnit, Reads, RequestStore};
use tokio::sync::RwLock;

use crate::diesel_internals::{commit_behind, end_transaction, open_transaction, send_begin};
use crate::key_check::KeyCheck;
use crate::one_statement::{execute_write, Stage, UnitStage};
use crate::pool::Pooled;
use crate::repos::idempotency::{record_answer, Answer};
use crate::verified_wallets::WalletsSeen;
use crate::PgStore;

/// The connection a unit is bound to.
#[derive(Clone)]
pub(crate) struct Bound {
    pub(crate) conn: Arc<RwLock<Pooled>>,
    /// Every statement must run on this connection (`AtomicWrite`).
    pub(crate) exclusive: bool,
    /// Shared with other requests' reads (`ReadShape::One`): never to hold a transaction,
    /// never taken for exclusive use.
    pub(crate) shared: bool,
    /// An atomic unit's transaction stage (`one_statement`); `None` for other units.
    pub(crate) stage: Option<UnitStage>,
    /// The wallets count an atomic unit's key check saw (`verified_wallets`); `None` for
    /// other units.
    pub(crate) wallets_seen: Option<Arc<WalletsSeen>>,
}

/// How many requests may share one read connection before the next takes a fresh one:
/// the old one goes back to the pool when its last reader ends, and the pool replaces it
/// if it broke meanwhile.
const MAX_SHARED_READS: u32 = 64;

/// The read connection a worker's concurrent one-resource reads share now. Measured
/// 2026-11-28 (`cargo xtask bench api`, 2 shared cores, the same build with every read on
/// a connection of its own): GETs of one session 34,242 → 26,322 per second without it
/// (57 → 45 % of select-only), the api 22 → 32 µs and PostgreSQL 20 → 30 µs per GET.
#[derive(Default)]
pub(crate) struct SharedReads {
    current: Mutex<Option<(Weak<RwLock<Pooled>>, u32)>>,
}

impl PgStore {
    /// A connection for a one-resource read: the one this store's concurrent reads share while
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

impl RequestStore for PgStore {
    fn open_reads(
        &self,
        scope: &AuthContext,
        claim: Option<KeyClaim>,
        shape: ReadShape,
    ) -> LocalBoxFuture<'_, Result<Box<dyn ReadUnit>, StoreError>> {
        let scope = scope.clone();
        Box::pin(async move {
            let unit: Box<dyn ReadUnit> = Box::new(self.open_read_unit(scope, claim, shape).await?);
            Ok(unit)
        })
    }

    fn open_writes(&self) -> LocalBoxFuture<'_, Result<Box<dyn Storage>, StoreError>> {
        // Each call takes a pooled connection for its statements and gives it back: a
        // write may wait on the chain between calls (a relay's inclusion, up to 30 s)
        // without holding one.
        let unit: Box<dyn Storage> = Box::new(self.unbound());
        Box::pin(async move { Ok(unit) })
    }

    fn open_atomic(&self) -> LocalBoxFuture<'_, Result<Box<dyn AtomicUnit>, StoreError>> {
        Box::pin(async move {
            let unit: Box<dyn AtomicUnit> = Box::new(self.open_atomic_unit().await?);
            Ok(unit)
        })
    }
}

impl PgStore {
    async fn own_connection(&self, exclusive: bool) -> Result<Bound, StoreError> {
        Ok(Bound {
            conn: Arc::new(RwLock::new(self.pooled().await?)),
            exclusive,
            shared: false,
            stage: None,
            wallets_seen: None,
        })
    }

    /// `RequestStore::open_reads`, as the concrete unit.
    pub(crate) async fn open_read_unit(
        &self,
        scope: AuthContext,
        claim: Option<KeyClaim>,
        shape: ReadShape,
    ) -> Result<PgReads, StoreError> {
        let bound = match shape {
            ReadShape::One => Bound {
                conn: self.shared_read_connection().await?,
                exclusive: false,
                shared: true,
                stage: None,
                wallets_seen: None,
            },
            ReadShape::Page => self.own_connection(false).await?,
        };
        Ok(PgReads {
            store: self.bound_to(bound),
            scope,
            check: claim.as_ref().and_then(KeyCheck::new),
        })
    }

    /// `RequestStore::open_atomic`, as the concrete unit.
    pub(crate) async fn open_atomic_unit(&self) -> Result<PgAtomicUnit, StoreError> {
        let stage: UnitStage = Arc::new(tokio::sync::Mutex::new(Stage::Alone));
        let bound = Bound {
            stage: Some(stage.clone()),
            wallets_seen: Some(Arc::default()),
            ..self.own_connection(true).await?
        };
        Ok(PgAtomicUnit {
            store: self.bound_to(bound.clone()),
            bound,
            stage,
        })
    }
}

/// A read handler's storage: the store bound to the request's read connection, the
/// merchant and mode it reads, and the key check its reads carry.
pub(crate) struct PgReads {
    pub(crate) store: PgStore,
    pub(crate) scope: AuthContext,
    pub(crate) check: Option<KeyCheck>,
}

impl ReadUnit for PgReads {
    fn reads(&self) -> &dyn Reads {
        self
    }

    fn keys(&self) -> &dyn ApiKeyStore {
        &self.store
    }

    fn record_key_use(&self) {
        if let Some(check) = &self.check {
            // What authentication would have recorded (at most once a minute per key).
            self.store.note_key_use(check.key_id, None);
        }
    }
}

/// An atomic write's storage: the store bound to the request's own connection, with its
/// transaction's stage.
pub(crate) struct PgAtomicUnit {
    pub(crate) store: PgStore,
    bound: Bound,
    /// The stage its store's statements see too (`bound.stage`).
    stage: UnitStage,
}

impl PgAtomicUnit {
    /// The stage of a unit that began nothing yet, to set.
    /// Errors: `Internal` when the unit is busy or began already.
    fn stage_to_set(&self) -> Result<tokio::sync::MutexGuard<'_, Stage>, StoreError> {
        let stage = self.stage.try_lock().map_err(|_| {
            StoreError::Internal("a request transaction was begun while its unit was busy".into())
        })?;
        if !matches!(*stage, Stage::Alone) {
            return Err(StoreError::Internal(
                "a request transaction was begun twice".into(),
            ));
        }
        Ok(stage)
    }
}

impl AtomicUnit for PgAtomicUnit {
    fn ports(&self) -> &dyn Storage {
        &self.store
    }

    fn begin(&self) -> Result<LocalBoxFuture<'_, Result<(), StoreError>>, StoreError> {
        let mut stage = self.stage_to_set()?;
        open_transaction(&self.bound.conn)?;
        *stage = Stage::Begun;
        Ok(Box::pin(send_begin(&self.bound.conn)))
    }

    fn begin_as_one_statement(&self) -> Result<(), StoreError> {
        *self.stage_to_set()? = Stage::OneStatement(None);
        Ok(())
    }

    fn finish(&self, commit: bool) -> LocalBoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let mut stage = self.stage.lock().await;
            match std::mem::replace(&mut *stage, Stage::Alone) {
                Stage::Alone | Stage::OneStatement(None) => Ok(()),
                // Never sent: rolled back by dropping it; committed by sending it alone.
                Stage::OneStatement(Some(_)) if !commit => Ok(()),
                Stage::OneStatement(Some(write)) => {
                    execute_write(&*self.bound.conn.clone().read_owned().await, write).await
                }
                Stage::Begun => end_transaction(&self.bound.conn, commit).await,
            }
        })
    }

    fn commit_with_answer<'a>(
        &'a self,
        scope: &'a IdempotencyScope,
        request_sha256: [u8; 32],
        response: &'a StoredResponse,
        stale_after_secs: i64,
    ) -> LocalBoxFuture<'a, Result<RecordOutcome, StoreError>> {
        Box::pin(async move {
            let answer = Answer::new(scope, request_sha256, response, stale_after_secs);
            let mut stage = self.stage.lock().await;
            let held = match std::mem::replace(&mut *stage, Stage::Alone) {
                Stage::Alone => {
                    return Err(StoreError::Internal(
                        "an answer was committed without a transaction".into(),
                    ))
                }
                Stage::OneStatement(held) => held,
                Stage::Begun => {
                    let record = async {
                        let conn = self.bound.conn.clone().read_owned().await;
                        record_answer(&conn, None, &answer).await
                    };
                    let (recorded, ended) = commit_behind(&self.bound.conn, record).await;
                    ended?;
                    return recorded;
                }
            };
            // Nothing was sent: the held write and the answer are one statement.
            let conn = self.bound.conn.clone().read_owned().await;
            record_answer(&conn, held.as_deref(), &answer).await
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
    fn audit_log(&self) -> &dyn ports::AuditLog {
        self
    }
    fn settings(&self) -> &dyn ports::MerchantSettings {
        self
    }
    fn refund_requests(&self) -> &dyn ports::RefundRequestStore {
        self
    }
    fn screening_log(&self) -> &dyn ports::ScreeningLog {
        self
    }
    fn payment_reviews(&self) -> &dyn ports::PaymentReviews {
        self
    }
    fn payment_links(&self) -> &dyn ports::PaymentLinkRepository {
        self
    }
}
