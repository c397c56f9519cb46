//! Route handlers: parse input into domain types, call one use case, render.

pub mod checkout_sessions;
pub mod hosted;
pub mod hosted_authorization;
pub mod payment_links;
pub mod payment_reviews;
pub mod portal;
pub mod reads;
pub mod refund_requests;
pub mod refunds;
pub mod wallets;
pub mod webhook_endpoints;
pub mod webhook_events;
pub mod x402;
pub mod x402_facilitator;
