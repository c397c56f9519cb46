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
use crate::one_statement::{before_statement, Statement};

pub type PgPool = Pool<AsyncPgConnection>;
/// A readiness probe: resolves to whether the process can serve.
pub type Readiness = Arc<dyn Fn() -> futures_util::future::BoxFuture<'static, bool> + Send + Sync>;
pub(crate) type Pooled = Object<AsyncPgConnection>;

#[derive(Debug, Clone)]
pub struct PoolConfig {
    pub max_connections: usize,
    /// How long a request may wait for a connection before failing fast.
    pub acquire_timeout: Duration,
    /// Sub-pools, one per thread that serves requests (the api's HTTP workers, each with
    /// its own `PgStore::for_worker`): a connection's I/O task runs on the thread that
    /// opened it, so a request that uses a connection of its own worker's sub-pool wakes
    /// no other thread. 1 for one pool.
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
    /// The sub-pools (`PoolConfig::shards`); this value draws from `shard` first.
    pools: Arc<[PgPool]>,
    shard: usize,
    /// The connection this value's concurrent `Read` units share (per HTTP worker).
    pub(crate) reads: Arc<crate::request_store::SharedReads>,
    /// The connection of what an API request opened (`RequestStore`); `None` for a store
    /// whose every call takes a connection from the pool.
    pub(crate) bound: Option<crate::request_store::Bound>,
    pub(crate) cipher: Arc<SecretCipher>,
    acquire_timeout: Duration,
    /// API keys whose use this process already recorded, and when (unix seconds): one
    /// `last_used_at` write per key per minute per process, not one per request.
    pub(crate) key_use: Arc<std::sync::Mutex<std::collections::HashMap<uuid::Uuid, i64>>>,
    /// This process's last read of each merchant's verified wallets (`verified_wallets`).
    pub(crate) verified_wallets: Arc<crate::verified_wallets::VerifiedWallets>,
    /// The time the store writes when a caller does not pass one (created, revoked,
    /// updated stamps): the wall clock unless `with_clock` says otherwise.
    clock: Arc<dyn stablepay_domain::ports::Clock>,
}

/// A connection for one repository call: from the pool, or the request's connection
/// this store is bound to, so a request's statements share one connection.
pub(crate) enum PgConn {
    Pooled(Pooled),
    Pinned(tokio::sync::OwnedRwLockWriteGuard<Pooled>),
}

/// A connection for statements that may be pipelined with others of the same request:
/// the unit's connection shared (statements issued concurrently through it travel
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

/// How long PostgreSQL lets a connection of ours sit idle inside a transaction before it
/// ends the session, and its locks with it. Our transactions only ever wait on the
/// database (chain reads run before a request's transaction opens), so one idle this long
/// belongs to a process that froze, which must not hold rows others are waiting for.
const IDLE_IN_TRANSACTION_TIMEOUT: &str = "60s";

