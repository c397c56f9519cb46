//! stablepay's background worker: the webhook delivery loop. Any number of instances
//! may run; they share work through leased claims in PostgreSQL.

pub mod chain_watcher;
pub mod config;
pub mod delivery_loop;
