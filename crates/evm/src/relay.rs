//! What the relayer needs from the chain (D23, D26): an `eth_call` of a one-signature
//! payment from the relayer, the relayer's ETH, and a signed transaction of any call.

use ethers::providers::Middleware;
use ethers::signers::{LocalWallet, Signer};
use ethers::types::transaction::eip2718::TypedTransaction;
use ethers::types::{BlockNumber, Bytes, Eip1559TransactionRequest, U256};
use ethers::utils::keccak256;
use stablepay_domain::ports::{
    ChainError, GasReceipt, OneSignaturePayment, RelaySimulation, SignedTx, TransferPayment,
};
use stablepay_domain::{Address, ChainId, TxHash};

use crate::fees::Fees;
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

/// Gas for one `transferWithAuthorization` (about 60k on the dev chain; real USDC's proxy,
/// blacklist and ERC-1271 checks cost more).
pub const X402_GAS: u64 = 150_000;

/// The calldata of an x402 payment (sent to the token).
pub fn transfer_calldata(payment: &TransferPayment) -> Vec<u8> {
    calldata::transfer_with_authorization(&payment.authorization, &payment.signature)
}

/// A relayed call exactly as it will be signed (D30): target, calldata, gas limit and the
/// EIP-1559 fee fields. Simulated with these, from the relayer, against the pending block,
/// a payer whose checks depend on `gasleft()` or the gas price sees what the chain will.
#[derive(Debug, Clone)]
pub struct RelayCall {
    pub to: Address,
    pub data: Vec<u8>,
    pub gas: u64,
    pub fees: Fees,
}

impl RelayCall {
    pub fn payment(payment: &OneSignaturePayment, fees: Fees) -> Self {
        Self {
            to: payment.router,
            data: payment_calldata(payment),
            gas: ONE_SIGNATURE_GAS,
            fees,
        }
    }

    pub fn transfer(payment: &TransferPayment, fees: Fees) -> Self {
        Self {
            to: payment.token,
            data: transfer_calldata(payment),
            gas: X402_GAS,
            fees,
        }
    }
}

impl EvmChain {
    /// `eth_call` of `call` from `relayer` with its gas limit and fee fields, against the
    /// pending block (where it would be mined). A revert is an answer with its reason;
    /// anything else is unknown.
    pub async fn simulate_relay(
        &self,
        chain: ChainId,
        relayer: Address,
        call: &RelayCall,
    ) -> Result<RelaySimulation, ChainError> {
        let tx: TypedTransaction = Eip1559TransactionRequest::new()
            .from(to_h160(&relayer))
            .to(to_h160(&call.to))
            .data(Bytes::from(call.data.clone()))
            .gas(call.gas)
            .max_fee_per_gas(call.fees.max_fee_per_gas)
            .max_priority_fee_per_gas(call.fees.max_priority_fee_per_gas)
            .chain_id(chain.id())
            .into();
        let pending = Some(BlockNumber::Pending.into());
        match self.call_tx(chain, &tx, pending).await? {
            CallOutcome::Returned(_) => Ok(RelaySimulation::Succeeds),
            CallOutcome::Reverted(data) => Ok(RelaySimulation::Reverts(revert_reason(&data))),
        }
    }

