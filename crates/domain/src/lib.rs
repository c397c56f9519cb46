//! stablepay's domain: every business rule lives here, free of I/O.
//!
//! - [`model`]: newtypes and entities (parse, don't validate).
//! - [`rules`]: pure functions (fees, validation, signatures, state transitions).
//! - [`ports`]: the traits adapters implement; mockall mocks behind the `mocks` feature.
//! - [`services`]: use cases, one per file, written against the ports.

pub mod deployment;
pub mod model;
pub mod ports;
pub mod representation;
pub mod rules;
pub mod services;

pub use model::*;
