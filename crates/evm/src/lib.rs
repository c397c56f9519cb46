//! The EVM adapter: implements the domain's `ChainReader` with ethers over HTTP JSON-RPC.
//! Every call runs under a timeout and RPC failures are `ChainError::Unavailable` (the
//! caller retries); nothing here panics on a node's answer. A missing or malformed field in
//! an answer (D17) is `Unavailable` too: unknown, never a guessed value. Error text is
//! passed through [`redact_urls`], so no provider URL (and its API key) reaches a message.

pub mod balance;
pub mod bindings;
pub mod calldata;
mod decode;
pub mod deploy;
pub mod doctor;
pub mod fees;
pub mod keeper;
mod price_feeds;
pub mod providers;
pub mod redact;
use decode::{
    block_hash_of, block_time_of, logged_txs_of, plan_of, receipt_facts, transfer_logs_of,
};
pub mod relay;
pub mod screening;
pub mod sender;
mod tokens;

pub use redact::redact_urls;

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use ethers::contract::EthEvent;
use ethers::providers::{Middleware, Provider};
use ethers::types::{Bytes, H160, H256, U256};
use stablepay_domain::ports::{
    ChainError, ChainReader, ChainReceipt, LoggedTx, OnChainPlan, TransferLog,
};
use stablepay_domain::rules::eip3009::TokenDomain;
use stablepay_domain::{Address, BlockHash, ChainId, Signature, Timestamp, TxHash};

use crate::bindings::checkout_router::CheckoutPaidFilter;
use crate::bindings::erc1271::Erc1271;
use crate::bindings::subscription_manager::{
    CanceledFilter, ChargedFilter, SubscribedFilter, SubscriptionManager,
};

const ERC1271_MAGIC: [u8; 4] = [0x16, 0x26, 0xba, 0x7e];

pub fn to_h160(a: &Address) -> H160 {
    H160::from(*a.as_bytes())
}

pub fn from_h160(a: H160) -> Address {
    Address::from_bytes(a.0)
}

/// A chain's providers as one ethers provider (failover and lag exclusion inside).
pub type RpcProvider = Provider<providers::Failover>;

pub struct EvmChain {
    providers: HashMap<u64, RpcProvider>,
    timeout: Duration,
    /// Each chain's fee cap in wei (`STABLEPAY_MAX_FEE_GWEI_<chain>`, D26).
    fee_caps: HashMap<u64, u128>,
    /// Tokens' EIP-3009 domains (or their absence), read once: immutable facts.
    domains: std::sync::Mutex<HashMap<(u64, Address), Option<TokenDomain>>>,
    /// Blocks' timestamps by hash: immutable facts, asked for by every deposit past its
    /// expiry and every ledger entry (D32), often many times for one block.
    block_times: std::sync::Mutex<HashMap<(u64, BlockHash), Timestamp>>,
}

/// Block times kept at most; past it the memo starts over (the newest blocks are the
/// ones asked for again).
const BLOCK_TIMES_KEPT: usize = 4096;

/// The name of a custom error the router or the dev tokens revert with, by selector.
pub(crate) fn custom_error_name(selector: &[u8; 4]) -> Option<&'static str> {
    const NAMES: [&str; 6] = [
        "RefAlreadyUsed",
        "Expired",
        "InvalidSignature",
        "TransferFailed",
        "InsufficientBalance",
        "InsufficientAllowance",
    ];
    NAMES
        .into_iter()
        .find(|name| ethers::utils::id(format!("{name}()")) == *selector)
}

impl EvmChain {
    /// The providers of each configured chain: `urls` is the configured value, one URL or
    /// a comma-separated list in order of preference. `timeout` bounds each attempt.
    pub fn new(rpc_urls: &[(ChainId, String)], timeout: Duration) -> Result<Self, String> {
        let mut providers = HashMap::new();
        for (chain, urls) in rpc_urls {
            let failover = providers::Failover::new(chain.id(), urls, timeout)?;
            providers.insert(
                chain.id(),
                Provider::new(failover).interval(Duration::from_millis(250)),
            );
        }
        Ok(Self {
            providers,
            timeout,
            fee_caps: HashMap::new(),
            domains: Default::default(),
            block_times: Default::default(),
        })
    }

    /// The providers a process's configuration names, each chain's lag limit at its
    /// confirmation depth.
    pub fn from_env(env: &stablepay_config::ChainEnv) -> Result<Self, String> {
        let depths: Vec<(ChainId, u64)> = env
            .contracts
            .all()
            .iter()
            .map(|c| (c.chain, c.confirmations))
            .collect();
        Ok(Self::new(&env.rpc_urls, env.rpc_timeout)?
            .with_lag_limits(depths)
            .with_fee_caps(env.max_fee_wei.iter().copied()))
    }

    /// The most a transaction of ours may pay per gas on each chain (D26).
    pub fn with_fee_caps(mut self, caps: impl IntoIterator<Item = (ChainId, u128)>) -> Self {
        self.fee_caps
            .extend(caps.into_iter().map(|(chain, wei)| (chain.id(), wei)));
        self
    }