    /// The keccak of the code at `address`, or `None` for an account without code (an
    /// EOA): a contract payer's identity for the relayer's cool-down (D30).
    pub async fn code_hash(
        &self,
        chain: ChainId,
        address: Address,
    ) -> Result<Option<[u8; 32]>, ChainError> {
        let provider = self.provider(chain)?;
        let code: Bytes = self
            .timed("eth_getCode", provider.get_code(to_h160(&address), None))
            .await?;
        Ok((!code.is_empty()).then(|| keccak256(&code)))
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

/// Gas of a 0-value transfer to an account without code.
pub const FILL_GAS: u64 = 21_000;

/// Gas for a router `cancel` (50,666 measured for a fresh ref).
pub const CANCEL_GAS: u64 = 80_000;

/// The fill of a one-signature relay's nonce: the operator-signed `cancel` of its ref, to
/// the router (D30). What the sender signs instead of a 0-value self-transfer.
pub fn cancel_fill(payment: &OneSignaturePayment) -> (Address, Vec<u8>) {
    (
        payment.router,
        calldata::cancel(&payment.intent.reference, &payment.cancel_signature),
    )
}

/// The call of the signed transaction `raw` (its target, data and gas) signed again at
/// `nonce` with `fees`: a replacement at higher fees (D26). A transaction that cannot be
/// decoded, or calls nothing, is an error.
pub fn resign(
    wallet: &LocalWallet,
    chain: ChainId,
    raw: &[u8],
    nonce: u64,
    fees: Fees,
) -> Result<SignedTx, String> {
    let (to, data, gas) = signed_call(raw)?;
    sign_call(wallet, chain, to, data, gas, nonce, fees)
}

/// The target, data and gas limit of the signed transaction `raw`.
fn signed_call(raw: &[u8]) -> Result<(Address, Vec<u8>, u64), String> {
    let rlp = ethers::utils::rlp::Rlp::new(raw);
    let (tx, _) = TypedTransaction::decode_signed(&rlp)
        .map_err(|e| format!("a stored transaction does not decode: {e}"))?;
    let to = tx
        .to_addr()
        .copied()
        .ok_or("a stored transaction calls nothing")?;
    let gas = tx
        .gas()
        .and_then(|g| u64::try_from(*g).ok())
        .ok_or("a stored transaction has no gas limit")?;
    let data = tx.data().map(|d| d.to_vec()).unwrap_or_default();
    Ok((crate::from_h160(to), data, gas))
}

impl EvmChain {
    /// `eth_call` from `from`, against the latest block, of the call the signed
    /// transaction `raw` makes: whether sending it again would still do its work. The
    /// latest block, not the pending one, so the transaction itself waiting in the pool
    /// never makes its own re-check fail. A revert is an answer; anything else is unknown.
    pub async fn simulate_signed_call(
        &self,
        chain: ChainId,
        from: Address,
        raw: &[u8],
    ) -> Result<RelaySimulation, ChainError> {
        let (to, data, _) = signed_call(raw).map_err(ChainError::Unavailable)?;
        let latest = Some(BlockNumber::Latest.into());
        match self.call_raw(chain, Some(from), to, data, latest).await? {
            CallOutcome::Returned(_) => Ok(RelaySimulation::Succeeds),
            CallOutcome::Reverted(data) => Ok(RelaySimulation::Reverts(revert_reason(&data))),
        }
    }
}

/// A 0-value transfer from the wallet to itself at `nonce`: it uses the nonce up and does
/// nothing else, so the nonces after it are not stuck behind work no longer wanted.
pub fn sign_fill(
    wallet: &LocalWallet,
    chain: ChainId,
    nonce: u64,
    fees: Fees,
) -> Result<SignedTx, String> {
    let me = crate::from_h160(wallet.address());
    sign_call(wallet, chain, me, Vec::new(), FILL_GAS, nonce, fees)
}

/// The fill of `nonce`: the work's own fill call when it has one (a router relay's
/// `cancel` of its ref, D30), else a 0-value self-transfer.
pub fn sign_fill_with(
    wallet: &LocalWallet,
    chain: ChainId,
    nonce: u64,
    fees: Fees,
    fill: Option<(Address, Vec<u8>)>,
) -> Result<SignedTx, String> {
    match fill {
        Some((to, data)) => sign_call(wallet, chain, to, data, CANCEL_GAS, nonce, fees),
        None => sign_fill(wallet, chain, nonce, fees),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn wallet() -> LocalWallet {
        LocalWallet::from_bytes(&[7u8; 32])
            .unwrap()
            .with_chain_id(84532u64)
    }

    const FEES: Fees = Fees {
        max_fee_per_gas: 3_000_000_000,
        max_priority_fee_per_gas: 1_000_000,
    };

    #[test]
    fn a_replacement_is_the_same_call_at_the_same_nonce_with_the_new_fees() {
        let to = Address::from_bytes([0x11; 20]);
        let first = sign_call(
            &wallet(),
            ChainId::BaseSepolia,
            to,
            vec![1, 2, 3],
            90_000,
            7,
            FEES,
        )
        .unwrap();
        let higher = Fees {
            max_fee_per_gas: 4_000_000_000,
            max_priority_fee_per_gas: 2_000_000,
        };
        let again = resign(&wallet(), ChainId::BaseSepolia, &first.raw, 7, higher).unwrap();
        let expected = sign_call(
            &wallet(),
            ChainId::BaseSepolia,
            to,
            vec![1, 2, 3],
            90_000,
            7,
            higher,
        )
        .unwrap();
        assert_eq!(again.raw, expected.raw);
        assert_ne!(again.hash, first.hash);
        assert!(resign(&wallet(), ChainId::BaseSepolia, &[0x02, 0xc0], 7, higher).is_err());
    }

    #[test]
    fn a_fill_sends_nothing_to_the_sender_itself() {
        let fill = sign_fill(&wallet(), ChainId::BaseSepolia, 9, FEES).unwrap();
        let rlp = ethers::utils::rlp::Rlp::new(&fill.raw);
        let (tx, _) = TypedTransaction::decode_signed(&rlp).unwrap();
        assert_eq!(tx.to_addr(), Some(&wallet().address()));
        assert_eq!(tx.value().copied().unwrap_or_default(), U256::zero());
        assert_eq!(tx.gas(), Some(&U256::from(FILL_GAS)));
        assert_eq!(tx.nonce(), Some(&U256::from(9)));
        assert!(tx.data().is_none_or(|d| d.is_empty()));
    }
}
