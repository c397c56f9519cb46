//! A sending key's ETH (D26): read at most every few seconds per chain (every hosted page
//! and every charge asks), reported as a gauge, and held against the key's floor: under
//! it the key takes no new work.

use std::collections::HashMap;
use std::sync::Mutex;

use stablepay_domain::ports::ChainError;
use stablepay_domain::{Address, ChainId, Timestamp};

use crate::EvmChain;

/// How long a balance read answers (a page view need not cost an RPC call).
pub const BALANCE_TTL_SECS: i64 = 5;

/// A value per chain, read again only once its last read is [`BALANCE_TTL_SECS`] old: what
/// every hosted page and every charge asks of a key (its balance, the relayer's hour of
/// gas) costs one read per chain every few seconds, not one per request.
pub struct FreshPerChain<T> {
    last: Mutex<HashMap<ChainId, (Timestamp, T)>>,
}

impl<T: Copy> Default for FreshPerChain<T> {
    fn default() -> Self {
        Self {
            last: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: Copy> FreshPerChain<T> {
    /// The value read for `chain` less than [`BALANCE_TTL_SECS`] before `now`, or what
    /// `read` answers now (kept when it answers; an error is not).
    pub async fn get<E, F>(&self, chain: ChainId, now: Timestamp, read: F) -> Result<T, E>
    where
        F: std::future::Future<Output = Result<T, E>>,
    {
        let cached = self
            .last
            .lock()
            .ok()
            .and_then(|b| b.get(&chain).copied())
            .filter(|(at, _)| now.unix_seconds() - at.unix_seconds() < BALANCE_TTL_SECS);
        if let Some((_, value)) = cached {
            return Ok(value);
        }
        let value = read.await?;
        if let Ok(mut b) = self.last.lock() {
            b.insert(chain, (now, value));
        }
        Ok(value)
    }
}

pub struct KeyBalance {
    address: Address,
    floor_wei: u128,
    /// The gauge, in whole gwei: `stablepay_relayer_balance_gwei` or `..._keeper_...`.
    metric: &'static str,
    last: FreshPerChain<u128>,
}

impl KeyBalance {
    pub fn new(address: Address, floor_wei: u128, metric: &'static str) -> Self {
        Self {
            address,
            floor_wei,
            metric,
            last: FreshPerChain::default(),
        }
    }

    /// Whether the key holds at least its floor on `chain` (a read at most
    /// `BALANCE_TTL_SECS` old). Errors: the node did not answer (unknown).
    pub async fn above_floor(
        &self,
        evm: &EvmChain,
        chain: ChainId,
        now: Timestamp,
    ) -> Result<bool, ChainError> {
        let wei = self
            .last
            .get(chain, now, async {
                let wei = evm.native_balance(chain, self.address).await?;
                // Whole gwei as a float: a gauge, not money.
                metrics::gauge!(self.metric, "chain" => chain.id().to_string())
                    .set((wei / 1_000_000_000) as f64);
                Ok::<_, ChainError>(wei)
            })
            .await?;
        Ok(wei >= self.floor_wei)
    }
}
