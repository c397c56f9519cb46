use async_trait::async_trait;

use super::{EventDraft, StoreError};
use crate::model::{AuditEvent, MerchantId, Mode, RefundRequest, RefundRequestId};

/// Refund requests (D32). Every write is one transaction with what it fires.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait RefundRequestStore: Send + Sync {
    /// Stores a new request and `audit`. Errors: `Unavailable`/`Internal`.
    async fn insert_request(
        &self,
        request: &RefundRequest,
        audit: &AuditEvent,
    ) -> Result<(), StoreError>;

    /// One of the merchant's requests in `mode`.
    async fn request(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: RefundRequestId,
    ) -> Result<Option<RefundRequest>, StoreError>;

    /// A request by its id alone: the customer's page, where the id is the capability.
    async fn request_by_id(&self, id: RefundRequestId)
        -> Result<Option<RefundRequest>, StoreError>;

    /// Stores `confirmed` (status `address_confirmed`, its destination and how it was
    /// confirmed) and `event`, in one transaction, only if the stored request still awaits
    /// an address and has not expired at `confirmed.address_confirmed_at`; `false` (nothing
    /// written) otherwise.
    async fn confirm_address(
        &self,
        confirmed: &RefundRequest,
        event: &EventDraft,
    ) -> Result<bool, StoreError>;
}
