//! GET /checkout/sessions/:id, with expiry applied lazily on read.

use super::LookupError;
use crate::model::{AuthContext, CheckoutSession, CheckoutSessionId, Missing};
use crate::ports::{Clock, SessionRepository, StoreError, WalletRepository};
use crate::services::without_revoked_deposit;

/// The session as its merchant reads it; an open one whose recipient was revoked shows no
/// deposit address, as on the hosted page (D30).
pub async fn get_checkout_session(
    ctx: &AuthContext,
    id: CheckoutSessionId,
    sessions: &dyn SessionRepository,
    wallets: &dyn WalletRepository,
    clock: &dyn Clock,
) -> Result<CheckoutSession, LookupError> {
    let session = sessions
        .get(ctx.merchant_id, ctx.mode, id)
        .await?
        .ok_or_else(|| LookupError::NotFound(Missing::of(id)))?;
    let session = with_lazy_expiry(session, sessions, clock).await?;
    Ok(without_revoked_deposit(session, wallets).await?)
}

/// The spec's lazy expiry: a session read after its `expires_at` becomes `expired`
/// (persisted, so every later reader agrees). The API and the hosted page share it.
pub async fn with_lazy_expiry(
    session: CheckoutSession,
    sessions: &dyn SessionRepository,
    clock: &dyn Clock,
) -> Result<CheckoutSession, StoreError> {
    let now = clock.now();
    if session.needs_expiry(now) {
        return sessions.expire(session.id, now).await;
    }
    Ok(session)
}
