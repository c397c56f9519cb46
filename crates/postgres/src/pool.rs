use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::time::Duration;

use diesel_async::pooled_connection::deadpool::{Object, Pool};
use diesel_async::pooled_connection::{
    AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod,
};
use diesel_async::AsyncPgConnection;
use stablepay_domain::ports::StoreError;

use crate::cipher::SecretCipher;

pub type PgPool = Pool<AsyncPgConnection>;
/// A readiness probe: resolves to whether the process can serve.
pub type Readiness = Arc<dyn Fn() -> futures_util::future::BoxFuture<'static, bool> + Send + Sync>;
type Pooled = Object<AsyncPgConnection>;

#[derive(Debug, Clone)]
pub struct PoolConfig {
    pub max_connections: usize,
    /// How long a request may wait for a connection before failing fast.
    pub acquire_timeout: Duration,
    /// Sub-pools, one per thread that serves requests (the api's HTTP workers): a
    /// connection's I/O task runs on the thread that opened it, so a request that uses a
    /// connection of its own thread's sub-pool wakes no other thread. 1 for one pool.
    pub shards: usize,
}

impl Default for PoolConfig {
    fn default() -> Self {
        Self {
            max_connections: 16,
            acquire_timeout: Duration::from_secs(3),
            shards: 1,
        }
    }
}

/// The PostgreSQL store: one value implements every storage port.
#[derive(Clone)]
pub struct PgStore {
    /// The sub-pools (`PoolConfig::shards`); a thread always draws from the same one.
    pools: Arc<[PgPool]>,
    pub(crate) cipher: Arc<SecretCipher>,
    acquire_timeout: Duration,
    /// API keys whose use this process already recorded, and when (unix seconds): one
    /// `last_used_at` write per key per minute per process, not one per request.
    pub(crate) key_use: Arc<std::sync::Mutex<std::collections::HashMap<uuid::Uuid, i64>>>,
    /// Identifies this pool for a task's pinned connection (tests run several stores
    /// in one process).
    identity: Arc<()>,
}

/// A connection for one repository call: from the pool, or the one pinned to the
/// current request (`RequestScope`), so a request's statements share one connection.
pub(crate) enum PgConn {
    Pooled(Pooled),
    Pinned(tokio::sync::OwnedRwLockWriteGuard<Pooled>),
}

/// A connection for statements that may be pipelined with others of the same request:
/// the pinned connection shared (statements issued concurrently through it travel
/// together, in the order they were issued), or one from the pool. Use it as
/// `query.get_result(&mut &*conn)`; transactions need `PgConn`.
pub(crate) enum SharedConn {
    Pooled(Pooled),
    Pinned(tokio::sync::OwnedRwLockReadGuard<Pooled>),
}

impl Deref for SharedConn {
    type Target = AsyncPgConnection;
    fn deref(&self) -> &AsyncPgConnection {
        match self {
            SharedConn::Pooled(c) => c,
            SharedConn::Pinned(c) => c,
        }
    }
}

impl Deref for PgConn {
    type Target = AsyncPgConnection;
    fn deref(&self) -> &AsyncPgConnection {
        match self {
            PgConn::Pooled(c) => c,
            PgConn::Pinned(c) => c,
        }
    }
}

impl DerefMut for PgConn {
    fn deref_mut(&mut self) -> &mut AsyncPgConnection {
        match self {
            PgConn::Pooled(c) => c,
            PgConn::Pinned(c) => c,
        }
    }
}

/// The connection pinned to the current task by `PgStore::scoped`.
#[derive(Clone)]
pub(crate) struct Pin {
    pool: usize,
    pub(crate) conn: Arc<tokio::sync::RwLock<Pooled>>,
}

tokio::task_local! {
    pub(crate) static PINNED: Pin;
}

/// Threads are dealt sub-pools in turn, on first use.
static NEXT_SHARD: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

