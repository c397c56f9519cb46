use async_trait::async_trait;

use super::StoreError;
use crate::model::{
    FeeTier, MerchantId, Mode, Page, PageRequest, PaymentLink, PaymentLinkId, UnderpaymentTolerance,
};

/// A link found by its public URL, with what a visit needs of its merchant to open a
/// session on their behalf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisitedLink {
    pub link: PaymentLink,
    pub fee_tier: FeeTier,
    pub underpayment_tolerance: UnderpaymentTolerance,
}

/// Payment links (D34). Every link read carries its `completed_count`, counted from its
/// sessions when it is read.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait PaymentLinkRepository: Send + Sync {
    /// Stores a new link. Errors: `Unavailable`/`Internal`.
    async fn insert_link(&self, link: &PaymentLink) -> Result<(), StoreError>;

    /// One of the merchant's links in `mode`.
    async fn link(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: PaymentLinkId,
    ) -> Result<Option<PaymentLink>, StoreError>;

    /// The merchant's links in `mode`, newest first.
    async fn links(
        &self,
        merchant: MerchantId,
        mode: Mode,
        page: &PageRequest,
    ) -> Result<Page<PaymentLink>, StoreError>;

    /// Turns the link on or off; the link as it now is. Errors: `NotFound`.
    async fn set_link_active(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: PaymentLinkId,
        active: bool,
    ) -> Result<PaymentLink, StoreError>;

    /// A link by its id alone: its public URL, where the id is the capability.
    async fn visited_link(&self, id: PaymentLinkId) -> Result<Option<VisitedLink>, StoreError>;
}
