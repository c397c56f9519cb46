//! Sending (D26, D31): the service signs and broadcasts three kinds of work with its own
//! keys (keeper charges, relayed payments, deposit sweeps). Every transaction signed at a
//! nonce is an attempt, stored before it is broadcast; any attempt may be the one mined.
//! What to do with sent work (wait, replace, fill, give up) is the domain's
//! (`services::follow_sent_work`); signing, nonces and fees are the sender adapter's.

use async_trait::async_trait;

use super::{ChainError, ChargeAttempt, RelaySimulation, StoreError};
use crate::model::{Address, ChainId, CheckoutSession, CheckoutSessionId, Timestamp, TxHash};
use crate::rules::deposit::DepositTerms;

/// Which work a nonce of the service's carries: each kind has its own table, whose row
/// names the work's newest attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkKind {
    /// A keeper charge.
    Charge,
    /// A relayed payment (one signature or x402).
    Relay,
    /// A deposit sweep.
    Sweep,
}

impl WorkKind {
    /// Its metrics label.
    pub fn label(self) -> &'static str {
        match self {
            WorkKind::Charge => "charge",
            WorkKind::Relay => "relay",
            WorkKind::Sweep => "sweep",
        }
    }
}

/// Work sent and not yet settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentWork {
    pub kind: WorkKind,
    pub chain: ChainId,
    /// The key that took the nonce.
    pub sender: Address,
    pub nonce: u64,
    /// The newest attempt at the nonce.
    pub tx_hash: TxHash,
    /// Every attempt at the nonce, newest first: any of them may be the one mined.
    pub attempts: Vec<ChargeAttempt>,
    /// The head when the newest attempt was broadcast.
    pub sent_block: u64,
    /// When the newest attempt was last broadcast.
    pub last_broadcast_at: Timestamp,
    /// The session a relayed payment pays (`None` for the other kinds).
    pub session: Option<CheckoutSessionId>,
}

/// What an attempt bid per gas, and the head it was broadcast at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttemptFees {
    pub max_fee_wei: u128,
    pub priority_fee_wei: u128,
    pub sent_block: u64,
}

/// The newest attempt at a nonce, as stored: what a replacement starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewestAttempt {
    /// The key that signed it.
    pub sender: Address,
    pub nonce: u64,
    pub tx_hash: TxHash,
    pub raw: Vec<u8>,
    pub fees: AttemptFees,
    pub fill: bool,
}

/// A signed transaction: its hash and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedTx {
    pub hash: TxHash,
    pub raw: Vec<u8>,
}

/// Signs the work at the nonce a store took for it, inside the store's transaction (the
/// `sign` argument of [`SenderLedger`]'s stores). Any `Fn(u64) -> Result<SignedTx, String>`
/// is one.
pub trait SignAtNonce: Send + Sync {
    /// Errors: the key could not sign (the store then stores nothing).
    fn sign_at(&self, nonce: u64) -> Result<SignedTx, String>;
}

impl<F> SignAtNonce for F
where
    F: Fn(u64) -> Result<SignedTx, String> + Send + Sync,
{
    fn sign_at(&self, nonce: u64) -> Result<SignedTx, String> {
        self(nonce)
    }
}

/// What a mined transaction cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GasReceipt {
    /// The block that included it.
    pub block_number: u64,
    pub succeeded: bool,
    pub gas_used: u64,
    pub effective_gas_price_wei: u128,
}

impl GasReceipt {
    /// gasUsed × effective gas price, in wei.
    pub fn cost_wei(&self) -> u128 {
        u128::from(self.gas_used).saturating_mul(self.effective_gas_price_wei)
    }
}

/// A mined attempt: which one, and its receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinedAttempt {
    pub attempt: ChargeAttempt,
    pub gas: GasReceipt,
}

/// A mined sweep: its attempt, its receipt, and the entries that failed in it
/// (`SweepFailed(ref, token)` logs of the factory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MinedSweep {
    pub attempt: ChargeAttempt,
    pub gas: GasReceipt,
    pub failed: Vec<([u8; 32], Address)>,
}

/// One (session, token) a sweep moves, with the terms its deposit address commits to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepEntry {
    pub session: CheckoutSessionId,
    pub token: Address,
    pub terms: DepositTerms,
}

/// What [`TransactionSender::resend`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resent {
    /// The work again at its nonce, at higher fees.
    Replaced(TxHash),
    /// The nonce filled (a 0-value transfer to the sender, or the work's own fill call):
    /// the work is given up and the nonces after it are not stuck.
    Filled(TxHash),
    /// The newest attempt again as it was (no raise fits under the cap, or the nonce is
    /// another key's), or nothing (settled or replaced meanwhile; unwanted work with no
    /// fill under the cap is never put back in the pool).
    Unchanged,
}

/// What [`SenderLedger::store_replacement`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplacementStored {
    /// Stored as the work's newest attempt: broadcast it.
    Stored,
    /// The work was settled, or replaced by another worker, meanwhile: broadcast nothing.
    Superseded,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// Nothing known of the chain (head, fees, nonce).
    #[error(transparent)]
    Chain(#[from] ChainError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The key could not sign (a stored transaction that does not decode, a bad key).
    #[error("signing failed: {0}")]
    Signing(String),
}

