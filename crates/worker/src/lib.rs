//! stablepay's background worker: webhook delivery (and the rest of endpoint recoveries),
//! the chain watchers, subscription billing by the keeper, relays and deposit sweeps
//! through one sender, and retention. Any number of instances may run; they share work
//! through leased claims and advisory locks in PostgreSQL. Each loop is a shell around
//! a domain use case, paced by [`pause::pause`].

pub mod billing_loop;
pub mod chain_watcher;
pub mod config;
pub mod delivery_loop;
pub mod pause;
pub mod reconcile_loop;
pub mod recovery_loop;
pub mod relay_loop;
pub mod retention_loop;
pub mod sending_ports;
pub mod settle_ports;
pub mod sweep_loop;
