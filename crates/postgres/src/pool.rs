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
    /// The time the store writes when a caller does not pass one (created, revoked,
    /// updated stamps): the wall clock unless `with_clock` says otherwise.
    clock: Arc<dyn stablepay_domain::ports::Clock>,
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
    /// Inside a request transaction: every statement must run on this connection.
    pub(crate) in_transaction: bool,
    /// Shared with other requests' reads (`joinable`): never to hold a transaction.
    pub(crate) joined: bool,
    /// The request's reads are made on condition that its key stands (`vouched`).
    pub(crate) vouching: Option<Arc<crate::vouch::Vouching>>,
}

impl Pin {
    /// The same connection, its reads made on condition that `vouching`'s key stands.
    pub(crate) fn vouched(self, vouching: Arc<crate::vouch::Vouching>) -> Self {
        Self {
            vouching: Some(vouching),
            ..self
        }
    }

    /// The same connection, marked as inside a request transaction.
    pub(crate) fn in_transaction(self) -> Self {
        Self {
            in_transaction: true,
            ..self
        }
    }
}

tokio::task_local! {
    pub(crate) static PINNED: Pin;
}

/// How many requests may join one shared read connection (`PgStore::joinable`) before
/// the next takes a fresh one: the old one goes back to the pool when its last reader
/// ends, and the pool replaces it if it broke meanwhile.
const MAX_JOINS: u32 = 64;

thread_local! {
    /// Per store (its pool id): the connection this thread's joined reads share now, and
    /// how many have joined it.
    static JOINABLE: std::cell::RefCell<Vec<Joinable>> = const { std::cell::RefCell::new(Vec::new()) };
}

