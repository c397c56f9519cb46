use async_trait::async_trait;

use super::StoreError;
use crate::model::{
    Address, AuditEvent, MerchantId, Mode, Page, PageRequest, Timestamp, Wallet, WalletChallenge,
    WalletId,
};

/// What [`WalletRepository::insert_with_challenge`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalletInsert {
    Inserted,
    /// The merchant already has a wallet at this address (a concurrent registration won).
    AddressTaken,
}

/// What [`WalletRepository::mark_verified`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChallengeUse {
    /// The challenge is now used and the wallet verified.
    Consumed(Wallet),
    /// The challenge was used meanwhile, or no unused challenge has that nonce.
    NotUsable,
    /// A test key asked, and a live key revoked the wallet (D25): nothing changed, the
    /// challenge stays unused.
    NeedsLiveKey,
}

/// What [`WalletRepository::revoke`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalletRevocation {
    /// The wallet is now `revoked`.
    Revoked(Wallet),
    /// A test key asked, and the wallet was verified in live mode (D25): nothing changed.
    NeedsLiveKey,
}

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait WalletRepository: Send + Sync {
    /// The merchant's wallet at this address (any status), if registered.
    async fn find_by_address(
        &self,
        merchant: MerchantId,
        address: Address,
    ) -> Result<Option<Wallet>, StoreError>;

    /// Inserts a new pending wallet together with its first challenge and `audit`, unless
    /// the merchant already registered the address (then nothing is written).
    async fn insert_with_challenge(
        &self,
        wallet: &Wallet,
        challenge: &WalletChallenge,
        audit: &AuditEvent,
    ) -> Result<WalletInsert, StoreError>;

    /// Sets an existing (pending or revoked) wallet back to pending with a fresh
    /// challenge, and stores `audit`; earlier challenges stop counting. A wallet verified
    /// meanwhile is returned as it is, and nothing is stored. Errors: `NotFound`.
    async fn restart_verification(
        &self,
        wallet: &Wallet,
        challenge: &WalletChallenge,
        audit: &AuditEvent,
    ) -> Result<Wallet, StoreError>;

    /// Stores another challenge for a wallet that stays as it is: a live key verifying
    /// again a wallet verified only by a test key (D25), which keeps serving test mode
    /// meanwhile. Errors: storage failures.
    async fn add_challenge(&self, challenge: &WalletChallenge) -> Result<(), StoreError>;

    async fn get(&self, merchant: MerchantId, id: WalletId) -> Result<Option<Wallet>, StoreError>;

    /// The newest challenge of a wallet.
    async fn latest_challenge(
        &self,
        wallet: WalletId,
    ) -> Result<Option<WalletChallenge>, StoreError>;

    /// Atomically uses the challenge with `nonce` and marks the wallet verified in `mode`
    /// (the mode of the key or dashboard that verified it, D25); a challenge used
    /// meanwhile, or no unused one with that nonce (a deleted wallet has none), changes
    /// nothing. `audit` is stored with a verification, in its transaction. Errors: storage
    /// failures.
    async fn mark_verified(
        &self,
        wallet: WalletId,
        nonce: &str,
        now: Timestamp,
        mode: Mode,
        audit: &AuditEvent,
    ) -> Result<ChallengeUse, StoreError>;

    /// Sets the wallet `revoked` by `by`'s mode, unless `by` is test mode and the wallet
    /// was verified (or revoked) in live mode (checked in the same statement, D25).
    /// `audit` is stored with a revocation, in its transaction. Errors: `NotFound`.
    async fn revoke(
        &self,
        merchant: MerchantId,
        id: WalletId,
        now: Timestamp,
        by: Mode,
        audit: &AuditEvent,
    ) -> Result<WalletRevocation, StoreError>;

    async fn list(
        &self,
        merchant: MerchantId,
        page: &PageRequest,
    ) -> Result<Page<Wallet>, StoreError>;

    /// Every verified wallet of the merchant (the candidates for a session recipient;
    /// a live session's default considers only those verified in live mode, D25).
    async fn verified(&self, merchant: MerchantId) -> Result<Vec<Wallet>, StoreError>;
}
