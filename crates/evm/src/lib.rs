//! The EVM adapter: implements the domain's `ChainReader` with ethers over HTTP JSON-RPC.
//! Every call runs under a timeout and RPC failures are `ChainError::Unavailable` (the
//! caller retries); nothing here panics on a node's answer.

pub mod bindings;
pub mod calldata;
pub mod keeper;

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use ethers::abi::RawLog;
use ethers::contract::EthEvent;
use ethers::providers::{Http, Middleware, Provider};
use ethers::types::{Bytes, H160, H256, U256};
use stablepay_domain::ports::{
    ChainError, ChainReader, ChainReceipt, CheckoutPaid, LoggedTx, OnChainPlan, SubscriptionEvent,
    SubscriptionLog, TokenTransfer,
};
use stablepay_domain::{Address, BlockHash, ChainId, Signature, TxHash};

use crate::bindings::checkout_router::CheckoutPaidFilter;
use crate::bindings::erc1271::Erc1271;
use crate::bindings::subscription_manager::{
    CanceledFilter, ChargedFilter, SubscribedFilter, SubscriptionManager,
};

/// keccak256("Transfer(address,address,uint256)")
const TRANSFER_TOPIC: [u8; 32] = [
    0xdd, 0xf2, 0x52, 0xad, 0x1b, 0xe2, 0xc8, 0x9b, 0x69, 0xc2, 0xb0, 0x68, 0xfc, 0x37, 0x8d, 0xaa,
    0x95, 0x2b, 0xa7, 0xf1, 0x63, 0xc4, 0xa1, 0x16, 0x28, 0xf5, 0x5a, 0x4d, 0xf5, 0x23, 0xb3, 0xef,
];
const ERC1271_MAGIC: [u8; 4] = [0x16, 0x26, 0xba, 0x7e];

pub fn to_h160(a: &Address) -> H160 {
    H160::from(*a.as_bytes())
}

pub fn from_h160(a: H160) -> Address {
    Address::from_bytes(a.0)
}

fn u128_of(v: U256) -> Option<u128> {
    (v <= U256::from(u128::MAX)).then(|| v.as_u128())
}

pub struct EvmChain {
    providers: HashMap<u64, Provider<Http>>,
    timeout: Duration,
}

impl EvmChain {
    /// One HTTP provider per configured chain.
    pub fn new(rpc_urls: &[(ChainId, String)], timeout: Duration) -> Result<Self, String> {
        let mut providers = HashMap::new();
        for (chain, url) in rpc_urls {
            let provider = Provider::<Http>::try_from(url.as_str())
                .map_err(|e| format!("RPC URL for chain {}: {e}", chain.id()))?;
            providers.insert(chain.id(), provider.interval(Duration::from_millis(250)));
        }
        Ok(Self { providers, timeout })
    }

    pub fn provider(&self, chain: ChainId) -> Result<&Provider<Http>, ChainError> {
        self.providers
            .get(&chain.id())
            .ok_or(ChainError::NotConfigured(chain.id()))
    }

    pub(crate) async fn timed<T, E: std::fmt::Display>(
        &self,
        what: &str,
        f: impl std::future::Future<Output = Result<T, E>>,
    ) -> Result<T, ChainError> {
        let started = std::time::Instant::now();
        let result = tokio::time::timeout(self.timeout, f).await;
        let method = what.to_owned();
        metrics::histogram!("stablepay_rpc_request_seconds", "method" => method.clone())
            .record(started.elapsed().as_secs_f64());
        match result {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => {
                metrics::counter!("stablepay_rpc_errors_total", "method" => method, "kind" => "error")
                    .increment(1);
                Err(ChainError::Unavailable(format!("{what}: {e}")))
            }
            Err(_) => {
                metrics::counter!("stablepay_rpc_errors_total", "method" => method, "kind" => "timeout")
                    .increment(1);
                Err(ChainError::Unavailable(format!(
                    "{what}: timed out after {:?}",
                    self.timeout
                )))
            }
        }
    }
}

fn decode_transfer(log: &ethers::types::Log, log_index: u64) -> Option<TokenTransfer> {
    if log.topics.len() != 3 || log.topics[0].0 != TRANSFER_TOPIC || log.data.len() != 32 {
        return None;
    }
    Some(TokenTransfer {
        token: from_h160(log.address),
        from: from_h160(H160::from(log.topics[1])),
        to: from_h160(H160::from(log.topics[2])),
        value: u128_of(U256::from_big_endian(&log.data))?,
        log_index,
    })
}

fn decode_checkout_paid(log: &ethers::types::Log, log_index: u64) -> Option<CheckoutPaid> {
    if log.topics.first() != Some(&CheckoutPaidFilter::signature()) {
        return None;
    }
    let event = CheckoutPaidFilter::decode_log(&RawLog {
        topics: log.topics.clone(),
        data: log.data.to_vec(),
    })
    .ok()?;
    Some(CheckoutPaid {
        router: from_h160(log.address),
        reference: event.ref_,
        payer: from_h160(event.payer),
        recipient: from_h160(event.recipient),
        token: from_h160(event.token),
        net_amount: u128_of(event.net_amount)?,
        fee_amount: u128_of(event.fee_amount)?,
        log_index,
    })
}

