use async_trait::async_trait;

use super::{ChainError, SentWork, StoreError, WorkKind};
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

/// A keeper transaction sent and not yet settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InFlightCharge {
    pub chain: ChainId,
    /// The keeper key that took the nonce.
    pub keeper: Address,
    pub nonce: u64,
    pub subscription: SubscriptionId,
    /// The newest transaction signed at the charge's nonce.
    pub tx_hash: TxHash,
    pub period_key: Timestamp,
    pub last_broadcast_at: Timestamp,
    /// Every transaction signed at the charge's nonce, newest first (D26): the charge,
    /// its replacements at higher fees and, once the charge was no longer wanted, 0-value
    /// fills. Any of them may be the one mined.
    pub attempts: Vec<ChargeAttempt>,
    /// The head when the newest attempt was broadcast.
    pub sent_block: u64,
}

impl InFlightCharge {
    /// The charge as sent work, followed by the one rule for all of it (D31).
    pub fn sent_work(&self) -> SentWork {
        SentWork {
            kind: WorkKind::Charge,
            chain: self.chain,
            sender: self.keeper,
            nonce: self.nonce,
            tx_hash: self.tx_hash,
            attempts: self.attempts.clone(),
            sent_block: self.sent_block,
            last_broadcast_at: self.last_broadcast_at,
            session: None,
        }
    }
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
