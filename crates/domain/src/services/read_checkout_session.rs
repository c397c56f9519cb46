//! Reading a session, the same for its merchant (GET /checkout/sessions/:id) and the
//! hosted page: its lazy expiry, its deposit address shown only while its recipient takes
//! the money.

use crate::model::{Address, CheckoutSession, SessionStatus, Timestamp, Wallet, WalletStanding};
use crate::ports::{SessionRepository, StoreError};

/// The session as its merchant reads it at `now`, given `recipient`, the standing of the
/// merchant's wallet at the session's recipient address if there is one: an open session
/// past its expiry is `expired` (the spec's lazy expiry, applied to what is read, D28), and
/// an open one whose recipient no longer takes its money shows no deposit address, as on
/// the hosted page (D30). An API read gets the standing in the same statement as the session.
pub fn session_as_read(
    session: CheckoutSession,
    recipient: Option<WalletStanding>,
    now: Timestamp,
) -> CheckoutSession {
    shown_for(session.seen_at(now), recipient)
}

/// [`session_as_read`], reading the recipient's wallet through `wallet_at` (the merchant's
/// wallet at an address) only when the answer depends on it. Nothing is written.
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
    if !offers_deposit_address(&session) {
        return Ok(session);
    }
    let recipient = wallet_at(session.recipient_address).await?;
    Ok(shown_for(session, recipient.as_ref().map(Wallet::standing)))
}

/// `session`, already seen at the reader's time, as shown given its recipient's standing.
fn shown_for(session: CheckoutSession, recipient: Option<WalletStanding>) -> CheckoutSession {
    // Nobody is sent to pay a recipient that no longer takes the money. The address stays
    // stored, so money that still arrives there is booked (and left unswept, D30).
    if !offers_deposit_address(&session) || session.recipient_takes_money(recipient) {
        return session;
    }
    CheckoutSession {
        deposit_address: None,
        ..session
    }
}

/// Whether the session, as seen now, would show a deposit address its recipient's standing
/// may withdraw.
fn offers_deposit_address(session: &CheckoutSession) -> bool {
    session.status == SessionStatus::Open && session.deposit_address.is_some()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ChainId, Mode, WalletId, WalletStatus};
    use crate::services::fixtures::settlement::{now, session};
    use futures_executor::block_on;

    fn open_with_deposit_address() -> CheckoutSession {
        CheckoutSession {
            deposit_address: Some(Address::from_bytes([0xd0; 20])),
            ..session()
        }
    }

    fn recipient_of(s: &CheckoutSession, status: WalletStatus) -> Wallet {
        Wallet {
            id: WalletId::generate(),
            merchant_id: s.merchant_id,
            address: s.recipient_address,
            chain: ChainId::Base,
            status,
            verified_at: None,
            verified_mode: Some(Mode::Test),
            revoked_at: None,
            revoked_mode: None,
            created_at: now(),
        }
    }

    #[test]
    fn a_recipient_that_takes_the_money_keeps_the_deposit_address() {
        let s = open_with_deposit_address();
        let verified = recipient_of(&s, WalletStatus::Verified);
        let read = session_as_read(s.clone(), Some(verified.standing()), now());
        assert_eq!(read.deposit_address, s.deposit_address);
        assert_eq!(read.status, SessionStatus::Open);
    }

    #[test]
    fn a_revoked_or_missing_recipient_hides_the_deposit_address() {
        let s = open_with_deposit_address();
        let revoked = recipient_of(&s, WalletStatus::Revoked);
        assert_eq!(
            session_as_read(s.clone(), Some(revoked.standing()), now()).deposit_address,
            None
        );
        assert_eq!(session_as_read(s, None, now()).deposit_address, None);
    }

    #[test]
    fn an_expired_read_is_expired_whatever_the_recipient() {
        let s = open_with_deposit_address();
        let later = s.expires_at.plus_seconds(1);
        let read = session_as_read(s.clone(), None, later);
        assert_eq!(read.status, SessionStatus::Expired);
        // Only an open session's address is withdrawn; an expired one is shown as stored.
        assert_eq!(read.deposit_address, s.deposit_address);
    }

    #[test]
    fn the_lookup_runs_only_when_the_answer_depends_on_it() {
        let s = session();
        let read = block_on(read_checkout_session(s.clone(), now(), |_| async {
            panic!("no deposit address: nothing to look up")
        }))
        .unwrap();
        assert_eq!(read, s);
        let s = open_with_deposit_address();
        let asked = s.recipient_address;
        let read = block_on(read_checkout_session(s, now(), |address| async move {
            assert_eq!(address, asked);
            Ok(None)
        }))
        .unwrap();
        assert_eq!(read.deposit_address, None);
    }
}
