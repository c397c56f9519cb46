//! Token reads for one-signature payments: balances, and the EIP-712 domain a token signs
//! EIP-3009 authorizations under (D23). A token without one (`version()` or
//! `DOMAIN_SEPARATOR()` reverts) is a fact; a node that fails or is late is unknown.

use ethers::abi::{ParamType, Token};
use ethers::providers::{Middleware, RpcError};
use ethers::types::transaction::eip2718::TypedTransaction;
use ethers::types::{BlockId, Bytes, TransactionRequest, U256};
use stablepay_domain::ports::ChainError;
use stablepay_domain::rules::eip3009::TokenDomain;
use stablepay_domain::{Address, ChainId};

use crate::{redact_urls, to_h160, EvmChain};

/// What an `eth_call` did.
pub(crate) enum CallOutcome {
    Returned(Bytes),
    /// The call reverted, with its revert data (possibly empty).
    Reverted(Bytes),
}

const NAME: [u8; 4] = [0x06, 0xfd, 0xde, 0x03];
const VERSION: [u8; 4] = [0x54, 0xfd, 0x4d, 0x50];
const DOMAIN_SEPARATOR: [u8; 4] = [0x36, 0x44, 0xe5, 0x15];
const BALANCE_OF: [u8; 4] = [0x70, 0xa0, 0x82, 0x31];

fn malformed(what: &str) -> ChainError {
    ChainError::Unavailable(format!("{what}: malformed answer"))
}

impl EvmChain {
    /// `eth_call` of `data` to `to` (from `from`, at `block` or latest). A revert is an
    /// answer; an RPC error that is not a revert, or a timeout, is unknown.
    pub(crate) async fn call_raw(
        &self,
        chain: ChainId,
        from: Option<Address>,
        to: Address,
        data: Vec<u8>,
        block: Option<BlockId>,
    ) -> Result<CallOutcome, ChainError> {
        let mut request = TransactionRequest::new()
            .to(to_h160(&to))
            .data(Bytes::from(data));
        if let Some(from) = from {
            request = request.from(to_h160(&from));
        }
        self.call_tx(chain, &request.into(), block).await
    }

    /// `eth_call` of `tx` as given (a relayed call carries its gas limit and fees, D30).
    pub(crate) async fn call_tx(
        &self,
        chain: ChainId,
        tx: &TypedTransaction,
        block: Option<BlockId>,
    ) -> Result<CallOutcome, ChainError> {
        let provider = self.provider(chain)?;
        match tokio::time::timeout(self.call_budget(), provider.call(tx, block)).await {
            Ok(Ok(out)) => Ok(CallOutcome::Returned(out)),
            Ok(Err(e)) => match e.as_error_response() {
                Some(r) if r.as_revert_data().is_some() || r.message.contains("revert") => Ok(
                    CallOutcome::Reverted(r.as_revert_data().unwrap_or_default()),
                ),
                _ => Err(ChainError::Unavailable(redact_urls(&format!(
                    "eth_call: {e}"
                )))),
            },
            Err(_) => Err(ChainError::Unavailable("eth_call: timed out".into())),
        }
    }

    /// `balanceOf(holder)`; a balance beyond u128 is a malformed answer.
    pub(crate) async fn balance_of(
        &self,
        chain: ChainId,
        token: Address,
        holder: Address,
    ) -> Result<u128, ChainError> {
        let mut data = BALANCE_OF.to_vec();
        data.extend_from_slice(&[0u8; 12]);
        data.extend_from_slice(holder.as_bytes());
        match self.call_raw(chain, None, token, data, None).await? {
            CallOutcome::Returned(out) if out.len() == 32 => {
                u128::try_from(U256::from_big_endian(&out)).map_err(|_| malformed("balanceOf"))
            }
            _ => Err(malformed("balanceOf")),
        }
    }

    /// The token's EIP-3009 domain, read from the chain once per process and token.
    pub(crate) async fn token_domain(
        &self,
        chain: ChainId,
        token: Address,
    ) -> Result<Option<TokenDomain>, ChainError> {
        if let Some(known) = self.known_domain(chain, token) {
            return Ok(known);
        }
        let string = |out: &Bytes, what: &str| -> Result<String, ChainError> {
            match ethers::abi::decode(&[ParamType::String], out)
                .ok()
                .as_deref()
            {
                Some([Token::String(s)]) => Ok(s.clone()),
                _ => Err(malformed(what)),
            }
        };
        let read = |selector: [u8; 4]| self.call_raw(chain, None, token, selector.to_vec(), None);
        let (name, version, separator) =
            tokio::join!(read(NAME), read(VERSION), read(DOMAIN_SEPARATOR));
        let found = match (name?, version?, separator?) {
            (
                CallOutcome::Returned(name),
                CallOutcome::Returned(version),
                CallOutcome::Returned(separator),
            ) => {
                let domain = TokenDomain {
                    name: string(&name, "name")?,
                    version: string(&version, "version")?,
                    chain_id: chain.id(),
                    token,
                };
                // A domain this service cannot reproduce would only give wrong signatures.
                (separator.as_ref() == domain.separator()).then_some(domain)
            }
            _ => None,
        };
        self.remember_domain(chain, token, found.clone());
        Ok(found)
    }
}

/// The revert's reason for a person: an `Error(string)` message, a custom error's
/// selector, or that it reverted without one.
pub(crate) fn revert_reason(data: &[u8]) -> String {
    const ERROR_STRING: [u8; 4] = [0x08, 0xc3, 0x79, 0xa0];
    match data.split_first_chunk::<4>() {
        Some((selector, rest)) if *selector == ERROR_STRING => {
            match ethers::abi::decode(&[ParamType::String], rest)
                .ok()
                .as_deref()
            {
                Some([Token::String(s)]) => s.clone(),
                _ => "reverted".into(),
            }
        }
        Some((selector, _)) => crate::custom_error_name(selector).map_or_else(
            || format!("reverted (0x{})", hex::encode(selector)),
            str::to_owned,
        ),
        None => "reverted".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revert_reasons_read_as_text() {
        let mut data = vec![0x08, 0xc3, 0x79, 0xa0];
        data.extend(ethers::abi::encode(&[Token::String(
            "FiatTokenV2: authorization is expired".into(),
        )]));
        assert_eq!(
            revert_reason(&data),
            "FiatTokenV2: authorization is expired"
        );
        assert_eq!(revert_reason(&[]), "reverted");
        assert_eq!(revert_reason(&[1, 2, 3, 4]), "reverted (0x01020304)");
        let used = ethers::utils::id("RefAlreadyUsed()");
        assert_eq!(revert_reason(&used), "RefAlreadyUsed");
    }
}
