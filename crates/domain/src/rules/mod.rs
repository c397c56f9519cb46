//! Pure functions: fee arithmetic, field validation, signatures.

pub mod api_keys;
pub mod audit;
pub mod backoff;
pub mod confirmations;
pub mod dashboard_auth;
pub mod delivery;
pub mod deposit;
pub mod deposit_books;
pub mod dunning;
pub mod eip191;
pub mod eip3009;
pub mod eip712;
pub mod endpoint_health;
pub mod envelope;
pub mod fees;
pub mod ledger;
pub mod plans;
pub mod refund_requests;
pub mod relay_budget;
pub mod resend;
pub mod test_events;
pub mod totp;
pub mod validation;
pub mod webhook_signing;
pub mod x402;