/// The chain's answers about sent work; no key is needed to ask them.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait SentReceipts: Send + Sync {
    /// The account's mined transaction count. Errors: `Unavailable`.
    async fn mined_nonce(&self, chain: ChainId, account: Address) -> Result<u64, ChainError>;

    /// The first of `attempts` (newest first) with a receipt; `None` while none is mined.
    /// Errors: `Unavailable` (a receipt unknown or malformed).
    async fn mined_attempt(
        &self,
        chain: ChainId,
        attempts: &[ChargeAttempt],
    ) -> Result<Option<MinedAttempt>, ChainError>;

    /// [`Self::mined_attempt`] for a sweep of `factory`, with its failed entries.
    async fn mined_sweep(
        &self,
        chain: ChainId,
        factory: Address,
        attempts: &[ChargeAttempt],
    ) -> Result<Option<MinedSweep>, ChainError>;

    /// `eth_call` from `from`, against the latest block, of the call the signed `raw`
    /// makes: whether sending it again would still do its work. Errors: `Unavailable`.
    async fn simulate_signed(
        &self,
        chain: ChainId,
        from: Address,
        raw: &[u8],
    ) -> Result<RelaySimulation, ChainError>;
}

/// The one sender (D31): signs with one key, takes nonces through the [`SenderLedger`],
/// prices fees under the chain's cap, stores every attempt before broadcasting it.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait TransactionSender: Send + Sync {
    /// The address its key signs for.
    fn address(&self) -> Address;

    /// Sends `kind`'s work whose newest attempt is `newest` again at its nonce (read from
    /// the store): replaced at fees raised by at least 12.5 % when `wanted`, filled when
    /// not (a nonce once filled stays a fill), or its newest attempt again as it was when
    /// no raise fits under the cap. The new attempt is stored before it is broadcast, and
    /// only over the attempt it was made from. Errors: `Chain` (head or fees unknown),
    /// `Store`, `Signing`.
    async fn resend(
        &self,
        kind: WorkKind,
        chain: ChainId,
        newest: TxHash,
        wanted: bool,
    ) -> Result<Resent, SendError>;

    /// Takes a nonce, signs one `sweepMany` of `entries` on `factory` and stores it with
    /// the transfer rows it moves, then broadcasts it. `None`: another worker took the
    /// rows, nothing was signed. Errors: `Chain`, `Store`, `Signing`.
    async fn send_sweep(
        &self,
        chain: ChainId,
        factory: Address,
        entries: &[SweepEntry],
    ) -> Result<Option<TxHash>, SendError>;
}

/// The attempts stored for sent work (`sender_attempts`).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait SentAttempts: Send + Sync {
    /// Every attempt at `nonce` of (`chain`, `sender`), newest first.
    async fn attempts_at(
        &self,
        chain: ChainId,
        sender: Address,
        nonce: u64,
    ) -> Result<Vec<ChargeAttempt>, StoreError>;

    /// The attempt stored as `tx` (or, for work stored before attempts were, the work's
    /// own row with unknown fees). `None`: no such work.
    async fn newest_attempt(
        &self,
        kind: WorkKind,
        tx: TxHash,
    ) -> Result<Option<NewestAttempt>, StoreError>;
}

/// Relayed payments after they were sent (`relayed_transactions`).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait SentRelays: Send + Sync {
    /// Relays on `chain` not yet settled, oldest nonce first, with their attempts.
    async fn sent_relays(&self, chain: ChainId) -> Result<Vec<SentWork>, StoreError>;

    /// Records `mined` (an attempt at `relay`'s nonce) as the relay's transaction:
    /// mined or reverted, its gas and cost.
    async fn relay_mined(
        &self,
        relay: &SentWork,
        mined: TxHash,
        gas: GasReceipt,
        now: Timestamp,
    ) -> Result<(), StoreError>;

    /// The relay can never be mined (its nonce went to another transaction): the session
    /// is payable again. Only while `relay.tx_hash` is still its newest attempt.
    async fn relay_dropped(&self, relay: &SentWork) -> Result<(), StoreError>;
}

/// Deposit sweeps (`deposit_sweeps`, and the transfer rows they move).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait DepositSweeps: Send + Sync {
    /// Sessions with confirmed deposit money on `chain` no sweep has taken and no retry
    /// pending at `now`, with the token, least-failed first, at most `limit`; recipients
    /// that no longer take the session's mode's money left out (D25, D30).
    async fn unswept_deposits(
        &self,
        chain: ChainId,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(CheckoutSession, Address)>, StoreError>;

    /// Sweeps on `chain` not yet settled, oldest nonce first, with their attempts.
    async fn sent_sweeps(&self, chain: ChainId) -> Result<Vec<SentWork>, StoreError>;

    /// Records `mined` as the sweep's transaction: its rows are swept, those of `failed`
    /// entries (all, when it reverted) given back to a later sweep.
    async fn sweep_mined(
        &self,
        sweep: &SentWork,
        mined: &MinedSweep,
        now: Timestamp,
    ) -> Result<(), StoreError>;

    /// The sweep can never be mined: its rows go back at once.
    async fn sweep_dropped(&self, sweep: &SentWork, now: Timestamp) -> Result<(), StoreError>;
}

