use async_trait::async_trait;

use super::StoreError;
use crate::model::{ApiKeyId, ApiKeySummary, Changer, FeeTier, Merchant, MerchantId, Timestamp};

/// What the operator's command line manages across merchants; never reachable from the
/// API or the dashboard, which act for one merchant at a time.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait MerchantAdmin: Send + Sync {
    /// Stores a new merchant. Errors: `Unavailable`/`Internal`.
    async fn create_merchant(&self, name: &str, tier: FeeTier) -> Result<Merchant, StoreError>;

    /// Changes a merchant's fee tier (new sessions snapshot it).
    /// Errors: `NotFound` for an unknown merchant; `Unavailable`/`Internal`.
    async fn set_fee_tier(&self, merchant: MerchantId, tier: FeeTier) -> Result<(), StoreError>;

    /// Every merchant, oldest first. Errors: `Unavailable`/`Internal`.
    async fn merchants(&self) -> Result<Vec<Merchant>, StoreError>;

    /// Every API key, or one merchant's, oldest first. Errors: `Unavailable`/`Internal`.
    async fn api_keys(
        &self,
        merchant: Option<MerchantId>,
    ) -> Result<Vec<ApiKeySummary>, StoreError>;

    /// Revokes an active key of any merchant at `at` (it stops working on the very next
    /// request) and stores the audit entry of `by`'s change (`rules::audit::key_revoked`,
    /// under the key's merchant and mode), in one transaction. Errors: `NotFound` when no
    /// such active key exists; `Unavailable`/`Internal`.
    async fn revoke_any_api_key(
        &self,
        id: ApiKeyId,
        by: &Changer,
        at: Timestamp,
    ) -> Result<(), StoreError>;
}