    /// The chain's fee cap in wei (`fees::DEFAULT_MAX_FEE_WEI` unless configured).
    pub fn max_fee_wei(&self, chain: ChainId) -> u128 {
        self.fee_caps
            .get(&chain.id())
            .copied()
            .unwrap_or(fees::DEFAULT_MAX_FEE_WEI)
    }

    /// Excludes a chain's providers that lag the best head by more than `blocks` (its
    /// confirmation depth): they are not asked for verdicts.
    pub fn with_lag_limits(self, limits: impl IntoIterator<Item = (ChainId, u64)>) -> Self {
        for (chain, blocks) in limits {
            if let Some(p) = self.providers.get(&chain.id()) {
                p.as_ref().set_lag_limit(blocks);
            }
        }
        self
    }

    /// A whole call's bound (`timeout` bounds each attempt): every provider of the chain
    /// may be tried once.
    pub(crate) fn call_budget(&self) -> Duration {
        let most = self.providers.values().map(|p| p.as_ref().len()).max();
        self.timeout * u32::try_from(most.unwrap_or(1).max(1)).unwrap_or(1)
    }

    fn known_domain(&self, chain: ChainId, token: Address) -> Option<Option<TokenDomain>> {
        let domains = self.domains.lock().unwrap_or_else(|p| p.into_inner());
        domains.get(&(chain.id(), token)).cloned()
    }

    fn lock_block_times(&self) -> std::sync::MutexGuard<'_, HashMap<(u64, BlockHash), Timestamp>> {
        self.block_times.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn remember_domain(&self, chain: ChainId, token: Address, domain: Option<TokenDomain>) {
        let mut domains = self.domains.lock().unwrap_or_else(|p| p.into_inner());
        domains.insert((chain.id(), token), domain);
    }

    pub fn provider(&self, chain: ChainId) -> Result<&RpcProvider, ChainError> {
        self.providers
            .get(&chain.id())
            .ok_or(ChainError::NotConfigured(chain.id()))
    }

    /// How many providers the chain has configured (0 when none).
    pub fn provider_count(&self, chain: ChainId) -> usize {
        self.providers
            .get(&chain.id())
            .map_or(0, |p| p.as_ref().len())
    }

    /// The provider at 1-based `position` in the chain's list, alone (no failover).
    pub fn provider_at(
        &self,
        chain: ChainId,
        position: usize,
    ) -> Result<Provider<ethers::providers::Http>, ChainError> {
        self.provider(chain)?
            .as_ref()
            .only(position)
            .map(Provider::new)
            .ok_or(ChainError::NotConfigured(chain.id()))
    }

    pub(crate) async fn timed<T, E: std::fmt::Display>(
        &self,
        what: &str,
        f: impl std::future::Future<Output = Result<T, E>>,
    ) -> Result<T, ChainError> {
        let started = std::time::Instant::now();
        let budget = self.call_budget();
        let result = tokio::time::timeout(budget, f).await;
        let method = what.to_owned();
        metrics::histogram!("stablepay_rpc_request_seconds", "method" => method.clone())
            .record(started.elapsed().as_secs_f64());
        match result {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => {
                metrics::counter!("stablepay_rpc_errors_total", "method" => method, "kind" => "error")
                    .increment(1);
                Err(ChainError::Unavailable(redact_urls(&format!(
                    "{what}: {e}"
                ))))
            }
            Err(_) => {
                metrics::counter!("stablepay_rpc_errors_total", "method" => method, "kind" => "timeout")
                    .increment(1);
                Err(ChainError::Unavailable(format!(
                    "{what}: timed out after {budget:?}"
                )))
            }
        }
    }
}

impl EvmChain {
    /// Transactions that emitted one of `topics` from `emitter` in `from..=to`.
    async fn logged_txs(
        &self,
        chain: ChainId,
        emitter: Address,
        topics: Vec<H256>,
        from: u64,
        to: u64,
    ) -> Result<Vec<LoggedTx>, ChainError> {
        let p = self.provider(chain)?;
        let filter = ethers::types::Filter::new()
            .address(to_h160(&emitter))
            .topic0(topics)
            .from_block(from)
            .to_block(to);
        let logs = self.timed("eth_getLogs", p.get_logs(&filter)).await?;
        logged_txs_of(&logs, from, to)
    }
}

#[async_trait]
impl ChainReader for EvmChain {
    async fn block_number(&self, chain: ChainId) -> Result<u64, ChainError> {
        let p = self.provider(chain)?;
        // U64 is a single 64-bit word: `as_u64` cannot overflow.
        Ok(self
            .timed("eth_blockNumber", p.get_block_number())
            .await?
            .as_u64())
    }

    async fn receipt(
        &self,
        chain: ChainId,
        tx: TxHash,
    ) -> Result<Option<ChainReceipt>, ChainError> {
        let p = self.provider(chain)?;
        let receipt = self
            .timed(
                "eth_getTransactionReceipt",
                p.get_transaction_receipt(H256::from(*tx.as_bytes())),
            )
            .await?;
        match receipt {
            Some(r) => receipt_facts(tx, &r),
            None => Ok(None),
        }
    }

