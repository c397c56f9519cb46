//! The chain's answers about sent work (the `SentReceipts` port): no key is needed.

use async_trait::async_trait;
use stablepay_domain::ports::{
    ChainError, ChargeAttempt, MinedAttempt, MinedSweep, RelaySimulation, SentReceipts,
};
use stablepay_domain::{Address, ChainId};

use crate::EvmChain;

#[async_trait]
impl SentReceipts for EvmChain {
    async fn mined_nonce(&self, chain: ChainId, account: Address) -> Result<u64, ChainError> {
        EvmChain::mined_nonce(self, chain, account).await
    }

    async fn mined_attempt(
        &self,
        chain: ChainId,
        attempts: &[ChargeAttempt],
    ) -> Result<Option<MinedAttempt>, ChainError> {
        // Newest first: the one most likely mined is asked for first.
        for attempt in attempts {
            if let Some(gas) = self.gas_receipt(chain, attempt.tx_hash).await? {
                return Ok(Some(MinedAttempt {
                    attempt: *attempt,
                    gas,
                }));
            }
        }
        Ok(None)
    }

    async fn mined_sweep(
        &self,
        chain: ChainId,
        factory: Address,
        attempts: &[ChargeAttempt],
    ) -> Result<Option<MinedSweep>, ChainError> {
        // The failed entries come from the same receipt: one fetch per attempt.
        for attempt in attempts {
            if let Some((gas, failed)) = self.sweep_receipt(chain, factory, attempt.tx_hash).await?
            {
                return Ok(Some(MinedSweep {
                    attempt: *attempt,
                    gas,
                    failed,
                }));
            }
        }
        Ok(None)
    }

    async fn simulate_signed(
        &self,
        chain: ChainId,
        from: Address,
        raw: &[u8],
    ) -> Result<RelaySimulation, ChainError> {
        self.simulate_signed_call(chain, from, raw).await
    }
}
