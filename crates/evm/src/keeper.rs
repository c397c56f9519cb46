//! The keeper's chain calls (D19): simulate `charge` with `eth_call` and map the custom
//! error, sign a `charge` transaction for a given nonce, broadcast raw bytes. The nonce
//! itself comes from the database (the worker's nonce manager), never from the node.

use ethers::providers::{Middleware, RpcError};
use ethers::signers::LocalWallet;
use ethers::types::transaction::eip2718::TypedTransaction;
use ethers::types::{BlockNumber, Bytes, TransactionRequest};
use ethers::utils::id;
use stablepay_domain::ports::{ChainError, ChargeSimulation, SignedTx};
use stablepay_domain::rules::dunning::FailureCode;
use stablepay_domain::{Address, ChainId};

use crate::{calldata, redact_urls, to_h160, EvmChain};

/// Gas for one `charge` (it uses about 70k; a margin for token contracts that need more).
const CHARGE_GAS: u64 = 200_000;

/// What a revert's 4-byte selector says.
fn simulation_of(revert: &[u8]) -> Option<ChargeSimulation> {
    let selector = revert.get(..4)?;
    // `id` returns exactly 4 bytes; `[..]` is the whole array.
    let is = |sig: &str| selector == &id(sig)[..];
    Some(if is("NotDue()") {
        ChargeSimulation::NotDue
    } else if is("Inactive()") {
        ChargeSimulation::Fails(FailureCode::SubscriptionInactive)
    } else if is("InsufficientAllowance()") {
        ChargeSimulation::Fails(FailureCode::InsufficientAllowance)
    } else if is("InsufficientBalance()") {
        ChargeSimulation::Fails(FailureCode::InsufficientBalance)
    } else {
        return None;
    })
}

impl EvmChain {
    /// `eth_call` of `charge(id)` from `keeper`. A revert the contract explains is an
    /// answer; anything else (timeout, RPC error, unknown revert) is unknown.
    pub async fn simulate_charge(
        &self,
        chain: ChainId,
        keeper: Address,
        manager: Address,
        chain_subscription_id: u128,
    ) -> Result<ChargeSimulation, ChainError> {
        let provider = self.provider(chain)?;
        let tx: TypedTransaction = TransactionRequest::new()
            .from(to_h160(&keeper))
            .to(to_h160(&manager))
            .data(Bytes::from(calldata::charge(chain_subscription_id)))
            .into();
        // Against the pending block: the charge is mined in the next block, whose timestamp
        // is the one `NotDue` is judged by.
        let pending = Some(BlockNumber::Pending.into());
        let call = tokio::time::timeout(self.call_budget(), provider.call(&tx, pending)).await;
        match call {
            Ok(Ok(_)) => Ok(ChargeSimulation::Chargeable),
            Ok(Err(e)) => e
                .as_error_response()
                .and_then(|r| r.as_revert_data())
                .and_then(|data| simulation_of(&data))
                .ok_or_else(|| {
                    ChainError::Unavailable(redact_urls(&format!("eth_call charge: {e}")))
                }),
            Err(_) => Err(ChainError::Unavailable("eth_call charge: timed out".into())),
        }
    }

    /// The account's mined transaction count (the lowest nonce not yet used on chain).
    pub async fn mined_nonce(&self, chain: ChainId, account: Address) -> Result<u64, ChainError> {
        let provider = self.provider(chain)?;
        let n = self
            .timed(
                "eth_getTransactionCount",
                provider.get_transaction_count(to_h160(&account), Some(BlockNumber::Latest.into())),
            )
            .await?;
        // `low_u64` would truncate: a count beyond u64 is a malformed answer, unknown.
        u64::try_from(n).map_err(|_| {
            ChainError::Unavailable(format!(
                "eth_getTransactionCount: malformed answer: nonce {n} beyond u64"
            ))
        })
    }

    /// Broadcasts signed bytes. A node that already has the transaction (or has mined its
    /// nonce) answers an error that means nothing is lost: callers follow the receipt.
    pub async fn send_raw(&self, chain: ChainId, raw: &[u8]) -> Result<(), ChainError> {
        let provider = self.provider(chain)?;
        self.timed(
            "eth_sendRawTransaction",
            provider.send_raw_transaction(Bytes::from(raw.to_vec())),
        )
        .await
        .map(|_| ())
    }
}

/// Signs `charge(id)` on `manager` with `nonce` (EIP-1559, fixed gas, the given fees).
pub fn sign_charge(
    wallet: &LocalWallet,
    chain: ChainId,
    manager: Address,
    chain_subscription_id: u128,
    nonce: u64,
    fees: crate::fees::Fees,
) -> Result<SignedTx, String> {
    crate::relay::sign_call(
        wallet,
        chain,
        manager,
        calldata::charge(chain_subscription_id),
        CHARGE_GAS,
        nonce,
        fees,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_reverts_map_and_short_or_unknown_ones_do_not() {
        assert_eq!(
            simulation_of(&id("NotDue()")),
            Some(ChargeSimulation::NotDue)
        );
        assert_eq!(simulation_of(&[0x01, 0x02]), None);
        assert_eq!(simulation_of(&[]), None);
        assert_eq!(simulation_of(&[0; 36]), None);
    }
}
