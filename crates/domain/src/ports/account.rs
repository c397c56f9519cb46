use async_trait::async_trait;

use super::StoreError;
use crate::model::{AuditEvent, MerchantId, Mode, Page, PageRequest, UnderpaymentTolerance};

/// The audit log as the dashboard reads it (D32). Nothing writes it on its own: each
/// audited change stores its entry in the change's own transaction, through the port
/// method that makes the change.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait AuditLog: Send + Sync {
    /// A page of the merchant's entries of `mode` and of the account as a whole, newest
    /// first. Errors: `Unavailable`/`Internal`.
    async fn audit_events(
        &self,
        merchant: MerchantId,
        mode: Mode,
        page: &PageRequest,
    ) -> Result<Page<AuditEvent>, StoreError>;
}

/// The merchant's own settings (D32's default tolerance); each change is audited.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait MerchantSettings: Send + Sync {
    /// Sets the merchant's default underpayment tolerance and stores `audit`, its `before`
    /// replaced by the value the setting held, in one transaction. Errors: `NotFound` for
    /// an unknown merchant; `Unavailable`/`Internal`.
    async fn set_underpayment_tolerance(
        &self,
        merchant: MerchantId,
        tolerance: UnderpaymentTolerance,
        audit: &AuditEvent,
    ) -> Result<(), StoreError>;

    /// Sets the merchant's own screening choice (D33) and stores `audit`, its `before`
    /// replaced by the choice it held, in one transaction. Errors: `NotFound` for an
    /// unknown merchant; `Unavailable`/`Internal`.
    async fn set_screening(
        &self,
        merchant: MerchantId,
        choice: crate::rules::screening::MerchantScreening,
        audit: &AuditEvent,
    ) -> Result<(), StoreError>;
}
