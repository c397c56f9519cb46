//! D10: a subscription is `paused` while its plan's recipient wallet is revoked (no
//! charges) and `active` again once that address is verified again. A period that fell
//! due while paused is not charged then; on resume the current period is charged once
//! (the contract skips missed periods) and the schedule keeps its anchor.

use crate::model::{Address, MerchantId, Mode};
use crate::ports::{BillingWrite, StoreError, SubscriptionRecord, SubscriptionStore};
use crate::rules::dunning::{BillingState, Transition};
use crate::services::{write_billing, BillingWriteOutcome};

/// Which way the recipient moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecipientChange {
    Revoked,
    /// Verified by a key (or dashboard) of this mode: a live one resumes subscriptions of
    /// both modes, a test one only test subscriptions (D25).
    Verified(Mode),
}

impl RecipientChange {
    fn applies_to(self, subscription: Mode) -> bool {
        match self {
            RecipientChange::Revoked => true,
            RecipientChange::Verified(by) => by.is_live() || !subscription.is_live(),
        }
    }
}

/// Pauses or resumes every live subscription of `merchant` that pays `recipient`.
/// Returns how many changed.
pub async fn follow_recipient_wallet(
    merchant: MerchantId,
    recipient: Address,
    change: RecipientChange,
    subscriptions: &dyn SubscriptionStore,
) -> Result<u32, StoreError> {
    let mut changed = 0;
    for rec in subscriptions
        .live_for_recipient(merchant, recipient)
        .await?
    {
        if !change.applies_to(rec.subscription.mode) {
            continue;
        }
        if apply(rec, change, subscriptions).await? {
            changed += 1;
        }
    }
    Ok(changed)
}

fn transition(rec: &SubscriptionRecord, change: RecipientChange) -> Transition {
    let state = BillingState::of(&rec.subscription);
    match change {
        RecipientChange::Revoked => state.paused(),
        RecipientChange::Verified(_) => state.resumed(),
    }
}

async fn apply(
    rec: SubscriptionRecord,
    change: RecipientChange,
    subscriptions: &dyn SubscriptionStore,
) -> Result<bool, StoreError> {
    let outcome = write_billing(subscriptions, rec, |rec| {
        let t = transition(rec, change);
        (t.state != BillingState::of(&rec.subscription)).then(|| {
            BillingWrite::state_only(SubscriptionRecord {
                subscription: t.state.applied_to(&rec.subscription),
                ..rec.clone()
            })
        })
    })
    .await?;
    match outcome {
        BillingWriteOutcome::Written => Ok(true),
        BillingWriteOutcome::NothingToWrite(_) | BillingWriteOutcome::Gone => Ok(false),
        BillingWriteOutcome::Contended => Err(StoreError::Contended),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_keys_verification_resumes_no_live_subscription() {
        let by_test = RecipientChange::Verified(Mode::Test);
        assert!(by_test.applies_to(Mode::Test));
        assert!(!by_test.applies_to(Mode::Live));
        let by_live = RecipientChange::Verified(Mode::Live);
        assert!(by_live.applies_to(Mode::Test) && by_live.applies_to(Mode::Live));
        // A revocation pauses both modes.
        assert!(RecipientChange::Revoked.applies_to(Mode::Live));
        assert!(RecipientChange::Revoked.applies_to(Mode::Test));
    }
}
