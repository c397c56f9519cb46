//! The one place that relies on diesel items diesel hides from its documentation
//! (`QueryFragment::to_sql` and `is_safe_to_cache_prepared`, and the transaction
//! manager's state behind the `i-implement-a-third-party-backend-and-opt-into-breaking-changes`
//! feature, declared in this crate's Cargo.toml). They may change in any release, so
//! the workspace pins `diesel` and `diesel-async` to exact versions and each assumption
//! below has a test here (`tests`, and `tests/diesel_internals.rs` against PostgreSQL);
//! a version bump that breaks one fails them.
//!
//! Why they are kept, each measured with `cargo xtask bench api` (docs/decisions.md):
//! - `Prepared`: diesel treats `sql_query`, every `UPDATE` and every insert with an
//!   optional column as unsafe to cache, so PostgreSQL parses and plans them anew each
//!   time. The statement cache is keyed by the SQL text and the bind types, so a statement
//!   whose text is a constant, or one of a few shapes (an insert whose optional columns
//!   are `DEFAULT` or bound), is safe to prepare once per connection. Measured 2026-11-28
//!   on 2 shared cores, the same build with `Prepared` made a no-op: creates 4,163 → 1,910
//!   per second, PostgreSQL 292 → 734 µs and the api 160 → 275 µs per create, p99 flat out
//!   18.2 → 27.5 ms.
//! - `RenderedOnce`: the text of a statement whose type fixes it is rendered once per
//!   thread: ~6 % of the api's CPU per GET (perf); with the router's DFA, the api's CPU per
//!   GET went 41 → 33 µs and GETs 57 → 68 % of select-only (49b96d9).
//! - `open_transaction` / `send_begin` / `end_transaction`: a request's `BEGIN` travels with its first
//!   statements instead of costing a round trip of its own: a create 7 → 5 round trips,
//!   creates 3,355 → 3,521 per second, p99 flat out 29.7 → 19.4 ms. `commit_behind`: its
//!   `COMMIT` travels with its last statement (the recorded answer): 5 → 4 round trips.

use std::any::TypeId;
use std::cell::RefCell;
use std::collections::HashMap;

use diesel::pg::{Pg, PgQueryBuilder};
use diesel::query_builder::{AstPass, Query, QueryBuilder, QueryFragment, QueryId};
use diesel::QueryResult;
use std::sync::Arc;

use diesel::connection::{TransactionDepthChange, TransactionManagerStatus};
use diesel_async::{
    AnsiTransactionManager, AsyncPgConnection, SimpleAsyncConnection, TransactionManager,
};
use stablepay_domain::ports::StoreError;
use tokio::sync::RwLock;

use crate::error::map_diesel_error;
use crate::pool::Pooled;

/// A statement whose text is a constant or one of a few shapes (binds vary).
#[derive(Debug, Clone)]
pub(crate) struct Prepared<Q>(pub Q);

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for Prepared<Q> {
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(pass)
    }

    // The cache key is the SQL text and the bind types, both fixed for a constant string.
    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> QueryResult<bool> {
        Ok(true)
    }
}

impl<Q> QueryId for Prepared<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query> Query for Prepared<Q> {
    type SqlType = Q::SqlType;
}

/// A statement whose SQL text its type fixes (diesel's static query id, safe to cache):
/// the text is built once per thread and copied after that. diesel-async renders every
/// statement's text before it looks up the prepared statement (by that same query id, so
/// the text of a cached one goes unused); for a resource read that walk of the select
/// list, quoting each column, was ~6 % of the api's CPU per GET (perf).
#[derive(Debug, Clone)]
pub(crate) struct RenderedOnce<Q>(pub Q);

thread_local! {
    /// Rendered texts by query id; one per statement shape the process runs.
    static TEXTS: RefCell<HashMap<TypeId, Box<str>>> = RefCell::new(HashMap::new());
}

