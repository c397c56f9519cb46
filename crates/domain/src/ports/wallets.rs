use async_trait::async_trait;

use super::StoreError;
use crate::model::{
    Address, MerchantId, Page, PageRequest, Timestamp, Wallet, WalletChallenge, WalletId,
};

#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait WalletRepository: Send + Sync {
    /// The merchant's wallet at this address (any status), if registered.
    async fn find_by_address(
        &self,
        merchant: MerchantId,
        address: Address,
    ) -> Result<Option<Wallet>, StoreError>;

    /// Inserts a new pending wallet together with its first challenge.
    /// Errors: `Conflict` when the merchant already registered the address.
    async fn insert_with_challenge(
        &self,
        wallet: &Wallet,
        challenge: &WalletChallenge,
    ) -> Result<(), StoreError>;

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

    /// Atomically uses the challenge with `nonce` and marks the wallet verified.
    /// Errors: `Conflict` if the challenge was used meanwhile; `NotFound`.
    async fn mark_verified(
        &self,
        wallet: WalletId,
        nonce: &str,
        now: Timestamp,
    ) -> Result<Wallet, StoreError>;

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
