use std::sync::Arc;
use std::time::Duration;

use diesel_async::pooled_connection::deadpool::{Object, Pool};
use diesel_async::pooled_connection::AsyncDieselConnectionManager;
use diesel_async::AsyncPgConnection;
use stablepay_domain::ports::StoreError;

use crate::cipher::SecretCipher;

pub type PgPool = Pool<AsyncPgConnection>;
pub(crate) type PgConn = Object<AsyncPgConnection>;

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
}

impl PgStore {
    pub fn connect(
        database_url: &str,
        config: &PoolConfig,
        cipher: SecretCipher,
    ) -> Result<Self, StoreError> {
        let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new(database_url);
        let pool = Pool::builder(manager)
            .max_size(config.max_connections)
            .build()
            .map_err(|e| StoreError::Internal(format!("pool: {e}")))?;
        Ok(Self {
            pool,
            cipher: Arc::new(cipher),
            acquire_timeout: config.acquire_timeout,
            key_use: Arc::default(),
        })
    }

    /// A pooled connection, or `Unavailable` when none comes within the acquire timeout.
    pub(crate) async fn conn(&self) -> Result<PgConn, StoreError> {
        match tokio::time::timeout(self.acquire_timeout, self.pool.get()).await {
            Ok(Ok(conn)) => Ok(conn),
            Ok(Err(e)) => Err(StoreError::Unavailable(e.to_string())),
            Err(_) => Err(StoreError::Unavailable(
                "timed out waiting for a database connection".into(),
            )),
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
}

impl PgStore {
    /// Decrypts a stored signing secret (for the delivery path and tests).
    pub fn decrypt_secret(&self, sealed: &[u8]) -> Result<String, crate::CipherError> {
        self.cipher.decrypt(sealed)
    }
}
