//! GET /checkout/sessions (and the dashboard's list): sessions as a reader sees them now.

use crate::model::{AuthContext, CheckoutSession, Page, PageRequest, SessionFilter};
use crate::ports::{Clock, SessionRepository, StoreError};

/// A page of the merchant's sessions in this mode, newest first. An open session past its
/// expiry lists, and filters, as `expired` (D28); nothing is written.
pub async fn list_checkout_sessions(
    ctx: &AuthContext,
    filter: &SessionFilter,
    page: &PageRequest,
    sessions: &dyn SessionRepository,
    clock: &dyn Clock,
) -> Result<Page<CheckoutSession>, StoreError> {
    sessions
        .list(ctx.merchant_id, ctx.mode, filter, page, clock.now())
        .await
}