/// A pooled connection: established, then told `IDLE_IN_TRANSACTION_TIMEOUT`, and that
/// its queries run in one process, never compiled. Ours read a few rows, where parallel
/// workers and JIT compilation only add their start-up, chosen from row estimates that
/// can be far off: a `status=expired` page that read nothing took 12.9 ms with two
/// workers planned, 0.1 ms without (1.1M sessions, 2026-12-07).
async fn establish(url: &str) -> diesel::ConnectionResult<AsyncPgConnection> {
    use diesel_async::{AsyncConnection, SimpleAsyncConnection};
    let mut conn = AsyncPgConnection::establish(url).await?;
    conn.batch_execute(&format!(
        "SET idle_in_transaction_session_timeout = '{IDLE_IN_TRANSACTION_TIMEOUT}'; \
         SET max_parallel_workers_per_gather = 0; SET jit = off"
    ))
    .await
    .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
    Ok(conn)
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
        // At least 3 connections a shard (a request may hold its worker's shared read
        // connection and one of its own); the sizes add up to `max_connections`.
        let total = config.max_connections.max(1);
        let shards = config.shards.clamp(1, (total / 3).max(1));
        let pools = (0..shards)
            .map(|i| {
                let per_shard = total / shards + usize::from(i < total % shards);
                let mut manager_config = ManagerConfig::default();
                manager_config.recycling_method = RecyclingMethod::Fast;
                manager_config.custom_setup = Box::new(|url| Box::pin(establish(url)));
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
            verified_wallets: Arc::default(),
            clock: Arc::new(stablepay_domain::ports::SystemClock),
            shard: 0,
            reads: Arc::default(),
            bound: None,
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

    /// The store one HTTP worker serves its requests from: the `n`th worker draws from
    /// its own sub-pool first and shares read connections among its own requests only.
    pub fn for_worker(&self, n: usize) -> Self {
        Self {
            shard: n % self.pools.len(),
            reads: Arc::default(),
            bound: None,
            ..self.clone()
        }
    }

    /// This store with every call on a pooled connection of its own.
    pub(crate) fn unbound(&self) -> Self {
        Self {
            bound: None,
            ..self.clone()
        }
    }

    /// This store bound to a request's connection.
    pub(crate) fn bound_to(&self, bound: crate::request_store::Bound) -> Self {
        Self {
            bound: Some(bound),
            ..self.clone()
        }
    }

    /// A connection from the pool, or `Unavailable` when none comes within the acquire
    /// timeout. This value's own sub-pool first; when it is exhausted, any other with a
    /// connection to spare (a busy thread is never starved while others idle).
    pub(crate) async fn pooled(&self) -> Result<Pooled, StoreError> {
        let started = std::time::Instant::now();
        let own = self.shard;
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

    /// The unit's connection for exclusive use when it is free (and not shared with
    /// other requests' reads), else a pooled one (outside a transaction another
    /// connection changes nothing). In an `AtomicWrite` unit it waits for the unit's
    /// other statements instead, up to the acquire timeout: a statement on another
    /// connection would escape the transaction.
    pub(crate) async fn conn(&self) -> Result<PgConn, StoreError> {
        self.before_statement(Statement::InTransaction).await?;
        // A shared read connection is only ever shared: exclusive use would hold up the
        // reads of every request on it.
        if let Some(bound) = self.bound.as_ref().filter(|b| !b.shared) {
            if let Ok(guard) = bound.conn.clone().try_write_owned() {
                return Ok(PgConn::Pinned(guard));
            }
            if bound.exclusive {
                return self
                    .within_timeout(bound.conn.clone().write_owned())
                    .await
                    .map(PgConn::Pinned);
            }
        }
        self.pooled().await.map(PgConn::Pooled)
    }

    /// The unit's connection shared with its other pipelined statements (and, for a
    /// `Read` unit, with other requests' reads), else as `conn`.
    pub(crate) async fn shared_conn(&self) -> Result<SharedConn, StoreError> {
        self.before_statement(Statement::InTransaction).await?;
        self.shared_conn_as_is().await
    }

    /// As `shared_conn`, for a read that takes no locks: in a unit begun as one statement
    /// (`one_statement`) it runs alone while nothing is held.
    pub(crate) async fn plain_read_conn(&self) -> Result<SharedConn, StoreError> {
        self.before_statement(Statement::PlainRead).await?;
        self.shared_conn_as_is().await
    }

    /// A bound atomic unit made ready for `statement` (`one_statement::before_statement`).
    async fn before_statement(&self, statement: Statement) -> Result<(), StoreError> {
        match (&self.bound, self.unit_stage()) {
            (Some(bound), Some(stage)) => before_statement(stage, &bound.conn, statement).await,
            _ => Ok(()),
        }
    }

    async fn shared_conn_as_is(&self) -> Result<SharedConn, StoreError> {
        if let Some(bound) = &self.bound {
            if let Ok(guard) = bound.conn.clone().try_read_owned() {
                return Ok(SharedConn::Pinned(guard));
            }
            if bound.exclusive {
                return self
                    .within_timeout(bound.conn.clone().read_owned())
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
    fn shards_hold_at_least_three_connections_and_add_up_to_the_total() {
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
        assert_eq!(sizes(6, 2), [3, 3]);
        assert_eq!(sizes(18, 8), [3; 6]);
        assert_eq!(sizes(20, 4), [5; 4]);
        assert_eq!(sizes(5, 2), [5]);
        assert_eq!(sizes(2, 4), [2]);
        assert_eq!(sizes(32, 64), [4, 4, 3, 3, 3, 3, 3, 3, 3, 3]);
    }
}
