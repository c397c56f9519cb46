use futures_util::future::LocalBoxFuture;

use super::StoreError;
use crate::model::AuthContext;

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

    /// Runs `work` like `pinned`, on a connection it may share with the other `joined`
    /// scopes running on this thread at the time: their statements travel to the
    /// database together, so concurrent reads cost fewer round trips and wake-ups. For
    /// short reads outside any transaction: a slow statement delays those queued behind
    /// it. A store without such sharing runs it as `pinned`.
    /// Errors: as `pinned`.
    fn joined<'a>(
        &'a self,
        work: LocalBoxFuture<'a, ()>,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        self.pinned(work)
    }

    /// Runs `work` with its reads of `guess`'s merchant and mode (a resource, or a page)
    /// made on a condition, in the same statement: that the API key hashing to
    /// `key_sha256` is still `guess`'s and unrevoked. `Confirmed` when such a read found a
    /// row (the key stood as guessed when it ran); otherwise `Unconfirmed`, and the key
    /// may be revoked or the rows missing: the caller authenticates and runs its work again. A
    /// store that cannot make such reads runs `work` and answers `Unconfirmed`.
    /// Errors: as `pinned`.
    fn vouched<'a>(
        &'a self,
        key_sha256: [u8; 32],
        guess: &'a AuthContext,
        work: LocalBoxFuture<'a, ()>,
    ) -> LocalBoxFuture<'a, Result<Vouch, StoreError>> {
        let _ = (key_sha256, guess);
        Box::pin(async move {
            work.await;
            Ok(Vouch::Unconfirmed)
        })
    }

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

/// Whether the reads of a `vouched` scope showed its key standing as guessed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vouch {
    Confirmed,
    Unconfirmed,
}

/// Runs `work` as `RequestScope::vouched` does and returns its output beside the verdict.
/// Errors: as `vouched`; `work` then did not run.
pub async fn run_vouched<T>(
    scope: &dyn RequestScope,
    key_sha256: [u8; 32],
    guess: &AuthContext,
    work: impl std::future::Future<Output = T>,
) -> Result<(Vouch, T), StoreError> {
    let mut out = None;
    let slot = &mut out;
    let vouch = scope
        .vouched(
            key_sha256,
            guess,
            Box::pin(async move {
                *slot = Some(work.await);
            }),
        )
        .await?;
    let out =
        out.ok_or_else(|| StoreError::Internal("a vouched read ended without its result".into()))?;
    Ok((vouch, out))
}

/// How a request holds its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    /// One connection of its own (`RequestScope::pinned`).
    Pinned,
    /// A connection shared with concurrent reads (`RequestScope::joined`).
    Joined,
}

/// Runs `work` on one connection, held as `sharing` says, and returns its output.
/// Errors: as `pinned`; `work` then did not run.
pub async fn run_pinned<T>(
    scope: &dyn RequestScope,
    sharing: Sharing,
    work: impl std::future::Future<Output = T>,
) -> Result<T, StoreError> {
    let mut out = None;
    let slot = &mut out;
    let work = Box::pin(async move {
        *slot = Some(work.await);
    });
    match sharing {
        Sharing::Pinned => scope.pinned(work).await?,
        Sharing::Joined => scope.joined(work).await?,
    }
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
