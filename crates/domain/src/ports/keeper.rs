use async_trait::async_trait;

use super::{ChainError, SentWork, StoreError};
use crate::model::{Address, ChainId, SubscriptionId, Timestamp, TxHash};
use crate::rules::dunning::FailureCode;

/// What `eth_call` of `charge(subscriptionId)` from the keeper says would happen now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChargeSimulation {
    /// The charge would go through.
    Chargeable,
    /// The chain's schedule says the period is not due yet (or was already charged).
    NotDue,
    /// The contract would revert with this custom error.
    Fails(FailureCode),
}

/// A keeper transaction sent and not yet settled: sent work (D31) of kind `Charge`, whose
/// sender is the keeper key that took the nonce and whose attempts are the charge, its
/// replacements at higher fees and, once it was no longer wanted, 0-value fills (D26).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InFlightCharge {
    pub work: SentWork,
    pub subscription: SubscriptionId,
    pub period_key: Timestamp,
}

/// One transaction signed at a charge's nonce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChargeAttempt {
    pub tx_hash: TxHash,
    /// A 0-value transfer to the keeper itself: it uses the nonce up and charges nothing.
    pub fill: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeeperError {
    /// No keeper key or no subscription manager for this chain.
    #[error("billing is not configured on chain {0}")]
    NotConfigured(u64),
    #[error(transparent)]
    Chain(#[from] ChainError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The keeper: simulates and sends `SubscriptionManager.charge` with the keeper key
/// through one nonce manager per chain (D19).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ChargeKeeper: Send + Sync {
    /// `eth_call` of `charge` from the keeper. Errors: `Unavailable` (nothing known).
    async fn simulate_charge(
        &self,
        chain: ChainId,
        manager: Address,
        chain_subscription_id: u128,
    ) -> Result<ChargeSimulation, ChainError>;

    /// Takes the next nonce, signs `charge` and stores the signed transaction in one
    /// database transaction, then broadcasts it. A failed broadcast still returns the
    /// hash: the transaction is stored and `rebroadcast` sends it again.
    async fn send_charge(
        &self,
        chain: ChainId,
        manager: Address,
        subscription: SubscriptionId,
        chain_subscription_id: u128,
        period_key: Timestamp,
    ) -> Result<TxHash, KeeperError>;

    /// Charges sent on `chain` and not yet settled, by this keeper key or an earlier one
    /// (a rotation never leaves a charge in flight unfollowed), oldest nonce first per key.
    async fn in_flight(&self, chain: ChainId) -> Result<Vec<InFlightCharge>, KeeperError>;
}
