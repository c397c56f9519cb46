//! HTTP tests of the real API against a fresh PostgreSQL database per test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod audit_events;
mod auth_errors;
mod checkout_sessions;
mod dashboard;
mod idempotency;
mod openapi_served;
mod payment_links;
mod reads;
mod support;
mod tenant_isolation;
mod wallets;
mod webhook_endpoints;
