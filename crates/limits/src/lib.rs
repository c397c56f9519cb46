//! Request limits shared by both front ends, the JSON API (`crates/api`) and the HTML
//! pages (`crates/web`): the client's address as trusted proxies name it, a per-client
//! token bucket, and fixed windows counted on the domain's `Clock` port (so tests drive
//! them with a frozen clock, never the wall clock).

mod account_limit;
mod client_address;
mod rate_limit;
mod window_limit;

pub use account_limit::AccountRateLimiter;
pub use client_address::TrustedProxies;
pub use rate_limit::{ClientWindowLimiter, IpRateLimiter};
pub use window_limit::WindowLimiter;
