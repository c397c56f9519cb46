//! The one retry loop for billing writes decided from the subscription alone (pause,
//! resume, portal cancel, claim holds, closing a keeper charge): decide from the record,
//! write conditionally on its version, and on `Stale` decide again from a fresh read.

use crate::ports::{
    BillingWrite, SettlementWrite, StoreError, SubscriptionRecord, SubscriptionStore,
};

/// Concurrent writers lose at most this many times in a row before the caller gives up
/// (settlement and billing writes alike).
pub(crate) const WRITE_ATTEMPTS: usize = 4;

/// What `write_billing` did.
#[derive(Debug)]
pub(crate) enum BillingWriteOutcome {
    Written,
    /// The decision was to write nothing, on this (fresh) record.
    NothingToWrite(SubscriptionRecord),
    /// The subscription no longer exists.
    Gone,
    /// Other writers won every attempt.
    Contended,
}

impl BillingWrite {
    /// A write of `subscription` as it is, with nothing else.
    pub fn state_only(subscription: SubscriptionRecord) -> Self {
        Self {
            subscription,
            payment: None,
            attempt: None,
            events: Vec::new(),
            settles_charge_tx: None,
            ledger: Vec::new(),
            hold_until: None,
        }
    }
}

pub(crate) async fn write_billing(
    store: &dyn SubscriptionStore,
    mut rec: SubscriptionRecord,
    decide: impl Fn(&SubscriptionRecord) -> Option<BillingWrite>,
) -> Result<BillingWriteOutcome, StoreError> {
    for _ in 0..WRITE_ATTEMPTS {
        let Some(write) = decide(&rec) else {
            return Ok(BillingWriteOutcome::NothingToWrite(rec));
        };
        match store.record_billing(&write).await? {
            SettlementWrite::Written => return Ok(BillingWriteOutcome::Written),
            SettlementWrite::Stale => match store.subscription_public(rec.subscription.id).await? {
                Some(fresh) => rec = fresh,
                None => return Ok(BillingWriteOutcome::Gone),
            },
        }
    }
    Ok(BillingWriteOutcome::Contended)
}
