//! A session-level advisory lock on a dedicated connection: one active chain watcher
//! per chain across any number of workers. The lock dies with its connection, so a
//! crashed worker's chain is taken over by another.

use diesel::sql_types::{Bool, Int8};
use diesel::QueryableByName;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use tokio::sync::Mutex;

#[derive(QueryableByName)]
struct Locked {
    #[diesel(sql_type = Bool)]
    locked: bool,
}

pub struct PgAdvisoryLock {
    database_url: String,
    key: i64,
    conn: Mutex<Option<AsyncPgConnection>>,
}

impl PgAdvisoryLock {
    pub fn new(database_url: &str, key: i64) -> Self {
        Self {
            database_url: database_url.to_owned(),
            key,
            conn: Mutex::new(None),
        }
    }

    /// True while this process holds the lock (checks the connection is still alive).
    pub async fn hold(&self) -> bool {
        let mut guard = self.conn.lock().await;
        if let Some(conn) = guard.as_mut() {
            if diesel::sql_query("SELECT true AS locked")
                .get_result::<Locked>(conn)
                .await
                .is_ok()
            {
                return true;
            }
            *guard = None;
        }
        let Ok(mut conn) = AsyncPgConnection::establish(&self.database_url).await else {
            return false;
        };
        let got = diesel::sql_query("SELECT pg_try_advisory_lock($1) AS locked")
            .bind::<Int8, _>(self.key)
            .get_result::<Locked>(&mut conn)
            .await
            .is_ok_and(|r| r.locked);
        if got {
            *guard = Some(conn);
        }
        got
    }
}
