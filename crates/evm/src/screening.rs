//! The on-chain sanctions oracle (D33) as a screening source: the interface analytics
//! vendors publish (`isSanctioned(address) → bool`; Chainalysis deploys it at the same
//! address on the major EVM chains, recorded in docs/operations.md), read with one
//! `eth_call` under the chain's timeout. Anything but a well-formed boolean answer (an RPC
//! error, a timeout, a revert, no contract at the address) is `Unknown`, never clear.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use stablepay_domain::ports::{ChainError, SanctionsSource};
use stablepay_domain::{Address, ChainId, ScreeningAnswer, ScreeningSource, SourceAnswer};

use crate::tokens::CallOutcome;
use crate::EvmChain;

/// The source's name in every stored check and metric.
pub const ORACLE_SOURCE: &str = "sanctions_oracle";

impl EvmChain {
    /// `oracle.isSanctioned(address)` now. Errors: the node did not answer, or answered
    /// something that is not a boolean (unknown).
    pub async fn is_sanctioned(
        &self,
        chain: ChainId,
        oracle: Address,
        address: Address,
    ) -> Result<bool, ChainError> {
        let mut data = ethers::utils::id("isSanctioned(address)").to_vec();
        data.extend_from_slice(&[0u8; 12]);
        data.extend_from_slice(address.as_bytes());
        let malformed = || ChainError::Unavailable("isSanctioned gave no boolean".into());
        match self.call_raw(chain, None, oracle, data, None).await? {
            CallOutcome::Returned(out) if out.len() == 32 && out[..31].iter().all(|b| *b == 0) => {
                match out[31] {
                    0 => Ok(false),
                    1 => Ok(true),
                    _ => Err(malformed()),
                }
            }
            _ => Err(malformed()),
        }
    }
}

/// The oracle on each chain where one is configured.
pub struct EvmSanctionsOracle {
    evm: Arc<EvmChain>,
    oracles: HashMap<ChainId, Address>,
}

impl EvmSanctionsOracle {
    pub fn new(evm: Arc<EvmChain>, oracles: impl IntoIterator<Item = (ChainId, Address)>) -> Self {
        Self {
            evm,
            oracles: oracles.into_iter().collect(),
        }
    }
}

#[async_trait]
impl SanctionsSource for EvmSanctionsOracle {
    fn covers(&self, chain: ChainId) -> bool {
        self.oracles.contains_key(&chain)
    }

    async fn check(&self, chain: ChainId, address: Address) -> SourceAnswer {
        let answer = match self.oracles.get(&chain) {
            None => ScreeningAnswer::Unknown,
            Some(oracle) => match self.evm.is_sanctioned(chain, *oracle, address).await {
                Ok(true) => ScreeningAnswer::Listed {
                    list: ORACLE_SOURCE.into(),
                    entry: None,
                },
                Ok(false) => ScreeningAnswer::Clear,
                Err(e) => {
                    tracing::warn!(chain = chain.id(), error = %e, "sanctions oracle did not answer");
                    ScreeningAnswer::Unknown
                }
            },
        };
        SourceAnswer {
            source: ScreeningSource {
                name: ORACLE_SOURCE.into(),
                version: None,
            },
            answer,
        }
    }
}
