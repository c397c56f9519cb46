use async_trait::async_trait;
use secrecy::SecretString;

use super::StoreError;
use crate::model::{
    ApiKey, ApiKeyId, AuditEvent, Changer, DashboardSession, DashboardUser, DashboardUserId, Email,
    LoginRecord, MerchantId, Timestamp,
};
use crate::rules::dashboard_auth::SessionPolicy;

/// A dashboard account to store: status `Invited`, with the hash of its setup link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDashboardUser {
    pub user: DashboardUser,
    pub setup_sha256: [u8; 32],
    pub setup_expires_at: Timestamp,
}

/// Whether a new account was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserCreated {
    Created,
    /// Another account already signs in with this email.
    EmailTaken,
    /// The merchant does not exist.
    NoSuchMerchant,
}

/// A setup link as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingSetup {
    pub user: DashboardUser,
    pub expires_at: Timestamp,
}

/// What [`DashboardUserStore::reserve_login_attempt`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginAttempt {
    /// Counted in advance; `failures` is the count including this attempt.
    Reserved { failures: u32 },
    /// The account is locked: no secret of it may be checked now.
    Locked,
}

/// Checks dashboard passwords against their argon2id hashes. A check costs tens of
/// milliseconds of CPU and ~19 MiB, so the adapter runs it off the request threads and
/// bounds how many run at once.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait PasswordChecker: Send + Sync {
    /// Whether `candidate` matches the PHC string `stored`. `None` checks against a
    /// fixed dummy hash and never matches, so an unknown or locked account costs the same
    /// as a wrong password. Never fails: an unreadable hash does not match.
    async fn matches(&self, stored: Option<String>, candidate: SecretString) -> bool;
}

/// Dashboard accounts and their sessions (D21). Tokens cross this port only as SHA-256.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait DashboardUserStore: Send + Sync {
    /// Stores the account and, when it was created, `audit` in the same transaction.
    /// Errors: `Unavailable`/`Internal` when storage fails.
    async fn create_user(
        &self,
        new: &NewDashboardUser,
        audit: &AuditEvent,
    ) -> Result<UserCreated, StoreError>;
    /// Accounts of one merchant, or of every merchant (operator CLI), oldest first.
    async fn users(&self, merchant: Option<MerchantId>) -> Result<Vec<DashboardUser>, StoreError>;
    /// Disables an account, ends its sessions and stores the audit entry of `by`'s change
    /// (`rules::audit::user_changed`, under the account's merchant) in one transaction;
    /// `false` when no such account exists.
    async fn disable_user(
        &self,
        id: DashboardUserId,
        now: Timestamp,
        by: &Changer,
    ) -> Result<bool, StoreError>;
    /// The unused setup link with this hash, if any (expired ones included).
    async fn pending_setup(
        &self,
        setup_sha256: [u8; 32],
    ) -> Result<Option<PendingSetup>, StoreError>;
    /// Sets the password, consumes the link and stores `audit`, in one transaction, if it
    /// is still the user's link; `false` (nothing stored) when it was used meanwhile.
    async fn complete_setup(
        &self,
        id: DashboardUserId,
        setup_sha256: [u8; 32],
        password_hash: &str,
        audit: &AuditEvent,
    ) -> Result<bool, StoreError>;
    /// What sign-in needs to know about an email; `None` when no account uses it.
    async fn login_record(&self, email: &Email) -> Result<Option<LoginRecord>, StoreError>;
    /// Records the TOTP step a sign-in used, only if it is later than the last one
    /// recorded; `false` when it is not (the code was used already).
    async fn use_totp_step(&self, id: DashboardUserId, step: i64) -> Result<bool, StoreError>;
    /// Reserves one attempt before any secret of the account is checked, in one
    /// transaction: unless the account is locked at `now`, counts the attempt as a failure
    /// in advance and, when [`locks_after`](crate::rules::dashboard_auth::locks_after)
    /// says this failure locks, locks the account until `lock_until`. Concurrent attempts
    /// are serialised on the account's row, so at most `policy.max_failures` secrets are
    /// ever checked per lock window. `Locked` when the account is locked (or gone):
    /// nothing may be checked.
    async fn reserve_login_attempt(
        &self,
        id: DashboardUserId,
        now: Timestamp,
        policy: &SessionPolicy,
        lock_until: Timestamp,
    ) -> Result<LoginAttempt, StoreError>;
    /// Gives back a reserved attempt that was not a failure (the right password, asked for
    /// its second factor), and lifts `its_lock` (the lock that reservation set, if it set
    /// one) unless the account holds another lock by now.
    async fn release_login_attempt(
        &self,
        id: DashboardUserId,
        its_lock: Option<Timestamp>,
    ) -> Result<(), StoreError>;
    /// Opens a session and clears the failure count and lock, in one transaction.
    async fn open_session(
        &self,
        id: DashboardUserId,
        token_sha256: [u8; 32],
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// The unrevoked session with this hash whose account is not disabled.
    async fn session(&self, token_sha256: [u8; 32])
        -> Result<Option<DashboardSession>, StoreError>;
    async fn touch_session(&self, session_id: uuid::Uuid, now: Timestamp)
        -> Result<(), StoreError>;
    async fn end_session(&self, session_id: uuid::Uuid, now: Timestamp) -> Result<(), StoreError>;
    /// Ends every session of the account; returns how many were open.
    async fn end_all_sessions(
        &self,
        id: DashboardUserId,
        now: Timestamp,
    ) -> Result<u64, StoreError>;
    /// Enrols (`Some`) or removes (`None`) the TOTP secret (the adapter encrypts it) and
    /// stores `audit`, in one transaction.
    async fn set_totp(
        &self,
        id: DashboardUserId,
        secret: Option<Vec<u8>>,
        audit: &AuditEvent,
    ) -> Result<(), StoreError>;
}

