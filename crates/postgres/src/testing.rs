//! Test support: a fresh, migrated database per test, on the server `DATABASE_URL`
//! points at (`cargo xtask test` provides one).

use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

use crate::{run_migrations, PgStore, PoolConfig, SecretCipher};

/// The admin URL from the environment.
pub fn admin_url() -> String {
    std::env::var("DATABASE_URL").unwrap_or_else(|_| {
        panic!("DATABASE_URL is not set: run the tests through `cargo xtask test`, which starts PostgreSQL")
    })
}

/// Replaces the database name in a postgres URL.
pub fn with_database(url: &str, name: &str) -> String {
    let scheme_end = url.find("://").map(|i| i + 3).unwrap_or(0);
    let (base, query) = match url.find('?') {
        Some(q) => (&url[..q], &url[q..]),
        None => (url, ""),
    };
    let base = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    format!("{base}/{name}{query}")
}

/// Creates `stablepay_test_<uuid>`, migrates it, and returns its URL.
pub async fn fresh_database() -> String {
    let admin = admin_url();
    let name = format!("stablepay_test_{}", uuid::Uuid::now_v7().simple());
    let mut conn = AsyncPgConnection::establish(&admin).await.expect("connect to DATABASE_URL");
    diesel::sql_query(format!("CREATE DATABASE {name}")).execute(&mut conn).await.expect("create test database");
    let url = with_database(&admin, &name);
    run_migrations(&url).await.expect("migrate test database");
    url
}

/// A store on a fresh database.
pub async fn fresh_store() -> (PgStore, String) {
    let url = fresh_database().await;
    let store = PgStore::connect(&url, &PoolConfig::default(), SecretCipher::new(&[7u8; 32]).expect("key"))
        .expect("pool");
    (store, url)
}

