//! Reading a session, the same for its merchant (GET /checkout/sessions/:id) and the
//! hosted page: its lazy expiry, its deposit address shown only while its recipient takes
//! the money.

use crate::model::{Address, CheckoutSession, SessionStatus, Timestamp, Wallet};
use crate::ports::{SessionRepository, StoreError};

/// The session as its merchant reads it at `now`: an open session past its expiry is
/// `expired` (the spec's lazy expiry, applied to what is read, D28), and an open one whose
/// recipient no longer takes its money shows no deposit address, as on the hosted page
/// (D30). `wallet_at` reads the merchant's wallet at an address (an API read's own reads,
/// or a repository). Nothing is written.
pub async fn read_checkout_session<F, Fut>(
    session: CheckoutSession,
    now: Timestamp,
    wallet_at: F,
) -> Result<CheckoutSession, StoreError>
where
    F: FnOnce(Address) -> Fut,
    Fut: std::future::Future<Output = Result<Option<Wallet>, StoreError>>,
{
    let session = session.seen_at(now);
    // An open session whose recipient no longer takes its mode's money shows no deposit
    // address (D30): nobody is sent to pay it. The address stays stored, so money that
    // still arrives there is booked (and left unswept, D30).
    if session.status != SessionStatus::Open || session.deposit_address.is_none() {
        return Ok(session);
    }
    let recipient = wallet_at(session.recipient_address).await?;
    if session.recipient_takes_money(recipient.as_ref()) {
        return Ok(session);
    }
    Ok(CheckoutSession {
        deposit_address: None,
        ..session
    })
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
