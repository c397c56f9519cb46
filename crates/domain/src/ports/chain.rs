use async_trait::async_trait;

use crate::model::{Address, BlockHash, ChainId, Signature, Timestamp, TxHash};

/// An ERC-20 `Transfer` log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenTransfer {
    pub token: Address,
    pub from: Address,
    pub to: Address,
    pub value: u128,
    pub log_index: u64,
}

/// A `CheckoutRouter.CheckoutPaid` log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutPaid {
    pub router: Address,
    pub reference: [u8; 32],
    pub payer: Address,
    pub recipient: Address,
    pub token: Address,
    pub net_amount: u128,
    pub fee_amount: u128,
    pub log_index: u64,
}

/// A `SubscriptionManager` event (D10, D11).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubscriptionEvent {
    Subscribed {
        subscription_id: u128,
        plan_id: u128,
        subscriber: Address,
        reference: [u8; 32],
        fee_amount: u128,
    },
    Charged {
        subscription_id: u128,
        plan_id: u128,
        subscriber: Address,
        net_amount: u128,
        fee_amount: u128,
        /// Unix seconds of the next due date.
        next_charge_at: u64,
    },
    Canceled {
        subscription_id: u128,
        by: Address,
    },
}

/// A `SubscriptionManager` log: which contract emitted it, where, and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionLog {
    pub manager: Address,
    pub log_index: u64,
    pub event: SubscriptionEvent,
}

/// What the service reads from a transaction receipt: a fact about the block it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainReceipt {
    pub tx_hash: TxHash,
    pub block_number: u64,
    pub block_hash: BlockHash,
    pub succeeded: bool,
    pub transfers: Vec<TokenTransfer>,
    pub checkout_paid: Vec<CheckoutPaid>,
    pub subscription_events: Vec<SubscriptionLog>,
}

/// A `SubscriptionManager` plan as the chain holds it (plans are immutable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnChainPlan {
    pub plan_id: u128,
    /// The account that created the plan.
    pub creator: Address,
    pub token: Address,
    pub recipient: Address,
    /// Token base units per period.
    pub amount: u128,
    pub interval_seconds: u64,
}

/// A transaction named by a log, with the block the log came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoggedTx {
    pub tx_hash: TxHash,
    pub block_number: u64,
    pub block_hash: BlockHash,
}

/// One ERC-20 `Transfer` log: the transaction that emitted it and the recipient.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferLog {
    pub tx: LoggedTx,
    pub to: Address,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    /// No RPC endpoint is configured for this chain.
    #[error("chain {0} is not configured")]
    NotConfigured(u64),
    /// The node failed or timed out; callers retry later. Never a verdict.
    #[error("chain unavailable: {0}")]
    Unavailable(String),
}

/// Read access to the chains (every call has a timeout).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ChainReader: Send + Sync {
    /// The latest block number. Errors: `NotConfigured`, `Unavailable`.
    async fn block_number(&self, chain: ChainId) -> Result<u64, ChainError>;

    /// The receipt with its decoded Transfer and CheckoutPaid logs. `None` means the node
    /// did not return one (not mined, dropped, or a lagging node): unknown, never a verdict.
    async fn receipt(&self, chain: ChainId, tx: TxHash)
        -> Result<Option<ChainReceipt>, ChainError>;

    /// The hash of the canonical block at `number`; `None` when the node has no such block
    /// yet. Errors: `NotConfigured`, `Unavailable`.
    async fn block_hash(
        &self,
        chain: ChainId,
        number: u64,
    ) -> Result<Option<BlockHash>, ChainError>;

    /// The timestamp of the block `block` (a fact of the hash, which adapters may keep);
    /// `None` when the node has no such block (not seen yet, or no longer canonical and
    /// not asked for before): unknown, never a verdict. Errors: `NotConfigured`,
    /// `Unavailable`.
    async fn block_time(
        &self,
        chain: ChainId,
        block: BlockHash,
    ) -> Result<Option<Timestamp>, ChainError>;

    /// Transactions that emitted `CheckoutPaid` from `router` in blocks `from..=to`, one
    /// entry per transaction, in chain order. Errors: `Unavailable` (also when a provider
    /// refuses the range as too large: callers retry with a smaller one).
    async fn checkout_paid_logs(
        &self,
        chain: ChainId,
        router: Address,
        from: u64,
        to: u64,
    ) -> Result<Vec<LoggedTx>, ChainError>;

    /// Transactions that emitted `Subscribed`, `Charged` or `Canceled` from `manager` in
    /// blocks `from..=to`, one entry per transaction, in chain order. Errors: as
    /// `checkout_paid_logs`.
    async fn subscription_logs(
        &self,
        chain: ChainId,
        manager: Address,
        from: u64,
        to: u64,
    ) -> Result<Vec<LoggedTx>, ChainError>;

    /// Every ERC-20 `Transfer` log emitted by one of `tokens` in blocks `from..=to`, in
    /// chain order: one read per range whatever the number of open deposit sessions
    /// (the watcher matches recipients against the database). Errors: as
    /// `checkout_paid_logs`.
    async fn token_transfers(
        &self,
        chain: ChainId,
        tokens: &[Address],
        from: u64,
        to: u64,
    ) -> Result<Vec<TransferLog>, ChainError>;

    /// `SubscriptionManager.plans(plan_id)` on `manager`; `None` when no such plan exists.
    /// Errors: `NotConfigured`, `Unavailable`.
    async fn subscription_plan(
        &self,
        chain: ChainId,
        manager: Address,
        plan_id: u128,
    ) -> Result<Option<OnChainPlan>, ChainError>;

    /// The token balance of `holder` (`balanceOf`). Errors: `NotConfigured`, `Unavailable`.
    async fn token_balance(
        &self,
        chain: ChainId,
        token: Address,
        holder: Address,
    ) -> Result<u128, ChainError>;

    /// The token's EIP-712 domain for EIP-3009 authorizations (its `name()` and
    /// `version()`, checked against its `DOMAIN_SEPARATOR()`); `None` when the token has
    /// none (no `version()` or `DOMAIN_SEPARATOR()`, or one this domain does not
    /// reproduce). Errors: `NotConfigured`, `Unavailable`.
    async fn authorization_domain(
        &self,
        chain: ChainId,
        token: Address,
    ) -> Result<Option<crate::rules::eip3009::TokenDomain>, ChainError>;

    /// The latest round of the AggregatorV3 price feed at `feed` (`latestRoundData()` and
    /// `decimals()`, D34); `None` when the address answers neither (not a feed). Errors:
    /// `NotConfigured`, `Unavailable`.
    async fn price_feed_round(
        &self,
        chain: ChainId,
        feed: Address,
    ) -> Result<Option<crate::FeedRound>, ChainError>;

    /// Whether code is deployed at `address`.
    async fn is_contract(&self, chain: ChainId, address: Address) -> Result<bool, ChainError>;

    /// ERC-1271: whether `wallet.isValidSignature(hash, signature)` returns 0x1626ba7e.
    async fn is_valid_signature(
        &self,
        chain: ChainId,
        wallet: Address,
        hash: [u8; 32],
        signature: &Signature,
    ) -> Result<bool, ChainError>;
}
