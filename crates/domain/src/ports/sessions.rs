use async_trait::async_trait;

use super::StoreError;
use crate::model::{
    CheckoutSession, CheckoutSessionId, MerchantId, Mode, Page, PageRequest, SessionFilter,
    Timestamp,
};

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait SessionRepository: Send + Sync {
    /// Inserts a new session. Errors: storage failures (ids are random; a duplicate is one).
    async fn insert(&self, session: &CheckoutSession) -> Result<(), StoreError>;

    /// The session of this merchant and mode, if any.
    async fn get(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: CheckoutSessionId,
    ) -> Result<Option<CheckoutSession>, StoreError>;

    /// A session by id alone, for the public hosted page (the id is the capability).
    async fn get_public(
        &self,
        id: CheckoutSessionId,
    ) -> Result<Option<CheckoutSession>, StoreError>;

    /// Moves one open session past its expiry to `expired` and returns the row as it now
    /// is (a concurrent completion wins: the completed row is returned unchanged).
    /// Errors: `NotFound`.
    async fn expire(
        &self,
        id: CheckoutSessionId,
        now: Timestamp,
    ) -> Result<CheckoutSession, StoreError>;

    /// Newest first, keyset-paginated, each session as a reader sees it at `now` (an open
    /// session past its expiry is `expired`, D28), and so filtered by `status`.
    async fn list(
        &self,
        merchant: MerchantId,
        mode: Mode,
        filter: &SessionFilter,
        page: &PageRequest,
        now: Timestamp,
    ) -> Result<Page<CheckoutSession>, StoreError>;
}
