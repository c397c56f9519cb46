//! API keys a merchant manages (D5): created with the secret shown once, revoked with
//! effect on the next request.

use serde_json::json;

use crate::model::{
    ApiKey, ApiKeyId, AuditAction, AuditEvent, AuthContext, Changer, MerchantId, Mode,
};
use crate::ports::{ApiKeyManager, Clock, StoreError};
use crate::rules::{api_keys, audit};

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
    by: &Changer,
    keys: &dyn ApiKeyManager,
    clock: &dyn Clock,
) -> Result<CreatedApiKey, StoreError> {
    let secret = api_keys::generate(mode);
    let now = clock.now();
    let key = ApiKey {
        id: ApiKeyId::generate_at(now),
        merchant_id: merchant,
        mode,
        last4: api_keys::last4(&secret),
        rate_limit_per_min,
        created_at: now,
        revoked_at: None,
        last_used_at: None,
    };
    let audit = AuditEvent::of(
        by,
        merchant,
        Some(mode),
        AuditAction::ApiKeyCreated,
        key.id,
        key.created_at,
    )
    .after(json!({
        "mode": mode.as_str(),
        "last4": key.last4,
        "rate_limit_per_min": rate_limit_per_min,
    }));
    keys.insert_key(&key, api_keys::hash(&secret), &audit)
        .await?;
    Ok(CreatedApiKey { key, secret })
}

/// Revokes one of the caller's keys. Errors: `NotFound` when the merchant has no such
/// active key in this mode (another merchant's or mode's id changes nothing).
pub async fn revoke_api_key(
    ctx: &AuthContext,
    id: ApiKeyId,
    by: &Changer,
    keys: &dyn ApiKeyManager,
    clock: &dyn Clock,
) -> Result<(), StoreError> {
    let now = clock.now();
    let audit = audit::key_revoked(by, ctx.merchant_id, ctx.mode, id, now);
    if keys
        .revoke_key(ctx.merchant_id, ctx.mode, id, now, &audit)
        .await?
    {
        Ok(())
    } else {
        Err(StoreError::NotFound)
    }
}
