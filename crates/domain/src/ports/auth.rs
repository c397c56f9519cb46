use async_trait::async_trait;

use super::StoreError;
use crate::model::AuthContext;

/// Looks up API keys by the SHA-256 of the presented secret (D5).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ApiKeyStore: Send + Sync {
    /// The context of an active (unrevoked) key, or `Ok(None)` when no such key exists.
    /// Errors: `Unavailable`/`Internal` when storage fails.
    async fn authenticate(&self, key_sha256: [u8; 32]) -> Result<Option<AuthContext>, StoreError>;
}