struct Joinable {
    pool: usize,
    conn: std::sync::Weak<tokio::sync::RwLock<Pooled>>,
    joins: u32,
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
        // At least 4 connections a shard; the sizes add up to `max_connections`.
        let total = config.max_connections.max(1);
        let shards = config.shards.clamp(1, (total / 4).max(1));
        let pools = (0..shards)
            .map(|i| {
                let per_shard = total / shards + usize::from(i < total % shards);
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
            clock: Arc::new(stablepay_domain::ports::SystemClock),
            identity: Arc::new(()),
        })
    }

    /// The same store reading the time from `clock` (tests that move time).
    pub fn with_clock(mut self, clock: Arc<dyn stablepay_domain::ports::Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The store's clock's time.
    pub(crate) fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now().as_datetime()
    }

    fn pool_id(&self) -> usize {
        Arc::as_ptr(&self.identity) as usize
    }

    /// A connection from the pool, or `Unavailable` when none comes within the acquire
    /// timeout. The thread's own sub-pool first; when it is exhausted, any other with a
    /// connection to spare (a busy thread is never starved while others idle).
    pub(crate) async fn pooled(&self) -> Result<Pooled, StoreError> {
        let started = std::time::Instant::now();
        let own = thread_shard() % self.pools.len();
        let pool = (0..self.pools.len())
            .map(|k| &self.pools[(own + k) % self.pools.len()])
            .find(|p| {
                let s = p.status();
                s.available > 0 || s.size < s.max_size
            })
            .unwrap_or(&self.pools[own]);
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

    /// The current request's pinned connection for exclusive use when it is free (and not
    /// joined by other requests), else
    /// a pooled one (outside a transaction another connection changes nothing). Inside a
    /// request transaction it waits for the request's other statements instead, up to the
    /// acquire timeout: a statement on another connection would escape the transaction.
    pub(crate) async fn conn(&self) -> Result<PgConn, StoreError> {
        // A joined connection is only ever shared: exclusive use would hold up the reads
        // of every request that joined it.
        if let Some(pin) = self.current_pin().filter(|pin| !pin.joined) {
            if let Ok(guard) = pin.conn.clone().try_write_owned() {
                return Ok(PgConn::Pinned(guard));
            }
            if pin.in_transaction {
                return self
                    .within_timeout(pin.conn.write_owned())
                    .await
                    .map(PgConn::Pinned);
            }
        }
        self.pooled().await.map(PgConn::Pooled)
    }

    /// The current request's pinned connection shared with the request's other
    /// pipelined statements (and, when joined, with other requests' reads), else as
    /// `conn`.
    pub(crate) async fn shared_conn(&self) -> Result<SharedConn, StoreError> {
        if let Some(pin) = self.current_pin() {
            if let Ok(guard) = pin.conn.clone().try_read_owned() {
                return Ok(SharedConn::Pinned(guard));
            }
            if pin.in_transaction {
                return self
                    .within_timeout(pin.conn.read_owned())
                    .await
                    .map(SharedConn::Pinned);
            }
        }
        self.pooled().await.map(SharedConn::Pooled)
    }

    async fn within_timeout<T>(
        &self,
        wait: impl std::future::Future<Output = T>,
    ) -> Result<T, StoreError> {
        tokio::time::timeout(self.acquire_timeout, wait)
            .await
            .map_err(|_| StoreError::Unavailable("the request's connection stayed busy".into()))
    }

    /// The connection pinned to the current task for this store, if any.
    pub(crate) fn current_pin(&self) -> Option<Pin> {
        self.with_pin(|pin| Some(pin.clone()))
    }

    /// What `read` finds in the current task's pin for this store, if it has one (without
    /// cloning the pin: on every statement's path).
    pub(crate) fn with_pin<T>(&self, read: impl FnOnce(&Pin) -> Option<T>) -> Option<T> {
        PINNED
            .try_with(|pin| (pin.pool == self.pool_id()).then(|| read(pin)).flatten())
            .ok()
            .flatten()
    }

    /// A pin on the connection this thread's concurrent reads share, joined while it is
    /// in use and has taken fewer than `MAX_JOINS` requests; else a fresh one from the
    /// pool, which the next reads of this thread then join.
    pub(crate) async fn joinable(&self) -> Result<Pin, StoreError> {
        let pool = self.pool_id();
        let joined = JOINABLE.with(|all| {
            let mut all = all.borrow_mut();
            all.retain(|j| j.conn.strong_count() > 0);
            let j = all
                .iter_mut()
                .find(|j| j.pool == pool && j.joins < MAX_JOINS)?;
            let conn = j.conn.upgrade()?;
            j.joins += 1;
            Some(conn)
        });
        if let Some(conn) = joined {
            return Ok(Pin {
                pool,
                conn,
                in_transaction: false,
                joined: true,
                vouching: None,
            });
        }
        let pin = Pin {
            joined: true,
            ..self.pin(self.pooled().await?)
        };
        JOINABLE.with(|all| {
            let mut all = all.borrow_mut();
            all.retain(|j| j.pool != pool);
            all.push(Joinable {
                pool,
                conn: Arc::downgrade(&pin.conn),
                joins: 1,
            });
        });
        Ok(pin)
    }

    pub(crate) fn pin(&self, conn: Pooled) -> Pin {
        Pin {
            pool: self.pool_id(),
            conn: Arc::new(tokio::sync::RwLock::new(conn)),
            in_transaction: false,
            joined: false,
            vouching: None,
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
    /// Decrypts a webhook endpoint's stored signing secret (for the delivery path and tests).
    pub fn decrypt_secret(
        &self,
        endpoint: uuid::Uuid,
        sealed: &[u8],
    ) -> Result<String, crate::CipherError> {
        self.cipher
            .decrypt(sealed, &crate::cipher::endpoint_aad(endpoint))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_hold_at_least_four_connections_and_add_up_to_the_total() {
        let sizes = |max_connections, shards| {
            let store = PgStore::connect(
                "postgres://nobody@127.0.0.1:1/none",
                &PoolConfig {
                    max_connections,
                    shards,
                    ..PoolConfig::default()
                },
                SecretCipher::new(&[0u8; 32]).unwrap(),
            )
            .unwrap();
            store
                .pools
                .iter()
                .map(|p| p.status().max_size)
                .collect::<Vec<_>>()
        };
        assert_eq!(sizes(16, 1), [16]);
        assert_eq!(sizes(16, 2), [8, 8]);
        assert_eq!(sizes(18, 8), [5, 5, 4, 4]);
        assert_eq!(sizes(3, 4), [3]);
        assert_eq!(sizes(32, 64), [4; 8]);
    }
}
