//! API keys a merchant manages (D5): created with the secret shown once, revoked with
//! effect on the next request.

use crate::model::{ApiKey, ApiKeyId, AuthContext, MerchantId, Mode};
use crate::ports::{ApiKeyManager, Clock, StoreError};
use crate::rules::api_keys;

/// A new key and its secret: the only time the secret exists outside the caller's hands.
#[derive(Debug, Clone)]
pub struct CreatedApiKey {
    pub key: ApiKey,
    pub secret: String,
}

pub async fn create_api_key(
    merchant: MerchantId,
    mode: Mode,
    rate_limit_per_min: Option<u32>,
    keys: &dyn ApiKeyManager,
    clock: &dyn Clock,
) -> Result<CreatedApiKey, StoreError> {
    let secret = api_keys::generate(mode);
    let key = ApiKey {
        id: ApiKeyId::generate(),
        merchant_id: merchant,
        mode,
        last4: api_keys::last4(&secret),
        rate_limit_per_min,
        created_at: clock.now(),
        revoked_at: None,
        last_used_at: None,
    };
    keys.insert_key(&key, api_keys::hash(&secret)).await?;
    Ok(CreatedApiKey { key, secret })
}

/// Revokes one of the caller's keys. Errors: `NotFound` when the merchant has no such
/// active key in this mode (another merchant's or mode's id changes nothing).
pub async fn revoke_api_key(
    ctx: &AuthContext,
    id: ApiKeyId,
    keys: &dyn ApiKeyManager,
    clock: &dyn Clock,
) -> Result<(), StoreError> {
    if keys
        .revoke_key(ctx.merchant_id, ctx.mode, id, clock.now())
        .await?
    {
        Ok(())
    } else {
        Err(StoreError::NotFound)
    }
}
