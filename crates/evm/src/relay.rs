//! What the relayer needs from the chain (D23, D26): an `eth_call` of a one-signature
//! payment from the relayer, the relayer's ETH, and a signed transaction of any call.

use ethers::providers::Middleware;
use ethers::signers::{LocalWallet, Signer};
use ethers::types::transaction::eip2718::TypedTransaction;
use ethers::types::{BlockNumber, Bytes, Eip1559TransactionRequest, U256};
use ethers::utils::keccak256;
use stablepay_domain::ports::{ChainError, OneSignaturePayment, RelaySimulation};
use stablepay_domain::{Address, ChainId, TxHash};

use crate::fees::Fees;
use crate::keeper::SignedTx;
use crate::tokens::{revert_reason, CallOutcome};
use crate::{calldata, redact_urls, to_h160, EvmChain};

/// Gas for one `payWithAuthorization` (about 101k on the dev chain; real USDC's proxy and
/// blacklist checks cost more).
pub const ONE_SIGNATURE_GAS: u64 = 250_000;

/// The calldata of a one-signature payment.
pub fn payment_calldata(payment: &OneSignaturePayment) -> Vec<u8> {
    calldata::pay_with_authorization(
        &payment.intent,
        &payment.operator_signature,
        &payment.payer,
        payment.valid_before,
        &payment.payer_signature,
    )
}

impl EvmChain {
    /// `eth_call` of the payment from `relayer` against the pending block (where it would
    /// be mined). A revert is an answer with its reason; anything else is unknown.
    pub async fn simulate_payment(
        &self,
        chain: ChainId,
        relayer: Address,
        payment: &OneSignaturePayment,
    ) -> Result<RelaySimulation, ChainError> {
        let pending = Some(BlockNumber::Pending.into());
        let data = payment_calldata(payment);
        match self
            .call_raw(chain, Some(relayer), payment.router, data, pending)
            .await?
        {
            CallOutcome::Returned(_) => Ok(RelaySimulation::Succeeds),
            CallOutcome::Reverted(data) => Ok(RelaySimulation::Reverts(revert_reason(&data))),
        }
    }

    /// The account's ETH, in wei (saturating at u128::MAX, far beyond any floor).
    pub async fn native_balance(
        &self,
        chain: ChainId,
        account: Address,
    ) -> Result<u128, ChainError> {
        let provider = self.provider(chain)?;
        let wei: U256 = self
            .timed(
                "eth_getBalance",
                provider.get_balance(to_h160(&account), None),
            )
            .await?;
        Ok(u128::try_from(wei).unwrap_or(u128::MAX))
    }
}

/// Signs a call of `data` on `to` with `nonce` (an EIP-1559 transaction, fixed gas, the
/// given fees: D26).
pub fn sign_call(
    wallet: &LocalWallet,
    chain: ChainId,
    to: Address,
    data: Vec<u8>,
    gas: u64,
    nonce: u64,
    fees: Fees,
) -> Result<SignedTx, String> {
    let tx: TypedTransaction = Eip1559TransactionRequest::new()
        .from(wallet.address())
        .to(to_h160(&to))
        .data(Bytes::from(data))
        .nonce(nonce)
        .gas(gas)
        .max_fee_per_gas(fees.max_fee_per_gas)
        .max_priority_fee_per_gas(fees.max_priority_fee_per_gas)
        .chain_id(chain.id())
        .into();
    let signature = wallet
        .sign_transaction_sync(&tx)
        .map_err(|e| redact_urls(&format!("signing failed: {e}")))?;
    let raw = tx.rlp_signed(&signature).to_vec();
    let hash = TxHash::from_bytes(keccak256(&raw));
    Ok(SignedTx { hash, raw })
}

/// What a mined transaction cost: whether it succeeded, its gas, and its effective gas price.
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

impl EvmChain {
    /// The gas a mined transaction used and paid for; `None` while it is not mined. A
    /// receipt missing a field, or with values beyond their types, is unknown.
    pub async fn gas_receipt(
        &self,
        chain: ChainId,
        tx: TxHash,
    ) -> Result<Option<GasReceipt>, ChainError> {
        Ok(self.mined_receipt(chain, tx).await?.map(|(gas, _)| gas))
    }

    /// A mined `sweepMany`: its gas, and the (session ref, token) of each entry that failed
    /// (`SweepFailed` logs of `factory`); `None` while it is not mined.
    pub async fn sweep_receipt(
        &self,
        chain: ChainId,
        factory: Address,
        tx: TxHash,
    ) -> Result<Option<(GasReceipt, Vec<([u8; 32], Address)>)>, ChainError> {
        use ethers::contract::EthEvent;
        let topic = crate::bindings::deposit_factory::SweepFailedFilter::signature();
        let Some((gas, logs)) = self.mined_receipt(chain, tx).await? else {
            return Ok(None);
        };
        let failed = logs
            .iter()
            .filter(|l| l.address == to_h160(&factory) && l.topics.first() == Some(&topic))
            .filter_map(|l| {
                // SweepFailed(bytes32 indexed ref, address indexed token).
                let session_ref = l.topics.get(1)?.0;
                let token = l.topics.get(2)?.0;
                let token: [u8; 20] = token[12..].try_into().ok()?;
                Some((session_ref, Address::from_bytes(token)))
            })
            .collect();
        Ok(Some((gas, failed)))
    }

    async fn mined_receipt(
        &self,
        chain: ChainId,
        tx: TxHash,
    ) -> Result<Option<(GasReceipt, Vec<ethers::types::Log>)>, ChainError> {
        let provider = self.provider(chain)?;
        let hash = ethers::types::H256::from(*tx.as_bytes());
        let receipt = self
            .timed(
                "eth_getTransactionReceipt",
                provider.get_transaction_receipt(hash),
            )
            .await?;
        let Some(r) = receipt else {
            return Ok(None);
        };
        // U64 is a single 64-bit word: `as_u64` cannot overflow.
        let Some(block_number) = r.block_number.map(|b| b.as_u64()) else {
            return Ok(None);
        };
        let unknown =
            || ChainError::Unavailable("eth_getTransactionReceipt: malformed answer".into());
        if r.transaction_hash != hash {
            return Err(unknown());
        }
        let succeeded = match r.status {
            Some(s) if s == ethers::types::U64::one() => true,
            Some(s) if s.is_zero() => false,
            _ => return Err(unknown()),
        };
        let gas_used = r
            .gas_used
            .and_then(|g| u64::try_from(g).ok())
            .ok_or_else(unknown)?;
        let price = r
            .effective_gas_price
            .and_then(|p| u128::try_from(p).ok())
            .ok_or_else(unknown)?;
        let gas = GasReceipt {
            block_number,
            succeeded,
            gas_used,
            effective_gas_price_wei: price,
        };
        Ok(Some((gas, r.logs)))
    }
}
