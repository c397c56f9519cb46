//! The operator's import of a sanctions list (D33): the file read into EVM addresses, then
//! stored whole as the next version of its name, which lookups read from then on.

use crate::ports::{Clock, ImportedList, SanctionsListStore, StoreError};
use crate::rules::sanctions_list::{parse_list, parse_list_name, ListError, ParsedList};

/// What an import read and stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListImport {
    pub stored: ImportedList,
    pub skipped_other_currencies: usize,
    pub duplicates: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum ImportListError {
    #[error("--source: {0}")]
    Name(String),
    #[error(transparent)]
    File(#[from] ListError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub async fn import_sanctions_list(
    name: &str,
    text: &str,
    store: &dyn SanctionsListStore,
    clock: &dyn Clock,
) -> Result<ListImport, ImportListError> {
    let name = parse_list_name(name).map_err(ImportListError::Name)?;
    let list: ParsedList = parse_list(text)?;
    let stored = store.import_list(&name, &list, clock.now()).await?;
    Ok(ListImport {
        stored,
        skipped_other_currencies: list.skipped_other_currencies,
        duplicates: list.duplicates,
    })
}
