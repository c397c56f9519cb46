//! Raw statements that diesel would otherwise re-parse on every execution.
//!
//! diesel treats `sql_query`, every `UPDATE` and every insert with an optional column as
//! unsafe to cache, so PostgreSQL parses and plans them anew each time; on the request
//! path that parsing was most of the database's CPU. The statement cache is keyed by the
//! SQL text and the bind types, so a statement whose text is a constant, or one of a few
//! shapes (an insert whose optional columns are `DEFAULT` or bound), is safe to prepare
//! once per connection: wrap it in `Prepared`.

use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::QueryResult;

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
