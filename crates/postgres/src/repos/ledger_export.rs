//! The ledger export (D32): every entry a filter selects, oldest first, read in batches by
//! keyset as the response is written, so memory stays one batch whatever the row count
//! and no connection is held between batches.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use futures_util::StreamExt;
use stablepay_domain::ports::StoreError;
use stablepay_domain::*;
use stablepay_request_store::{Checked, LedgerBatches};
use uuid::Uuid;

use super::reader::{ledger_filtered, scoped};
use crate::key_check::{load_checked, KeyCheck};
use crate::rows::BalanceTransactionRow;
use crate::schema::balance_transactions as bt;
use crate::PgStore;

/// Rows per batch: about 0.5 MB of rows in flight, and 1,000 statements for 1M rows.
const EXPORT_BATCH: i64 = 1_000;

/// Where the export stands between batches.
enum Next {
    /// A batch read, to be yielded; more may follow it if it was full.
    Yield(Vec<BalanceTransaction>),
    /// Read the batch after this id.
    After(Uuid),
    Done,
}

impl PgStore {
    pub(crate) async fn export_balance_transactions(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        mode: Mode,
        filter: &BalanceTransactionFilter,
    ) -> Result<Checked<LedgerBatches>, StoreError> {
        let (first, checked) = self
            .ledger_batch(check, merchant, mode, filter, None)
            .await?
            .take();
        // Later batches take a pooled connection each, not the request's.
        let mut store = self.clone();
        store.bound = None;
        let state = (Next::Yield(first), store, filter.clone());
        let batches =
            futures_util::stream::unfold(state, move |(next, store, filter)| async move {
                let rows = match next {
                    Next::Done => return None,
                    Next::Yield(rows) => rows,
                    Next::After(id) => match store
                        .ledger_batch(None, merchant, mode, &filter, Some(id))
                        .await
                    {
                        Ok(rows) => rows.into_value(),
                        Err(e) => return Some((Err(e), (Next::Done, store, filter))),
                    },
                };
                let then = match rows.last() {
                    Some(last) if rows.len() as i64 == EXPORT_BATCH => Next::After(last.id.uuid()),
                    Some(_) => Next::Done,
                    None => return None,
                };
                Some((Ok(rows), (then, store, filter)))
            });
        Ok(checked.map(|()| batches.boxed()))
    }

    /// Up to `EXPORT_BATCH` entries after `after`, oldest first, in the order of the
    /// scoped index (merchant, mode, id).
    async fn ledger_batch(
        &self,
        check: Option<&KeyCheck>,
        merchant: MerchantId,
        mode: Mode,
        filter: &BalanceTransactionFilter,
        after: Option<Uuid>,
    ) -> Result<Checked<Vec<BalanceTransaction>>, StoreError> {
        let mut q = ledger_filtered!(merchant, mode, filter);
        if let Some(after) = after {
            q = q.filter(bt::id.gt(after));
        }
        let q = q
            .order((bt::merchant_id.asc(), bt::livemode.asc(), bt::id.asc()))
            .limit(EXPORT_BATCH);
        let rows: Checked<Vec<BalanceTransactionRow>> =
            load_checked!(self, check, q, merchant, mode);
        let (entries, checked) = rows
            .try_map(|rows| {
                rows.into_iter()
                    .map(TryInto::try_into)
                    .collect::<Result<Vec<BalanceTransaction>, StoreError>>()
            })?
            .take();
        let entries = self.with_reviews(entries).await?;
        Ok(checked.map(|()| entries))
    }
}
