//! Port implementations on [`crate::PgStore`], one file per port.

mod api_keys;
pub(crate) use api_keys::fee_tier;
mod dashboard;
mod dashboard_reads;
mod delivery_outcomes;
mod delivery_queue;
mod deposits;
mod endpoint_health;
mod idempotency;
pub(crate) mod keeper;
mod leader_lock;
pub(crate) mod ledger;
mod ledger_export;
mod outbox;
mod reader;
mod reconcile;
mod recoveries;
mod refunds;
mod relay_gas;
mod relayed;
mod resource_reader;
mod retention;
pub(crate) mod sender_attempts;
mod sender_ledger;
mod sessions;
mod settlement;
mod subscriptions;
mod sweeps;
mod wallets;
mod webhook_endpoints;

pub use delivery_queue::PgDeliveryQueue;
pub use leader_lock::PgAdvisoryLock;
pub use outbox::NOTIFY_CHANNEL;
pub use reconcile::latest_reconcile_at;
pub use relay_gas::relay_gas_at;
pub use relayed::REVERT_COOLDOWN_SECS;
