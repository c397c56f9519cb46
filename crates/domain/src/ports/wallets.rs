use async_trait::async_trait;

use super::StoreError;
use crate::model::{
    Address, MerchantId, Page, PageRequest, Timestamp, Wallet, WalletChallenge, WalletId,
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

    /// Inserts a new pending wallet together with its first challenge, unless the
    /// merchant already registered the address (then nothing is written).
    async fn insert_with_challenge(
        &self,
        wallet: &Wallet,
        challenge: &WalletChallenge,
    ) -> Result<WalletInsert, StoreError>;

    /// Sets an existing (pending or revoked) wallet back to pending with a fresh
    /// challenge; earlier challenges stop counting. Errors: `NotFound`.
    async fn restart_verification(
        &self,
        wallet: &Wallet,
        challenge: &WalletChallenge,
    ) -> Result<Wallet, StoreError>;

    async fn get(&self, merchant: MerchantId, id: WalletId) -> Result<Option<Wallet>, StoreError>;

    /// The newest challenge of a wallet.
    async fn latest_challenge(
        &self,
        wallet: WalletId,
    ) -> Result<Option<WalletChallenge>, StoreError>;

    /// Atomically uses the challenge with `nonce` and marks the wallet verified; a
    /// challenge used meanwhile, or no unused one with that nonce (a deleted wallet has
    /// none), changes nothing. Errors: storage failures.
    async fn mark_verified(
        &self,
        wallet: WalletId,
        nonce: &str,
        now: Timestamp,
    ) -> Result<ChallengeUse, StoreError>;

    /// Sets the wallet `revoked`. Errors: `NotFound`.
    async fn revoke(
        &self,
        merchant: MerchantId,
        id: WalletId,
        now: Timestamp,
    ) -> Result<Wallet, StoreError>;

    async fn list(
        &self,
        merchant: MerchantId,
        page: &PageRequest,
    ) -> Result<Page<Wallet>, StoreError>;

    /// Every verified wallet of the merchant (the candidates for a session recipient).
    async fn verified(&self, merchant: MerchantId) -> Result<Vec<Wallet>, StoreError>;
}
