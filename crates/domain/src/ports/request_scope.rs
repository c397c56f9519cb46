use futures_util::future::LocalBoxFuture;

use super::StoreError;

/// How the storage work of one API request is grouped.
///
/// Ports stay coarse (one call, one consistent change); a request scope only decides
/// that a request's calls share one connection and, where asked, one transaction, so a
/// create and its idempotency record commit together or not at all.
pub trait RequestScope: Send + Sync {
    /// Runs `work` with every storage call made from the current task on one pooled
    /// connection.
    /// Errors: `Unavailable` when no connection comes in time.
    fn pinned<'a>(
        &'a self,
        work: LocalBoxFuture<'a, ()>,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>>;

    /// Runs `work` inside one transaction on the task's pinned connection (or one of its
    /// own), committed when `work` resolves to `Commit` and rolled back otherwise, also
    /// when the future is dropped (the connection is then discarded, never reused
    /// mid-transaction).
    /// Errors: `Unavailable` when no connection comes in time or the commit fails; the
    /// caller must then not report the work as done.
    fn transaction<'a>(
        &'a self,
        work: LocalBoxFuture<'a, ScopeEnd>,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>>;
}

/// How a scoped transaction ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeEnd {
    Commit,
    Rollback,
}

/// Runs `work` pinned to one connection (`RequestScope::pinned`) and returns its output.
/// Errors: as `pinned`; `work` then did not run.
pub async fn run_pinned<T>(
    scope: &dyn RequestScope,
    work: impl std::future::Future<Output = T>,
) -> Result<T, StoreError> {
    let mut out = None;
    let slot = &mut out;
    scope
        .pinned(Box::pin(async move {
            *slot = Some(work.await);
        }))
        .await?;
    out.ok_or_else(|| StoreError::Internal("a pinned request ended without its result".into()))
}

/// Runs `work` in one transaction (`RequestScope::transaction`), committed when `commit`
/// says so of its output, and returns that output.
/// Errors: as `transaction`; the output is then not to be reported as done.
pub async fn run_in_transaction<T>(
    scope: &dyn RequestScope,
    work: impl std::future::Future<Output = T>,
    commit: impl FnOnce(&T) -> bool,
) -> Result<T, StoreError> {
    let mut out = None;
    let slot = &mut out;
    scope
        .transaction(Box::pin(async move {
            let result = work.await;
            let end = if commit(&result) {
                ScopeEnd::Commit
            } else {
                ScopeEnd::Rollback
            };
            *slot = Some(result);
            end
        }))
        .await?;
    out.ok_or_else(|| StoreError::Internal("a transaction ended without its result".into()))
}
