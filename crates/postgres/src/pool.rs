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
}

impl Default for PoolConfig {
    fn default() -> Self {
        Self {
            max_connections: 16,
            acquire_timeout: Duration::from_secs(3),
        }
    }
}

/// The PostgreSQL store: one value implements every storage port.
#[derive(Clone)]
pub struct PgStore {
    pool: PgPool,
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
    Pinned(tokio::sync::OwnedMutexGuard<Pooled>),
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
    pub(crate) conn: Arc<tokio::sync::Mutex<Pooled>>,
}

tokio::task_local! {
    pub(crate) static PINNED: Pin;
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
        let mut manager_config = ManagerConfig::default();
        manager_config.recycling_method = RecyclingMethod::Fast;
        let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new_with_config(
            database_url,
            manager_config,
        );
        let pool = Pool::builder(manager)
            .max_size(config.max_connections)
            .build()
            .map_err(|e| StoreError::Internal(format!("pool: {e}")))?;
        Ok(Self {
            pool,
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
        let got = tokio::time::timeout(self.acquire_timeout, self.pool.get()).await;
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

    /// The current request's pinned connection when there is one and it is free, else a
    /// pooled connection.
    pub(crate) async fn conn(&self) -> Result<PgConn, StoreError> {
        if let Some(pinned) = self.current_pin().map(|pin| pin.conn) {
            // Busy only when a repository nests a second call inside a first; that one
            // gets a connection of its own rather than waiting on itself.
            if let Ok(guard) = pinned.try_lock_owned() {
                return Ok(PgConn::Pinned(guard));
            }
        }
        self.pooled().await.map(PgConn::Pooled)
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
            conn: Arc::new(tokio::sync::Mutex::new(conn)),
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
