//! Who signed a message: an EOA by ecrecover (EIP-191), a contract wallet by ERC-1271 on
//! its chain. Shared by wallet verification and the portal cancel.

use crate::model::{Address, ChainId, Signature};
use crate::ports::{ChainError, ChainReader};
use crate::rules::eip191;

/// Whether `signer` signed `message` (EIP-191 personal_sign). Errors: `Unavailable` when
/// a contract wallet's chain could not be asked; a chain without RPC can only check EOAs.
pub async fn signed_by(
    chain: &dyn ChainReader,
    on: ChainId,
    signer: Address,
    message: &[u8],
    signature: &Signature,
) -> Result<bool, ChainError> {
    if eip191::recover(message, signature) == Some(signer) {
        return Ok(true);
    }
    let checked = async {
        if !chain.is_contract(on, signer).await? {
            return Ok(false);
        }
        chain
            .is_valid_signature(on, signer, eip191::hash_message(message), signature)
            .await
    };
    match checked.await {
        Err(ChainError::NotConfigured(_)) => Ok(false),
        other => other,
    }
}
