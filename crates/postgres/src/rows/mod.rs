//! Row types (`XRow` read, `NewX` insert) and their conversions into domain types.
//! A row that cannot become a domain value is reported as corrupt, never unwrapped.

mod audit;
pub(crate) mod conv;
mod deposit;
mod endpoint;
mod ledger;
mod payment_link;
mod read_models;
mod refund_request;
mod session;
mod subscription;
mod wallet;

pub(crate) use audit::AuditEventRow;
pub(crate) use conv::{address, to_i64, tx_hash};
pub(crate) use deposit::*;
pub(crate) use endpoint::*;
pub(crate) use ledger::BalanceTransactionRow;
pub(crate) use payment_link::PaymentLinkRow;
pub(crate) use read_models::*;
pub(crate) use refund_request::RefundRequestRow;
pub(crate) use session::*;
pub(crate) use subscription::*;
pub(crate) use wallet::*;
