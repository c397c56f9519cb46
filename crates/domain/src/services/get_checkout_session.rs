//! GET /checkout/sessions/:id, as its merchant reads it.

use crate::model::{Address, CheckoutSession, Timestamp, Wallet};
use crate::ports::{SessionRepository, StoreError};
use crate::services::without_unpaid_deposit;

/// The session as its merchant reads it at `now`: an open session past its expiry is
/// `expired` (the spec's lazy expiry, applied to what is read, D28), and an open one whose
/// recipient no longer takes its money shows no deposit address, as on the hosted page
/// (D30). `wallet_at` reads the merchant's wallet at an address. Nothing is written.
pub async fn read_checkout_session<F, Fut>(
    session: CheckoutSession,
    now: Timestamp,
    wallet_at: F,
) -> Result<CheckoutSession, StoreError>
where
    F: FnOnce(Address) -> Fut,
    Fut: std::future::Future<Output = Result<Option<Wallet>, StoreError>>,
{
    without_unpaid_deposit(session.seen_at(now), wallet_at).await
}

/// The spec's lazy expiry where the reader also writes (the hosted page): a session read
/// after its `expires_at` becomes `expired`, persisted.
pub async fn with_lazy_expiry(
    session: CheckoutSession,
    sessions: &dyn SessionRepository,
    clock: &dyn crate::ports::Clock,
) -> Result<CheckoutSession, StoreError> {
    let now = clock.now();
    if session.needs_expiry(now) {
        return sessions.expire(session.id, now).await;
    }
    Ok(session)
}
