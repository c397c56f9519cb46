//! The operator's commands (`stablepay-api merchants|keys|users …`): merchants, and any
//! merchant's API keys and dashboard users.

use crate::model::{
    ApiKeyId, ApiKeySummary, Changer, DashboardUser, DashboardUserId, FeeTier, Merchant, MerchantId,
};
use crate::ports::{Clock, DashboardUserStore, MerchantAdmin, StoreError};
use crate::rules::validation::bounded_text;

/// The longest merchant name (it heads the dashboard and the hosted page).
pub const MERCHANT_NAME_MAX: usize = 120;

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    NotFound(String),
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for AdminError {
    fn from(e: StoreError) -> Self {
        AdminError::Store(e)
    }
}

fn missing(what: String) -> impl FnOnce(StoreError) -> AdminError {
    move |e| match e {
        StoreError::NotFound => AdminError::NotFound(what),
        other => AdminError::Store(other),
    }
}

/// A new merchant named `name` (1 to 120 characters, trimmed) on `tier`.
pub async fn create_merchant(
    name: &str,
    tier: FeeTier,
    admin: &dyn MerchantAdmin,
) -> Result<Merchant, AdminError> {
    let name = bounded_text(name.trim(), 1, MERCHANT_NAME_MAX)
        .map_err(|e| AdminError::Invalid(format!("the name {e}")))?;
    Ok(admin.create_merchant(&name, tier).await?)
}

/// Moves a merchant to `tier`; sessions created from now on snapshot it.
pub async fn set_merchant_fee_tier(
    merchant: MerchantId,
    tier: FeeTier,
    admin: &dyn MerchantAdmin,
) -> Result<(), AdminError> {
    admin
        .set_fee_tier(merchant, tier)
        .await
        .map_err(missing(format!("no merchant {merchant}")))
}

pub async fn list_merchants(admin: &dyn MerchantAdmin) -> Result<Vec<Merchant>, AdminError> {
    Ok(admin.merchants().await?)
}

pub async fn list_any_api_keys(
    merchant: Option<MerchantId>,
    admin: &dyn MerchantAdmin,
) -> Result<Vec<ApiKeySummary>, AdminError> {
    Ok(admin.api_keys(merchant).await?)
}

/// Revokes any merchant's active key (audited as the operator's change).
pub async fn revoke_any_api_key(
    id: ApiKeyId,
    admin: &dyn MerchantAdmin,
    clock: &dyn Clock,
) -> Result<(), AdminError> {
    admin
        .revoke_any_api_key(id, &Changer::OPERATOR, clock.now())
        .await
        .map_err(missing(format!("no active key {id}")))
}

pub async fn list_dashboard_users(
    merchant: Option<MerchantId>,
    users: &dyn DashboardUserStore,
) -> Result<Vec<DashboardUser>, AdminError> {
    Ok(users.users(merchant).await?)
}

/// Disables a dashboard user and ends every session of theirs.
pub async fn disable_dashboard_user(
    id: DashboardUserId,
    users: &dyn DashboardUserStore,
    clock: &dyn Clock,
) -> Result<(), AdminError> {
    if users
        .disable_user(id, clock.now(), &Changer::OPERATOR)
        .await?
    {
        Ok(())
    } else {
        Err(AdminError::NotFound(format!("no user {id}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockDashboardUserStore, MockMerchantAdmin, SystemClock};
    use futures_executor::block_on;

    #[test]
    fn a_merchant_name_is_trimmed_and_bounded() {
        let mut admin = MockMerchantAdmin::new();
        admin
            .expect_create_merchant()
            .withf(|name, _| name == "Acme")
            .times(1)
            .returning(|name, tier| {
                Ok(Merchant {
                    id: MerchantId::generate(),
                    name: name.to_owned(),
                    fee_tier: tier,
                    created_at: SystemClock.now(),
                })
            });
        let made = block_on(create_merchant("  Acme ", FeeTier::Standard, &admin)).unwrap();
        assert_eq!(made.name, "Acme");
        for bad in ["   ", &"x".repeat(MERCHANT_NAME_MAX + 1)] {
            let err = block_on(create_merchant(bad, FeeTier::Standard, &admin)).unwrap_err();
            assert!(matches!(err, AdminError::Invalid(_)), "{bad:?}: {err:?}");
        }
    }

    #[test]
    fn unknown_merchants_keys_and_users_are_named_in_the_error() {
        let mut admin = MockMerchantAdmin::new();
        admin
            .expect_set_fee_tier()
            .returning(|_, _| Err(StoreError::NotFound));
        admin
            .expect_revoke_any_api_key()
            .returning(|_, _, _| Err(StoreError::Unavailable("down".into())));
        let merchant = MerchantId::generate();
        let err = block_on(set_merchant_fee_tier(merchant, FeeTier::Growth, &admin)).unwrap_err();
        assert_eq!(err.to_string(), format!("no merchant {merchant}"));
        // A storage failure is not "not found".
        let err = block_on(revoke_any_api_key(
            ApiKeyId::generate(),
            &admin,
            &SystemClock,
        ))
        .unwrap_err();
        assert!(matches!(err, AdminError::Store(StoreError::Unavailable(_))));
        let mut users = MockDashboardUserStore::new();
        users.expect_disable_user().returning(|_, _, _| Ok(false));
        let id = DashboardUserId::generate();
        let err = block_on(disable_dashboard_user(id, &users, &SystemClock)).unwrap_err();
        assert_eq!(err.to_string(), format!("no user {id}"));
    }
}
