//! A merchant's own screening choice per mode (D33), set from the dashboard: on, off, or
//! the deployment's default, for each mode the operator leaves to merchants. A mode the
//! operator requires cannot be turned off.

use serde_json::json;

use crate::model::{AuditAction, AuditEvent, AuthContext, Changer, Mode};
use crate::ports::{Clock, MerchantSettings, StoreError};
use crate::rules::screening::{MerchantScreening, ScreeningPolicy};

#[derive(Debug, thiserror::Error)]
pub enum ScreeningChoiceError {
    /// The operator screens exactly its modes: merchants have no say here.
    #[error("screening is set by the operator of this deployment")]
    OperatorDecides,
    #[error("the operator requires screening in {} mode: it cannot be turned off", .0.as_str())]
    Required(Mode),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The choice as JSON for the audit log: per mode `true`, `false` or `null` (default).
pub fn choice_json(choice: MerchantScreening) -> serde_json::Value {
    json!({ "test": choice.test, "live": choice.live })
}

pub async fn set_screening_choice(
    ctx: &AuthContext,
    choice: MerchantScreening,
    policy: Option<ScreeningPolicy>,
    by: &Changer,
    settings: &dyn MerchantSettings,
    clock: &dyn Clock,
) -> Result<(), ScreeningChoiceError> {
    let policy = policy.ok_or(ScreeningChoiceError::OperatorDecides)?;
    for mode in [Mode::Test, Mode::Live] {
        if choice.of(mode) == Some(false) && !policy.merchant_decides(mode) {
            return Err(ScreeningChoiceError::Required(mode));
        }
    }
    // The setting serves both modes; the adapter writes `before` from the row it replaces.
    let entry = AuditEvent::of(
        by,
        ctx.merchant_id,
        None,
        AuditAction::ScreeningUpdated,
        ctx.merchant_id,
        clock.now(),
    )
    .after(choice_json(choice));
    Ok(settings
        .set_screening(ctx.merchant_id, choice, &entry)
        .await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Actor, DashboardUserId, FeeTier, MerchantId, UnderpaymentTolerance};
    use crate::ports::{MockMerchantSettings, SystemClock};
    use futures_executor::block_on;

    fn ctx() -> AuthContext {
        AuthContext {
            merchant_id: MerchantId::generate(),
            mode: Mode::Live,
            actor: Actor::DashboardUser(DashboardUserId::generate()),
            fee_tier: FeeTier::Standard,
            rate_limit_per_min: None,
            underpayment_tolerance: UnderpaymentTolerance::NONE,
        }
    }

    fn set(
        choice: MerchantScreening,
        policy: Option<ScreeningPolicy>,
        settings: &MockMerchantSettings,
    ) -> Result<(), ScreeningChoiceError> {
        let ctx = ctx();
        let by = Changer::new(ctx.actor, None);
        block_on(set_screening_choice(
            &ctx,
            choice,
            policy,
            &by,
            settings,
            &SystemClock,
        ))
    }

    #[test]
    fn a_merchant_turns_test_mode_on_with_its_audit_entry() {
        let choice = MerchantScreening {
            test: Some(true),
            live: None,
        };
        let mut settings = MockMerchantSettings::new();
        settings
            .expect_set_screening()
            .withf(move |_, c, e| {
                *c == choice
                    && e.action == AuditAction::ScreeningUpdated
                    && e.mode.is_none()
                    && e.after == Some(json!({ "test": true, "live": null }))
            })
            .times(1)
            .returning(|_, _, _| Ok(()));
        set(choice, Some(ScreeningPolicy::DEFAULT), &settings).unwrap();
    }

    #[test]
    fn a_required_mode_cannot_be_turned_off_and_a_fixed_policy_takes_no_choice() {
        let mut settings = MockMerchantSettings::new();
        settings.expect_set_screening().never();
        let live_off = MerchantScreening {
            test: None,
            live: Some(false),
        };
        assert!(matches!(
            set(live_off, Some(ScreeningPolicy::DEFAULT), &settings),
            Err(ScreeningChoiceError::Required(Mode::Live))
        ));
        assert!(matches!(
            set(MerchantScreening::default(), None, &settings),
            Err(ScreeningChoiceError::OperatorDecides)
        ));
    }
}