thread_local! {
    static SHARD: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

fn thread_shard() -> usize {
    SHARD.with(|shard| {
        shard.get().unwrap_or_else(|| {
            let n = NEXT_SHARD.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            shard.set(Some(n));
            n
        })
    })
}

impl PgStore {
    pub fn connect(
        database_url: &str,
        config: &PoolConfig,
        cipher: SecretCipher,
    ) -> Result<Self, StoreError> {
        // `Fast` recycling: a checkout costs no round trip. A connection the server
        // closed reports itself broken and is replaced; one that dies while idle fails
        // its next statement, which callers already treat as `Unavailable`.
        let shards = config.shards.clamp(1, config.max_connections.max(1));
        let per_shard = config.max_connections.div_ceil(shards).max(1);
        let pools = (0..shards)
            .map(|_| {
                let mut manager_config = ManagerConfig::default();
                manager_config.recycling_method = RecyclingMethod::Fast;
                let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new_with_config(
                    database_url,
                    manager_config,
                );
                Pool::builder(manager)
                    .max_size(per_shard)
                    .build()
                    .map_err(|e| StoreError::Internal(format!("pool: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            pools: pools.into(),
            cipher: Arc::new(cipher),
            acquire_timeout: config.acquire_timeout,
            key_use: Arc::default(),
            identity: Arc::new(()),
        })
    }

    fn pool_id(&self) -> usize {
        Arc::as_ptr(&self.identity) as usize
    }

    /// A connection from the pool, or `Unavailable` when none comes within the acquire
    /// timeout.
    pub(crate) async fn pooled(&self) -> Result<Pooled, StoreError> {
        let started = std::time::Instant::now();
        let pool = &self.pools[thread_shard() % self.pools.len()];
        let got = tokio::time::timeout(self.acquire_timeout, pool.get()).await;
        metrics::histogram!("stablepay_db_pool_wait_seconds")
            .record(started.elapsed().as_secs_f64());
        match got {
            Ok(Ok(conn)) => Ok(conn),
            Ok(Err(e)) => Err(StoreError::Unavailable(e.to_string())),
            Err(_) => Err(StoreError::Unavailable(
                "timed out waiting for a database connection".into(),
            )),
        }
    }

    /// The current request's pinned connection for exclusive use, else a pooled one.
    /// Waits for the request's pipelined statements in flight; a repository that nests a
    /// second exclusive call inside a first gets a connection of its own rather than
    /// waiting on itself.
    pub(crate) async fn conn(&self) -> Result<PgConn, StoreError> {
        if let Some(pinned) = self.current_pin().map(|pin| pin.conn) {
            if let Ok(guard) = pinned.clone().try_write_owned() {
                return Ok(PgConn::Pinned(guard));
            }
            if !self.pinned_exclusively(&pinned) {
                return Ok(PgConn::Pinned(pinned.write_owned().await));
            }
        }
        self.pooled().await.map(PgConn::Pooled)
    }

    /// The current request's pinned connection shared with the request's other
    /// pipelined statements, else a pooled one.
    pub(crate) async fn shared_conn(&self) -> Result<SharedConn, StoreError> {
        if let Some(pinned) = self.current_pin().map(|pin| pin.conn) {
            if let Ok(guard) = pinned.try_read_owned() {
                return Ok(SharedConn::Pinned(guard));
            }
        }
        self.pooled().await.map(SharedConn::Pooled)
    }

    /// Whether the pinned connection is held exclusively (by a nesting caller): waiting
    /// for it would wait on ourselves.
    fn pinned_exclusively(&self, pinned: &Arc<tokio::sync::RwLock<Pooled>>) -> bool {
        pinned.try_read().is_err()
    }

    /// The connection pinned to the current task for this store, if any.
    pub(crate) fn current_pin(&self) -> Option<Pin> {
        PINNED
            .try_with(|pin| (pin.pool == self.pool_id()).then(|| pin.clone()))
            .ok()
            .flatten()
    }

    pub(crate) fn pin(&self, conn: Pooled) -> Pin {
        Pin {
            pool: self.pool_id(),
            conn: Arc::new(tokio::sync::RwLock::new(conn)),
        }
    }

    /// Checks the database answers (readiness).
    pub async fn ping(&self) -> Result<(), StoreError> {
        use diesel_async::RunQueryDsl;
        let mut conn = self.conn().await?;
        diesel::sql_query("SELECT 1")
            .execute(&mut conn)
            .await
            .map(|_| ())
            .map_err(crate::map_diesel_error)
    }

    /// The readiness probe every process serves: does the database answer?
    pub fn readiness(&self) -> Readiness {
        let store = self.clone();
        Arc::new(move || {
            let store = store.clone();
            Box::pin(async move { store.ping().await.is_ok() })
        })
    }
}

impl PgStore {
    /// Decrypts a stored signing secret (for the delivery path and tests).
    pub fn decrypt_secret(&self, sealed: &[u8]) -> Result<String, crate::CipherError> {
        self.cipher.decrypt(sealed)
    }
}
