//! Repository behaviour against a real PostgreSQL (fresh database per test), one module
//! per subject.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(unused_imports)]

pub use diesel::prelude::*;
pub use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
pub use stablepay_domain::ports::*;
pub use stablepay_domain::ports::{RelayRecords, SenderLedger, SentRelays};
pub use stablepay_domain::services::register_wallet;
pub use stablepay_domain::*;
pub use stablepay_postgres::testing::{fresh_store, idempotency_scope, new_merchant};

mod clock;
mod idempotency;
mod relays;
mod secrets;
mod settings;
mod wallets;