fn decode_subscription_event(log: &ethers::types::Log, log_index: u64) -> Option<SubscriptionLog> {
    let topic = *log.topics.first()?;
    let raw = RawLog {
        topics: log.topics.clone(),
        data: log.data.to_vec(),
    };
    let event = if topic == SubscribedFilter::signature() {
        let e = SubscribedFilter::decode_log(&raw).ok()?;
        SubscriptionEvent::Subscribed {
            subscription_id: u128_of(e.subscription_id)?,
            plan_id: u128_of(e.plan_id)?,
            subscriber: from_h160(e.subscriber),
            reference: e.ref_,
            fee_amount: u128_of(e.fee_amount)?,
        }
    } else if topic == ChargedFilter::signature() {
        let e = ChargedFilter::decode_log(&raw).ok()?;
        SubscriptionEvent::Charged {
            subscription_id: u128_of(e.subscription_id)?,
            plan_id: u128_of(e.plan_id)?,
            subscriber: from_h160(e.subscriber),
            net_amount: u128_of(e.net_amount)?,
            fee_amount: u128_of(e.fee_amount)?,
            next_charge_at: e.next_charge_at,
        }
    } else if topic == CanceledFilter::signature() {
        let e = CanceledFilter::decode_log(&raw).ok()?;
        SubscriptionEvent::Canceled {
            subscription_id: u128_of(e.subscription_id)?,
            by: from_h160(e.by),
        }
    } else {
        return None;
    };
    Some(SubscriptionLog {
        manager: from_h160(log.address),
        log_index,
        event,
    })
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
        let mut txs: Vec<LoggedTx> = Vec::new();
        for log in &logs {
            // A log without its position (a pending-block answer) is skipped: the range
            // is read again until it is mined.
            let (Some(tx), Some(number), Some(hash)) =
                (log.transaction_hash, log.block_number, log.block_hash)
            else {
                continue;
            };
            let tx = TxHash::from_bytes(tx.0);
            if !txs.iter().any(|t| t.tx_hash == tx) {
                txs.push(LoggedTx {
                    tx_hash: tx,
                    block_number: number.as_u64(),
                    block_hash: BlockHash::from_bytes(hash.0),
                });
            }
        }
        Ok(txs)
    }
}

#[async_trait]
impl ChainReader for EvmChain {
    async fn block_number(&self, chain: ChainId) -> Result<u64, ChainError> {
        let p = self.provider(chain)?;
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
        let Some(r) = self
            .timed(
                "eth_getTransactionReceipt",
                p.get_transaction_receipt(H256::from(*tx.as_bytes())),
            )
            .await?
        else {
            return Ok(None);
        };
        // A receipt without its block is not a fact yet (a pending or half-indexed answer).
        let (Some(block), Some(block_hash)) = (r.block_number, r.block_hash) else {
            return Ok(None);
        };
        let mut transfers = Vec::new();
        let mut checkout_paid = Vec::new();
        let mut subscription_events = Vec::new();
        for log in &r.logs {
            let index = log.log_index.map(|i| i.as_u64()).unwrap_or_default();
            if let Some(t) = decode_transfer(log, index) {
                transfers.push(t);
            } else if let Some(c) = decode_checkout_paid(log, index) {
                checkout_paid.push(c);
            } else if let Some(e) = decode_subscription_event(log, index) {
                subscription_events.push(e);
            }
        }
        Ok(Some(ChainReceipt {
            tx_hash: tx,
            block_number: block.as_u64(),
            block_hash: BlockHash::from_bytes(block_hash.0),
            succeeded: r.status.is_some_and(|s| s.as_u64() == 1),
            transfers,
            checkout_paid,
            subscription_events,
        }))
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
        Ok(block
            .and_then(|b| b.hash)
            .map(|h| BlockHash::from_bytes(h.0)))
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

    async fn subscription_plan(
        &self,
        chain: ChainId,
        manager: Address,
        plan_id: u128,
    ) -> Result<Option<OnChainPlan>, ChainError> {
        let p = self.provider(chain)?.clone();
        let contract = SubscriptionManager::new(to_h160(&manager), std::sync::Arc::new(p));
        let (creator, token, recipient, amount, interval) = self
            .timed("plans", contract.plans(U256::from(plan_id)).call())
            .await?;
        // An unset mapping entry reads as zeros: no such plan.
        if creator.is_zero() {
            return Ok(None);
        }
        Ok(Some(OnChainPlan {
            plan_id,
            creator: from_h160(creator),
            token: from_h160(token),
            recipient: from_h160(recipient),
            // Amounts beyond u128 cannot be any stablecoin plan this service accepts.
            amount: u128_of(amount).unwrap_or(u128::MAX),
            interval_seconds: interval,
        }))
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
        match tokio::time::timeout(self.timeout, call.call()).await {
            Ok(Ok(magic)) => Ok(magic == ERC1271_MAGIC),
            Ok(Err(e)) if e.is_revert() => Ok(false),
            Ok(Err(e)) => Err(ChainError::Unavailable(format!("isValidSignature: {e}"))),
            Err(_) => Err(ChainError::Unavailable(
                "isValidSignature: timed out".into(),
            )),
        }
    }
}
