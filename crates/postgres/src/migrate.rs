use diesel::Connection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_async::AsyncPgConnection;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations");

/// Applies every pending migration; returns how many ran.
pub async fn run_migrations(database_url: &str) -> Result<usize, String> {
    let url = database_url.to_owned();
    // diesel_migrations is synchronous: run it on a blocking thread through the wrapper.
    tokio::task::spawn_blocking(move || {
        let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(&url)
            .map_err(|e| format!("connect: {e}"))?;
        conn.run_pending_migrations(MIGRATIONS)
            .map(|v| v.len())
            .map_err(|e| format!("migrate: {e}"))
    })
    .await
    .map_err(|e| format!("migrate task: {e}"))?
}

/// The versions of the migrations not applied yet (empty: the schema is current).
pub async fn pending_migrations(database_url: &str) -> Result<Vec<String>, String> {
    let url = database_url.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(&url)
            .map_err(|e| format!("connect: {e}"))?;
        conn.pending_migrations(MIGRATIONS)
            .map(|v| v.iter().map(|m| m.name().version().to_string()).collect())
            .map_err(|e| format!("read migrations: {e}"))
    })
    .await
    .map_err(|e| format!("migrations task: {e}"))?
}

/// Reverts the newest applied migration; returns its version (tests of an upgrade path).
#[cfg(any(test, feature = "testing"))]
pub(crate) async fn revert_last(database_url: &str) -> Result<String, String> {
    let url = database_url.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(&url)
            .map_err(|e| format!("connect: {e}"))?;
        conn.revert_last_migration(MIGRATIONS)
            .map(|v| v.to_string())
            .map_err(|e| format!("revert: {e}"))
    })
    .await
    .map_err(|e| format!("migrations task: {e}"))?
}
