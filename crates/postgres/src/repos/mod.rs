//! Port implementations on [`crate::PgStore`], one file per port.

mod api_keys;
pub(crate) use api_keys::fee_tier;
mod idempotency;
mod reader;
mod sessions;
mod wallets;
mod webhook_endpoints;
mod delivery_queue;
mod outbox;

pub use delivery_queue::PgDeliveryQueue;
pub use outbox::NOTIFY_CHANNEL;