impl<Q: QueryFragment<Pg> + QueryId> QueryFragment<Pg> for RenderedOnce<Q> {
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(pass)
    }

    fn to_sql(&self, out: &mut PgQueryBuilder, backend: &Pg) -> QueryResult<()> {
        // The same condition under which diesel's statement cache keys by type alone.
        let Some(id) =
            Q::query_id().filter(|_| self.0.is_safe_to_cache_prepared(backend).unwrap_or(false))
        else {
            return self.0.to_sql(out, backend);
        };
        let known = TEXTS.with(|texts| {
            texts
                .borrow()
                .get(&id)
                .map(|text| out.push_sql(text))
                .is_some()
        });
        if known {
            return Ok(());
        }
        let mut fresh = PgQueryBuilder::default();
        self.0.to_sql(&mut fresh, backend)?;
        let text = fresh.finish();
        out.push_sql(&text);
        TEXTS.with(|texts| texts.borrow_mut().insert(id, text.into_boxed_str()));
        Ok(())
    }

    fn is_safe_to_cache_prepared(&self, backend: &Pg) -> QueryResult<bool> {
        self.0.is_safe_to_cache_prepared(backend)
    }
}

impl<Q: QueryId> QueryId for RenderedOnce<Q> {
    type QueryId = Q::QueryId;
    const HAS_STATIC_QUERY_ID: bool = Q::HAS_STATIC_QUERY_ID;
}

impl<Q: Query> Query for RenderedOnce<Q> {
    type SqlType = Q::SqlType;
}

type Tm = AnsiTransactionManager;

/// Opens a transaction on `shared` in diesel's bookkeeping, before anything is sent (so
/// a nested `transaction()` makes a savepoint, and a connection dropped before
/// `end_transaction` is broken in the pool's eyes and never reused mid-transaction).
/// `send_begin` then sends the `BEGIN`.
/// Errors: `Internal` when the connection is in use or already in a transaction.
pub(crate) fn open_transaction(shared: &Arc<RwLock<Pooled>>) -> Result<(), StoreError> {
    let mut conn = shared.try_write().map_err(|_| {
        StoreError::Internal("a request transaction was opened on a busy connection".into())
    })?;
    open_on(&mut conn)
}

/// As `open_transaction`, once the statements running on `shared` are done (a unit begun
/// as one statement opens its transaction at a statement that may run beside a read).
/// Errors: `Internal` when the connection is already in a transaction.
pub(crate) async fn open_transaction_when_free(
    shared: &Arc<RwLock<Pooled>>,
) -> Result<(), StoreError> {
    open_on(&mut *shared.write().await)
}

fn open_on(conn: &mut Pooled) -> Result<(), StoreError> {
    let conn: &mut AsyncPgConnection = conn;
    let status: &mut TransactionManagerStatus =
        <Tm as TransactionManager<AsyncPgConnection>>::transaction_manager_status_mut(conn);
    let state = status.transaction_state().map_err(map_diesel_error)?;
    if state.transaction_depth().is_some() {
        return Err(StoreError::Internal(
            "a request transaction was opened inside another".into(),
        ));
    }
    state
        .change_transaction_depth(TransactionDepthChange::IncreaseDepth)
        .map_err(map_diesel_error)
}

/// Sends `BEGIN` for the transaction `open_transaction` opened, without waiting for an
/// answer before the statements issued right after it on the same connection: they
/// travel together.
/// Errors: `Unavailable` when `BEGIN` failed (the connection is then marked broken).
pub(crate) async fn send_begin(shared: &Arc<RwLock<Pooled>>) -> Result<(), StoreError> {
    let begun = {
        let conn = shared.clone().read_owned().await;
        let conn: &AsyncPgConnection = &conn;
        SimpleAsyncConnection::batch_execute(&mut &*conn, "BEGIN").await
    };
    if let Err(e) = begun {
        // BEGIN fails only with its connection, whose later statements then fail too;
        // should one have run anyway, it ran outside any transaction. Either way the
        // connection is not reused.
        let mut conn = shared.write().await;
        let conn: &mut AsyncPgConnection = &mut conn;
        <Tm as TransactionManager<AsyncPgConnection>>::transaction_manager_status_mut(conn)
            .set_in_error();
        return Err(StoreError::Unavailable(e.to_string()));
    }
    Ok(())
}

/// Commits (`commit`) or rolls back the transaction `open_transaction` opened, once the
/// statements sharing the connection are done.
/// Errors: `Unavailable` when the commit or rollback failed.
pub(crate) async fn end_transaction(
    shared: &Arc<RwLock<Pooled>>,
    commit: bool,
) -> Result<(), StoreError> {
    let mut conn = shared.write().await;
    let conn: &mut AsyncPgConnection = &mut conn;
    let ended = if commit {
        <Tm as TransactionManager<AsyncPgConnection>>::commit_transaction(conn).await
    } else {
        <Tm as TransactionManager<AsyncPgConnection>>::rollback_transaction(conn).await
    };
    ended.map_err(|e| match map_diesel_error(e) {
        StoreError::Internal(detail) => StoreError::Unavailable(detail),
        other => other,
    })
}

