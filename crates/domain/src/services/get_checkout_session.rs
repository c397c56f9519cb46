//! GET /checkout/sessions/:id, with expiry applied lazily on read.

use super::LookupError;
use crate::model::{AuthContext, CheckoutSession, CheckoutSessionId};
use crate::ports::{Clock, SessionRepository};

pub async fn get_checkout_session(
    ctx: &AuthContext,
    id: CheckoutSessionId,
    sessions: &dyn SessionRepository,
    clock: &dyn Clock,
) -> Result<CheckoutSession, LookupError> {
    let session = sessions
        .get(ctx.merchant_id, ctx.mode, id)
        .await?
        .ok_or(LookupError::NotFound)?;
    let now = clock.now();
    if session.needs_expiry(now) {
        return Ok(sessions.expire(id, now).await?);
    }
    Ok(session)
}