/// API keys as the merchant manages them (dashboard Developers page, operator CLI).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ApiKeyManager: Send + Sync {
    /// Stores a new key by the SHA-256 of its secret, and `audit`, in one transaction.
    /// Errors: `NotFound` when the merchant does not exist.
    async fn insert_key(
        &self,
        key: &ApiKey,
        secret_sha256: [u8; 32],
        audit: &AuditEvent,
    ) -> Result<(), StoreError>;
    /// The merchant's keys, newest first (never their secrets).
    async fn keys(&self, merchant: MerchantId) -> Result<Vec<ApiKey>, StoreError>;
    /// Revokes an active key of this merchant and mode and stores `audit`, in one
    /// transaction; `false` (nothing stored) when there is no such active key.
    async fn revoke_key(
        &self,
        merchant: MerchantId,
        mode: crate::model::Mode,
        id: ApiKeyId,
        now: Timestamp,
        audit: &AuditEvent,
    ) -> Result<bool, StoreError>;
}

/// The dashboard's summaries over the books; every call is scoped by merchant and mode.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait DashboardReader: Send + Sync {
    /// Settled money per UTC day and currency since `since` (inclusive), oldest first.
    async fn daily_totals(
        &self,
        merchant: MerchantId,
        mode: crate::model::Mode,
        since: Timestamp,
    ) -> Result<Vec<crate::model::DailyTotal>, StoreError>;
    /// The transfers to a session's deposit address (D24), in chain order, with the
    /// sweeps that moved them; empty for another merchant's or mode's session.
    async fn deposit_transfers(
        &self,
        merchant: MerchantId,
        mode: crate::model::Mode,
        session: crate::model::CheckoutSessionId,
    ) -> Result<Vec<crate::ports::DepositTransfer>, StoreError>;
    /// Customers newest first, with what each paid.
    async fn customers(
        &self,
        merchant: MerchantId,
        mode: crate::model::Mode,
        page: &crate::model::PageRequest,
    ) -> Result<crate::model::Page<crate::model::CustomerSummary>, StoreError>;
}