    async fn block_hash(
        &self,
        chain: ChainId,
        number: u64,
    ) -> Result<Option<BlockHash>, ChainError> {
        let p = self.provider(chain)?;
        let block = self
            .timed("eth_getBlockByNumber", p.get_block(number))
            .await?;
        block_hash_of(block.as_ref(), number)
    }

    async fn block_time(
        &self,
        chain: ChainId,
        block: BlockHash,
    ) -> Result<Option<Timestamp>, ChainError> {
        let key = (chain.id(), block);
        if let Some(known) = self.lock_block_times().get(&key) {
            return Ok(Some(*known));
        }
        let p = self.provider(chain)?;
        let found = self
            .timed(
                "eth_getBlockByHash",
                p.get_block(ethers::types::H256(*block.as_bytes())),
            )
            .await?;
        let time = block_time_of(found.as_ref(), block)?;
        if let Some(time) = time {
            let mut known = self.lock_block_times();
            if known.len() >= BLOCK_TIMES_KEPT {
                known.clear();
            }
            known.insert(key, time);
        }
        Ok(time)
    }

    async fn checkout_paid_logs(
        &self,
        chain: ChainId,
        router: Address,
        from: u64,
        to: u64,
    ) -> Result<Vec<LoggedTx>, ChainError> {
        self.logged_txs(
            chain,
            router,
            vec![CheckoutPaidFilter::signature()],
            from,
            to,
        )
        .await
    }

    async fn subscription_logs(
        &self,
        chain: ChainId,
        manager: Address,
        from: u64,
        to: u64,
    ) -> Result<Vec<LoggedTx>, ChainError> {
        let topics = vec![
            SubscribedFilter::signature(),
            ChargedFilter::signature(),
            CanceledFilter::signature(),
        ];
        self.logged_txs(chain, manager, topics, from, to).await
    }

    async fn token_transfers(
        &self,
        chain: ChainId,
        tokens: &[Address],
        from: u64,
        to: u64,
    ) -> Result<Vec<TransferLog>, ChainError> {
        if tokens.is_empty() {
            return Ok(Vec::new());
        }
        let p = self.provider(chain)?;
        let filter = ethers::types::Filter::new()
            .address(tokens.iter().map(to_h160).collect::<Vec<_>>())
            .topic0(H256::from(decode::TRANSFER_TOPIC))
            .from_block(from)
            .to_block(to);
        let logs = self.timed("eth_getLogs", p.get_logs(&filter)).await?;
        transfer_logs_of(&logs, from, to)
    }

    async fn subscription_plan(
        &self,
        chain: ChainId,
        manager: Address,
        plan_id: u128,
    ) -> Result<Option<OnChainPlan>, ChainError> {
        let p = self.provider(chain)?;
        let contract = SubscriptionManager::new(to_h160(&manager), std::sync::Arc::new(p.clone()));
        // Raw output: `plan_of` decodes it strictly.
        let call = contract.plans(U256::from(plan_id));
        let output = self.timed("plans", p.call(&call.tx, call.block)).await?;
        plan_of(plan_id, &output)
    }

    async fn token_balance(
        &self,
        chain: ChainId,
        token: Address,
        holder: Address,
    ) -> Result<u128, ChainError> {
        self.balance_of(chain, token, holder).await
    }

    async fn authorization_domain(
        &self,
        chain: ChainId,
        token: Address,
    ) -> Result<Option<TokenDomain>, ChainError> {
        self.token_domain(chain, token).await
    }

    async fn price_feed_round(
        &self,
        chain: ChainId,
        feed: Address,
    ) -> Result<Option<stablepay_domain::FeedRound>, ChainError> {
        self.feed_round(chain, feed).await
    }

    async fn is_contract(&self, chain: ChainId, address: Address) -> Result<bool, ChainError> {
        let p = self.provider(chain)?;
        let code: Bytes = self
            .timed("eth_getCode", p.get_code(to_h160(&address), None))
            .await?;
        Ok(!code.is_empty())
    }

    async fn is_valid_signature(
        &self,
        chain: ChainId,
        wallet: Address,
        hash: [u8; 32],
        signature: &Signature,
    ) -> Result<bool, ChainError> {
        let p = self.provider(chain)?.clone();
        let contract = Erc1271::new(to_h160(&wallet), std::sync::Arc::new(p));
        let call = contract.is_valid_signature(hash, Bytes::from(signature.as_bytes().to_vec()));
        // A revert means "not valid", not "unavailable".
        match tokio::time::timeout(self.call_budget(), call.call()).await {
            Ok(Ok(magic)) => Ok(magic == ERC1271_MAGIC),
            Ok(Err(e)) if e.is_revert() => Ok(false),
            Ok(Err(e)) => Err(ChainError::Unavailable(redact_urls(&format!(
                "isValidSignature: {e}"
            )))),
            Err(_) => Err(ChainError::Unavailable(
                "isValidSignature: timed out".into(),
            )),
        }
    }
}
