use async_trait::async_trait;

use super::{ChainError, StoreError};
use crate::model::{Address, ChainId, CheckoutSessionId, Signature, TxHash};
use crate::rules::eip712::PaymentIntent;

/// `CheckoutRouter.payWithAuthorization(intent, operatorSig, payer, validBefore,
/// payerSig)`, as the relayer sends it (D23).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneSignaturePayment {
    pub router: Address,
    pub intent: PaymentIntent,
    pub operator_signature: Signature,
    pub payer: Address,
    pub valid_before: u64,
    /// v = 27/28, as the token checks it.
    pub payer_signature: Signature,
}

/// What `eth_call` of a relayed transaction from the relayer says would happen now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelaySimulation {
    /// It would go through.
    Succeeds,
    /// It would revert, with the revert string or custom error's name when there is one.
    Reverts(String),
}

/// What [`PaymentRelayer::relay`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relayed {
    /// A new transaction was stored and broadcast (a failed broadcast is retried from the
    /// stored bytes).
    Submitted(TxHash),
    /// This session had a relayed transaction already (another request, or another api
    /// process, got there first): that one, nothing new is sent.
    AlreadySubmitted(TxHash),
}

impl Relayed {
    pub fn tx_hash(self) -> TxHash {
        match self {
            Relayed::Submitted(tx) | Relayed::AlreadySubmitted(tx) => tx,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelayError {
    /// No relayer key, or the relayer's ETH is under the configured floor: it takes no
    /// new work (D26); the hosted page falls back to approve + pay.
    #[error("the relayer is not available on chain {0}")]
    Unavailable(u64),
    /// Another payer's authorization for this session was relayed, and although its
    /// transaction was dropped or reverted it can still be mined (by anyone holding it)
    /// until `valid_before`: nothing is sent for a second payer before then.
    #[error("another wallet's payment of this session can be mined until {valid_before}")]
    AnotherPayerPending { payer: Address, valid_before: u64 },
    #[error(transparent)]
    Chain(#[from] ChainError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The service's relayer (D23, D26): sends one-signature payments on the payer's behalf,
/// paying the gas, through the same nonce manager as the keeper.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait PaymentRelayer: Send + Sync {
    /// The transaction relayed for this session, if any.
    async fn relayed(&self, session: CheckoutSessionId) -> Result<Option<TxHash>, StoreError>;

    /// Whether the relayer can take new work on `chain` (a key is configured and its
    /// balance is above the floor). Errors: `Unavailable` when the node cannot say.
    async fn ready(&self, chain: ChainId) -> Result<bool, ChainError>;

    /// `eth_call` of the payment from the relayer. Errors: `Unavailable` (nothing known).
    async fn simulate(
        &self,
        chain: ChainId,
        payment: &OneSignaturePayment,
    ) -> Result<RelaySimulation, ChainError>;

    /// Takes the next nonce, signs the payment and stores it with the session (one
    /// database transaction), then broadcasts; a session relayed before gets its
    /// transaction back and nothing is sent.
    async fn relay(
        &self,
        chain: ChainId,
        session: CheckoutSessionId,
        payment: &OneSignaturePayment,
    ) -> Result<Relayed, RelayError>;
}
