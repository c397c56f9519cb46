//! The merchant's default underpayment tolerance (D32), set from the dashboard: what a
//! payment-mode session takes when its create request names none. Sessions keep the
//! tolerance they were created with.

use serde_json::json;

use crate::model::{AuditAction, AuditEvent, AuthContext, Changer, UnderpaymentTolerance};
use crate::ports::{Clock, MerchantSettings, StoreError};

pub async fn set_underpayment_tolerance(
    ctx: &AuthContext,
    tolerance: UnderpaymentTolerance,
    by: &Changer,
    settings: &dyn MerchantSettings,
    clock: &dyn Clock,
) -> Result<(), StoreError> {
    // The setting serves both modes; the adapter writes `before` from the row it replaces.
    let entry = AuditEvent::of(
        by,
        ctx.merchant_id,
        None,
        AuditAction::UnderpaymentToleranceUpdated,
        ctx.merchant_id,
        clock.now(),
    )
    .after(json!({ "underpayment_tolerance_bps": tolerance.bps() }));
    settings
        .set_underpayment_tolerance(ctx.merchant_id, tolerance, &entry)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Actor, DashboardUserId, FeeTier, MerchantId, Mode};
    use crate::ports::{MockMerchantSettings, SystemClock};
    use futures_executor::block_on;

    #[test]
    fn the_setting_is_written_with_its_audit_entry_for_the_account() {
        let user = DashboardUserId::generate();
        let ctx = AuthContext {
            merchant_id: MerchantId::generate(),
            mode: Mode::Live,
            actor: Actor::DashboardUser(user),
            fee_tier: FeeTier::Standard,
            rate_limit_per_min: None,
            underpayment_tolerance: UnderpaymentTolerance::NONE,
        };
        let by = Changer::new(ctx.actor, "203.0.113.7".parse().ok());
        let merchant = ctx.merchant_id;
        let mut settings = MockMerchantSettings::new();
        settings
            .expect_set_underpayment_tolerance()
            .withf(move |m, t, e| {
                *m == merchant
                    && t.bps() == 50
                    && e.merchant_id == merchant
                    && e.mode.is_none()
                    && e.actor == crate::model::AuditActor::User(user)
                    && e.client_address == "203.0.113.7".parse().ok()
                    && e.target == merchant.to_string()
                    && e.after == Some(json!({ "underpayment_tolerance_bps": 50 }))
            })
            .times(1)
            .returning(|_, _, _| Ok(()));
        let fifty = UnderpaymentTolerance::from_bps(50).unwrap();
        block_on(set_underpayment_tolerance(
            &ctx,
            fifty,
            &by,
            &settings,
            &SystemClock,
        ))
        .unwrap();
    }
}
