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
