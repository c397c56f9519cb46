//! Screening payers (D33): the sources that answer whether an address is sanctioned, and
//! the log that keeps every answer as the merchant's proof.

use async_trait::async_trait;

use super::StoreError;
use crate::model::{Address, ChainId, ScreeningCheck, SourceAnswer};

/// One sanctions source: the on-chain oracle analytics vendors publish, or a list the
/// operator imported. Never errors: a source that cannot answer in time says
/// `ScreeningAnswer::Unknown`, which no rule takes for clear.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait SanctionsSource: Send + Sync {
    /// Whether this source answers for `chain` (an oracle is deployed per chain; a list
    /// of EVM addresses answers for every chain).
    fn covers(&self, chain: ChainId) -> bool;

    /// What this source says of `address` on `chain` now, with its name and list version.
    async fn check(&self, chain: ChainId, address: Address) -> SourceAnswer;
}

/// Where every check is kept (address, chain, source and version, answer, time, path).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ScreeningLog: Send + Sync {
    /// Stores `checks`, all or none. Errors: `Unavailable`/`Internal`.
    async fn record_checks(&self, checks: &[ScreeningCheck]) -> Result<(), StoreError>;

    /// The checks made for one of the merchant's sessions in `mode`, oldest first (at most
    /// 100): the proof shown on its payments.
    async fn checks_of_session(
        &self,
        merchant: crate::model::MerchantId,
        mode: crate::model::Mode,
        session: crate::model::CheckoutSessionId,
    ) -> Result<Vec<ScreeningCheck>, StoreError>;

    /// The merchant's own screening choice per mode (D33), read only where the operator
    /// leaves it to the merchant. An unknown merchant has made none. Errors:
    /// `Unavailable`/`Internal` (the payment is then refused or deferred, never cleared).
    async fn merchant_screening(
        &self,
        merchant: crate::model::MerchantId,
    ) -> Result<crate::rules::screening::MerchantScreening, StoreError>;
}

/// An imported list's version as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedList {
    pub name: String,
    /// 1 for a name's first import, one more for each after.
    pub version: i64,
    pub format: String,
    pub published: Option<String>,
    pub entries: usize,
    pub imported_at: crate::model::Timestamp,
}

/// The operator's imported lists.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait SanctionsListStore: Send + Sync {
    /// Stores `list` as the next version of `name`, all of it or nothing; lookups read it
    /// from then on. Errors: `Unavailable`/`Internal`.
    async fn import_list(
        &self,
        name: &str,
        list: &crate::rules::sanctions_list::ParsedList,
        at: crate::model::Timestamp,
    ) -> Result<ImportedList, StoreError>;

    /// The newest version of every imported list, by name.
    async fn imported_lists(&self) -> Result<Vec<ImportedList>, StoreError>;
}
