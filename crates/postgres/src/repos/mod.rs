//! Port implementations on [`crate::PgStore`], one file per port.

mod api_keys;
pub(crate) use api_keys::fee_tier;
mod idempotency;
mod reader;
mod sessions;
mod wallets;
mod webhook_endpoints;
