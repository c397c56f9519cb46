//! PostgreSQL adapter for stablepay: schema, row types (`XRow`, `NewX`), repositories
//! implementing the domain's ports, the idempotency store and the migration runner.
//!
//! Every SQL statement of the service lives in this crate.

mod admin;
mod cipher;
mod diesel_internals;
mod error;
mod key_check;
mod migrate;
mod one_statement;
mod pool;
mod repos;
mod request_reads;
mod request_store;
mod reseal;
mod rows;
pub mod schema;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod verified_wallets;

pub use admin::{CreatedKey, KeySummary};
pub use cipher::{CipherError, SecretCipher};
pub use error::map_diesel_error;
pub use migrate::{pending_migrations, run_migrations};
pub use pool::{PgStore, PoolConfig, Readiness};
pub use repos::{imported_lists_at, latest_reconcile_at, relay_gas_at, PgSanctionsList};
pub use repos::{PgAdvisoryLock, PgDeliveryQueue, NOTIFY_CHANNEL, REVERT_COOLDOWN_SECS};
pub use reseal::Resealed;
