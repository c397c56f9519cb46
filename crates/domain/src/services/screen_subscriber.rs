//! A subscription charge's subscriber screened before the keeper sends it (D33): a listed
//! subscriber's subscription is paused with `last_failure_code = payer_sanctioned` (and
//! never resumed by its recipient's wallet); one no source answered for is not charged now.

use crate::model::{ScreenedPayer, ScreeningPath, ScreeningSubject};
use crate::ports::{BillingWrite, SubscriptionRecord};
use crate::rules::dunning::BillingState;
use crate::services::{
    screen_before_sending, write_billing, BillingDeps, BillingWriteOutcome, PayerBlocked,
};

/// What becomes of a claimed charge once its subscriber is screened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subscriber {
    Clear,
    /// Listed: the subscription is paused now (or was by a racing worker).
    Paused,
    /// No source answered: no charge now; it is tried again later.
    Unscreened,
}

/// Errors: for the keeper's report only (a store that did not answer).
pub(crate) async fn screen_subscriber(
    rec: &SubscriptionRecord,
    deps: &BillingDeps<'_>,
) -> Result<Subscriber, String> {
    let sub = &rec.subscription;
    let payer = ScreenedPayer {
        merchant_id: sub.merchant_id,
        mode: sub.mode,
        chain: sub.chain,
        address: sub.wallet_address,
        subject: ScreeningSubject::Subscription(sub.id),
    };
    let screening = deps.settle.screening_deps();
    match screen_before_sending(payer, ScreeningPath::SubscriptionCharge, &screening)
        .await
        .map_err(|e| e.to_string())?
    {
        Ok(()) => Ok(Subscriber::Clear),
        Err(PayerBlocked::Unscreened(_)) => Ok(Subscriber::Unscreened),
        Err(PayerBlocked::Listed(..)) => {
            let outcome = write_billing(deps.settle.subscriptions, rec.clone(), |rec| {
                let state = BillingState::of(&rec.subscription);
                let t = state.paused_for_sanctions();
                (t.state != state).then(|| {
                    BillingWrite::state_only(SubscriptionRecord {
                        subscription: t.state.applied_to(&rec.subscription),
                        ..rec.clone()
                    })
                })
            })
            .await
            .map_err(|e| e.to_string())?;
            match outcome {
                BillingWriteOutcome::Contended => Err("the subscription kept changing".into()),
                _ => Ok(Subscriber::Paused),
            }
        }
    }
}
