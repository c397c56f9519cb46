use std::time::Duration;

use async_trait::async_trait;

use super::{ChainError, StoreError};
use crate::model::{Address, ChainId, CheckoutSessionId, Signature, Timestamp, TxHash};
use crate::rules::eip3009::TransferAuthorization;
use crate::rules::eip712::PaymentIntent;
use crate::rules::relay_budget::RelayPause;

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
    /// The operator's `Cancel(ref)`: sent as the fill of this relay's nonce if the relay
    /// becomes unwanted (the session paid another way, or expired), so its calldata can
    /// never be replayed (D30).
    pub cancel_signature: Signature,
}

/// `token.transferWithAuthorization(…, signature)`, as the relayer sends it for an x402
/// payment (D29): the payer's transfer of a session's gross to its deposit address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferPayment {
    pub token: Address,
    pub authorization: TransferAuthorization,
    /// v = 27/28 for an EOA; whatever an ERC-1271 wallet returns otherwise.
    pub signature: Signature,
}

impl TransferPayment {
    /// Every signed field and the signature, as one digest: what makes a later payload
    /// "this very payment" ([`crate::rules::x402::payload_terms`]). The signature is taken
    /// as the token checks it (v = 27/28), so the wallet's v = 0/1 form of the same
    /// signature is the same payment.
    pub fn terms(&self) -> [u8; 32] {
        Self::terms_of(&self.authorization, &self.signature)
    }

    pub fn terms_of(authorization: &TransferAuthorization, signature: &Signature) -> [u8; 32] {
        let signature = crate::rules::eip3009::on_chain_signature(signature);
        let mut bytes = authorization.struct_hash().to_vec();
        bytes.extend_from_slice(signature.as_bytes());
        crate::rules::eip712::keccak(&bytes)
    }
}

/// The authorization a session's relayed transaction carries, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelayedAuthorization {
    pub tx: TxHash,
    /// `None` on relays stored before payers were.
    pub payer: Option<Address>,
    /// The EIP-3009 nonce (the session ref for a one-signature payment; the payer's own
    /// for x402). `None` on relays stored before nonces were.
    pub nonce: Option<[u8; 32]>,
    /// [`TransferPayment::terms`] of an x402 relay; `None` for one-signature payments and
    /// relays stored before terms were.
    pub terms: Option<[u8; 32]>,
}

/// Whether a session's relayed transaction was included, as far as the chain says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inclusion {
    /// Mined and succeeded (this attempt: the worker may have replaced the first).
    Mined(TxHash),
    /// Mined and reverted, or its nonce was filled: the session was not paid by it.
    Failed,
    /// Nothing mined within the wait.
    NotYet,
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

/// Whether the relayer takes new work on a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelayerReadiness {
    Ready,
    /// No relayer key, or its ETH is under the configured floor (D26).
    Unavailable,
    /// Relays that reverted used more of the relayer's gas than the chain's budget over
    /// the last hour (D30): nothing is relayed there until they no longer do.
    Paused(RelayPause),
}

/// Why the relayer will not send for this payer now (D30): the relayer's gas is never a
/// free tank. Another payer of the same session is not affected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayerRefusal {
    /// The payer's relays on this chain and token that are not yet mined already promise
    /// `promised` of its `balance`: this one would promise more than it holds.
    #[error("{payer} holds {balance} base units of the token and payments from it still on their way promise {promised}; wait until they are mined")]
    Overcommitted {
        payer: Address,
        promised: u128,
        balance: u128,
    },
    /// A relay from this payer (or from a contract with the same code) reverted: the
    /// relayer paid its gas for nothing, so it sends nothing for it until `until`.
    #[error("a payment relayed for {payer} (or a wallet with the same code) reverted on chain; the relayer sends nothing for it until {until}; pay with a transaction instead")]
    CoolingDown { payer: Address, until: Timestamp },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelayError {
    /// No relayer key, or the relayer's ETH is under the configured floor: it takes no
    /// new work (D26); the hosted page falls back to approve + pay.
    #[error("the relayer is not available on chain {0}")]
    Unavailable(u64),
    #[error(transparent)]
    PayerRefused(PayerRefusal),
    /// The transaction as it would be signed (gas limit, fees, from the relayer, against
    /// the pending block) reverts, with this reason: nothing was sent.
    #[error("the network would refuse this payment: {0}")]
    WouldRevert(String),
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

    /// Whether the relayer takes new work on `chain`: a key is configured, its balance is
    /// above the floor, and reverted relays are within the chain's budget (D30). Errors:
    /// `Unavailable` when the node or the store cannot say.
    async fn readiness(&self, chain: ChainId) -> Result<RelayerReadiness, ChainError>;

    /// `eth_call` of the payment exactly as it would be sent (from the relayer, its gas
    /// limit and fee fields, the pending block, D30). Errors: `Unavailable` (nothing
    /// known).
    async fn simulate(
        &self,
        chain: ChainId,
        payment: &OneSignaturePayment,
    ) -> Result<RelaySimulation, ChainError>;

    /// Simulates the payment as it will be signed, takes the next nonce, signs it and
    /// stores it with the session (one database transaction), then broadcasts; a session
    /// relayed before gets its transaction back and nothing is sent. `payer_balance` is
    /// the payer's token balance just read: the payer's unmined relays never promise more
    /// (D30). Errors: `PayerRefused` (over its balance, or cooling down after a revert),
    /// `WouldRevert`, `Unavailable`, `Chain`, `Store`.
    async fn relay(
        &self,
        chain: ChainId,
        session: CheckoutSessionId,
        payment: &OneSignaturePayment,
        payer_balance: u128,
    ) -> Result<Relayed, RelayError>;

    /// The live relay of this session and whose authorization it carries, if any.
    async fn relayed_authorization(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Option<RelayedAuthorization>, StoreError>;

    /// `eth_call` of an x402 transfer exactly as it would be sent (D30). Errors:
    /// `Unavailable`.
    async fn simulate_transfer(
        &self,
        chain: ChainId,
        payment: &TransferPayment,
    ) -> Result<RelaySimulation, ChainError>;

    /// [`Self::relay`] for an x402 transfer: one live relay per session, across api
    /// processes; a session relayed before gets that transaction back, nothing sent.
    async fn relay_transfer(
        &self,
        chain: ChainId,
        session: CheckoutSessionId,
        payment: &TransferPayment,
        payer_balance: u128,
    ) -> Result<Relayed, RelayError>;

    /// Waits up to `within` for the session's relayed transaction (any attempt at its
    /// nonce) to be mined. Errors: `Unavailable` when the node or the store cannot say.
    async fn await_inclusion(
        &self,
        chain: ChainId,
        session: CheckoutSessionId,
        within: Duration,
    ) -> Result<Inclusion, ChainError>;

    /// The address that sends (and pays the gas of) relayed transactions.
    fn signer(&self) -> Address;
}

/// What the relayer reads of its own relays (`relayed_transactions`).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait RelayRecords: Send + Sync {
    /// The live (sent or mined) relayed transaction of a session, if any.
    async fn relayed_for_session(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Option<TxHash>, StoreError>;

    /// The authorization a session's live relay carries.
    async fn relayed_authorization(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Option<RelayedAuthorization>, StoreError>;

    /// The sender and nonce of a session's live relay: where its attempts are.
    async fn relay_position(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Option<(Address, u64)>, StoreError>;

    /// Gas of the relays on `chain` mined at or after `since` (the revert budget, D30).
    async fn relay_gas_since(
        &self,
        chain: ChainId,
        since: Timestamp,
    ) -> Result<crate::rules::relay_budget::RelayGas, StoreError>;
}