/// What [`SenderLedger::store_relayed_payment`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredRelay {
    /// Signed with a fresh nonce and stored: broadcast it.
    New(SignedTx),
    /// The session already had a live relayed transaction: nothing was signed.
    Existing(TxHash),
    /// The payer's unmined relays on this chain and token already promise `promised`;
    /// with this one they would promise more than its balance: nothing was signed.
    PayerOvercommitted { promised: u128 },
    /// A relay from this payer (or a contract with its code) reverted within the hour:
    /// nothing is signed for it until `until` (D30).
    PayerCoolingDown { until: Timestamp },
}

/// Whose authorization a relay sends, and what it promises of the payer's money.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayFor {
    pub session: CheckoutSessionId,
    pub payer: Address,
    pub valid_before: u64,
    /// The authorization's EIP-3009 nonce: the token accepts each (payer, nonce) once.
    pub nonce: [u8; 32],
    /// Every signed term and the signature of an x402 transfer (`TransferPayment::terms`).
    pub terms: Option<[u8; 32]>,
    pub token: Address,
    pub value: u128,
    /// The payer's balance just read: its unmined relays never promise more (D30).
    pub payer_balance: u128,
    /// The keccak of a contract payer's code (`None` for an EOA): a revert cools down
    /// every wallet with that code.
    pub code_hash: Option<[u8; 32]>,
    /// What fills the relay's nonce if it becomes unwanted (target, calldata): a router
    /// relay's operator-signed `cancel` of its ref (D30); `None`: a 0-value self-transfer.
    pub fill: Option<(Address, Vec<u8>)>,
}

/// Where the sender keeps its nonces and attempts: each method takes a nonce (never below
/// the chain's count), signs with it and stores the work with its first attempt in one
/// database transaction, or replaces an attempt only over the one it was made from.
/// No use case of the domain calls it (only the sender adapter does), and mockall cannot
/// mock its signer argument: it has no mock.
#[async_trait]
pub trait SenderLedger: Send + Sync {
    /// A keeper charge of `subscription`'s period `period_key`. Errors: `Store` (nothing
    /// stored), `Signing` (as `StoreError::Internal`).
    #[allow(clippy::too_many_arguments)]
    async fn store_keeper_charge(
        &self,
        chain: ChainId,
        keeper: Address,
        chain_nonce: u64,
        subscription: crate::model::SubscriptionId,
        period_key: Timestamp,
        now: Timestamp,
        fees: AttemptFees,
        sign: &dyn SignAtNonce,
    ) -> Result<SignedTx, StoreError>;

    /// A relayed payment of `relay.session`, unless it has one, the payer is
    /// overcommitted or cooling down (then nothing is signed).
    #[allow(clippy::too_many_arguments)]
    async fn store_relayed_payment(
        &self,
        chain: ChainId,
        sender: Address,
        chain_nonce: u64,
        relay: RelayFor,
        now: Timestamp,
        fees: AttemptFees,
        sign: &dyn SignAtNonce,
    ) -> Result<StoredRelay, StoreError>;

    /// A sweep of `entries` (session, token), unless another worker took their rows.
    #[allow(clippy::too_many_arguments)]
    async fn store_deposit_sweep(
        &self,
        chain: ChainId,
        sender: Address,
        chain_nonce: u64,
        entries: &[(CheckoutSessionId, Address)],
        now: Timestamp,
        fees: AttemptFees,
        sign: &dyn SignAtNonce,
    ) -> Result<Option<SignedTx>, StoreError>;

    /// Stores `signed` as the newest attempt of `kind`'s work over `replaces`.
    #[allow(clippy::too_many_arguments)]
    async fn store_replacement(
        &self,
        kind: WorkKind,
        chain: ChainId,
        replaces: &NewestAttempt,
        signed: &SignedTx,
        fees: AttemptFees,
        fill: bool,
        now: Timestamp,
    ) -> Result<ReplacementStored, StoreError>;

    /// The newest attempt of open work was broadcast again as it was, at `sent_block`.
    async fn attempt_resent(
        &self,
        kind: WorkKind,
        tx: TxHash,
        sent_block: u64,
        now: Timestamp,
    ) -> Result<(), StoreError>;

    /// The keeper charges sent on `chain` and not yet settled, by any keeper key (a
    /// rotation never leaves a charge unfollowed), oldest nonce first per key.
    async fn open_charges(&self, chain: ChainId) -> Result<Vec<super::InFlightCharge>, StoreError>;

    /// The fill call stored with the work at this nonce (a router relay's `cancel`).
    async fn fill_call(
        &self,
        kind: WorkKind,
        chain: ChainId,
        sender: Address,
        nonce: u64,
    ) -> Result<Option<(Address, Vec<u8>)>, StoreError>;
}
