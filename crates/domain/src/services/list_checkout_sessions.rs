//! GET /checkout/sessions: expiry is applied before listing so `status=open` is truthful.

use crate::model::{AuthContext, CheckoutSession, Page, PageRequest, SessionFilter};
use crate::ports::{Clock, SessionRepository, StoreError};

pub async fn list_checkout_sessions(
    ctx: &AuthContext,
    filter: &SessionFilter,
    page: &PageRequest,
    sessions: &dyn SessionRepository,
    clock: &dyn Clock,
) -> Result<Page<CheckoutSession>, StoreError> {
    sessions
        .expire_due(ctx.merchant_id, ctx.mode, clock.now())
        .await?;
    sessions.list(ctx.merchant_id, ctx.mode, filter, page).await
}
