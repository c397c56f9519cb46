//! Use cases, one per file. Each takes the ports it needs as `&dyn` references.

mod administer_merchants;
mod bill_subscriptions;
mod book_ledger;
mod complete_dashboard_setup;
mod confirm_refund_address;
mod continue_recovery;
mod create_checkout_session;
mod create_refund_request;
mod dashboard_session;
mod deliver_event;
mod enroll_totp;
#[cfg(test)]
pub(crate) mod fixtures;
mod follow_relays;
pub mod follow_sent_work;
mod hosted_authorization;
mod hosted_checkout;
mod import_sanctions_list;
mod invite_dashboard_user;
mod list_checkout_sessions;
mod manage_api_keys;
mod manage_payment_links;
mod manage_webhook_endpoints;
mod open_payment_link;
mod pause_subscriptions;
mod pay_by_x402;
mod portal_cancel;
mod purge_expired_records;
mod read_checkout_session;
mod recheck_booked_payments;
mod recheck_pending_payment;
mod reconcile_ledger;
mod record_refund;
mod recover_endpoint;
mod register_wallet;
mod requote_checkout_session;
mod resend_event;
mod review_payment;
mod revoke_wallet;
pub(crate) mod scan_chain;
mod screen_payer;
mod screen_subscriber;
mod send_test_event;
mod set_screening_choice;
mod set_underpayment_tolerance;
mod settle_checkout;
mod settle_deposit;
pub(crate) mod settle_subscription;
mod sign_in;
mod signatures;
mod sweep_deposits;
mod verify_wallet;
mod write_billing;
mod x402_facilitator;

pub use administer_merchants::*;
pub use bill_subscriptions::*;
pub use complete_dashboard_setup::*;
pub use confirm_refund_address::*;
pub use continue_recovery::*;
pub use create_checkout_session::*;
pub use create_refund_request::*;
pub use dashboard_session::*;
pub use deliver_event::*;
pub use enroll_totp::*;
pub use follow_relays::*;
pub use follow_sent_work::{follow_unmined, SendingDeps, Unmined};
pub use hosted_authorization::*;
pub use hosted_checkout::*;
pub use import_sanctions_list::*;
pub use invite_dashboard_user::*;
pub use list_checkout_sessions::*;
pub use manage_api_keys::*;
pub use manage_payment_links::*;
pub use manage_webhook_endpoints::*;
pub use open_payment_link::*;
pub use pause_subscriptions::*;
pub use pay_by_x402::*;
pub use portal_cancel::*;
pub use purge_expired_records::*;
pub use read_checkout_session::*;
pub use recheck_booked_payments::*;
pub use recheck_pending_payment::*;
pub use reconcile_ledger::*;
pub use record_refund::*;
pub use recover_endpoint::*;
pub use register_wallet::*;
pub use requote_checkout_session::*;
pub use resend_event::*;
pub use review_payment::*;
pub use revoke_wallet::*;
pub use scan_chain::*;
pub use screen_payer::*;
pub(crate) use screen_subscriber::screen_subscriber;
pub use send_test_event::*;
pub use set_screening_choice::*;
pub use set_underpayment_tolerance::*;
pub use settle_checkout::*;
pub use settle_deposit::*;
pub use settle_subscription::*;
pub use sign_in::*;
pub use signatures::*;
pub use sweep_deposits::*;
pub use verify_wallet::*;
pub(crate) use write_billing::*;
pub use x402_facilitator::*;

use crate::model::{Missing, TypedId};
use crate::ports::StoreError;

/// Failures shared by the simple read use cases.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error(transparent)]
    NotFound(Missing),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl LookupError {
    /// A storage error of a lookup of `id`: `NotFound` names the resource.
    pub fn from_store<T: TypedId + std::fmt::Display>(e: StoreError, id: T) -> Self {
        match e {
            StoreError::NotFound => LookupError::NotFound(Missing::of(id)),
            e => LookupError::Store(e),
        }
    }
}