/// Ends the transaction `open_transaction` opened with a `COMMIT` sent right behind the
/// statement `last` sends, without waiting for `last`'s answer: should `last` fail,
/// PostgreSQL finds the transaction aborted and the `COMMIT` rolls it back. `last` is
/// polled first and takes the connection's statement cache before the `COMMIT` asks for
/// it (an uncached statement is prepared under that lock), so the `COMMIT` never
/// overtakes it. Returns `last`'s output and whether the transaction ended: committed
/// if `last` succeeded, else rolled back.
/// Errors: `Unavailable` when the `COMMIT` failed (the connection is then marked broken).
pub(crate) async fn commit_behind<T>(
    shared: &Arc<RwLock<Pooled>>,
    last: impl std::future::Future<Output = T>,
) -> (T, Result<(), StoreError>) {
    let commit = async {
        let conn = shared.clone().read_owned().await;
        let conn: &AsyncPgConnection = &conn;
        diesel_async::RunQueryDsl::execute(Prepared(diesel::sql_query("COMMIT")), &mut &*conn).await
    };
    let (out, committed) = futures_util::future::join(last, commit).await;
    let mut conn = shared.write().await;
    let conn: &mut AsyncPgConnection = &mut conn;
    let status =
        <Tm as TransactionManager<AsyncPgConnection>>::transaction_manager_status_mut(conn);
    let ended = match committed {
        Ok(_) => status
            .transaction_state()
            .and_then(|state| state.change_transaction_depth(TransactionDepthChange::DecreaseDepth))
            .map_err(|e| StoreError::Unavailable(e.to_string())),
        Err(e) => {
            status.set_in_error();
            Err(StoreError::Unavailable(e.to_string()))
        }
    };
    (out, ended)
}

#[cfg(test)]
mod tests {
    use diesel::prelude::*;

    use super::RenderedOnce;
    use crate::schema::checkout_sessions as cs;

    fn id_of<T: diesel::query_builder::QueryId>(_: &T) -> Option<std::any::TypeId> {
        T::query_id()
    }

    fn text(q: &impl diesel::query_builder::QueryFragment<diesel::pg::Pg>) -> String {
        diesel::debug_query::<diesel::pg::Pg, _>(q).to_string()
    }

    #[test]
    fn a_fixed_statement_renders_as_its_query_with_its_own_binds() {
        let by = |title: &'static str| {
            cs::table
                .filter(cs::title.eq(title))
                .select(cs::id)
                .limit(1)
        };
        // The first rendering builds the text, the second copies it: both equal diesel's,
        // and each carries its own binds.
        assert_eq!(text(&RenderedOnce(by("a"))), text(&by("a")));
        assert_eq!(text(&RenderedOnce(by("b"))), text(&by("b")));
        assert!(text(&RenderedOnce(by("b"))).contains("\"b\""));
        let id = id_of(&by("a")).expect("a static query id");
        assert!(super::TEXTS.with(|texts| texts.borrow().contains_key(&id)));
    }

    #[test]
    fn a_statement_whose_text_its_type_does_not_fix_is_rendered_each_time() {
        // Boxed queries share one type whatever their filters (no static query id).
        let boxed = |filtered: bool| {
            let mut q = cs::table.select(cs::id).into_boxed();
            if filtered {
                q = q.filter(cs::title.eq("a"));
            }
            q
        };
        assert_eq!(text(&RenderedOnce(boxed(false))), text(&boxed(false)));
        assert_eq!(text(&RenderedOnce(boxed(true))), text(&boxed(true)));
        assert_ne!(text(&RenderedOnce(boxed(true))), text(&boxed(false)));
        // `eq_any` (one array bind in PostgreSQL) has no static query id either.
        let any = |ids: Vec<String>| cs::table.filter(cs::title.eq_any(ids)).select(cs::id);
        assert_eq!(
            text(&RenderedOnce(any(vec!["a".into()]))),
            text(&any(vec!["a".into()]))
        );
        assert_eq!(
            text(&RenderedOnce(any(vec!["a".into(), "b".into()]))),
            text(&any(vec!["a".into(), "b".into()]))
        );
    }
}
