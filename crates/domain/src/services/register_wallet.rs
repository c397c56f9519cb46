//! POST /wallets: register a settlement wallet and issue a one-hour, single-use challenge.

use rand::Rng;

use crate::model::{
    Address, AuthContext, ChainId, Timestamp, Wallet, WalletChallenge, WalletId, WalletStatus,
};
use crate::ports::{Clock, StoreError, WalletInsert, WalletRepository};

pub const CHALLENGE_TTL_SECS: i64 = 3600;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredWallet {
    pub wallet: Wallet,
    /// Absent when the address was already verified (returned unchanged).
    pub challenge: Option<WalletChallenge>,
    /// Whether a new wallet record was created (201) rather than reused (200).
    pub created: bool,
}

/// The EIP-191 message the wallet signs (D6): names the service, the merchant, the
/// address, the chain, a 128-bit nonce and the expiry.
pub fn challenge_message(wallet: &Wallet, nonce: &str, expires_at: Timestamp) -> String {
    format!(
        "stablepay wallet verification\n\nSign this message to prove you control this address and accept it as a settlement wallet.\n\nMerchant: {}\nAddress: {}\nChain ID: {}\nNonce: {}\nExpires: {}",
        wallet.merchant_id,
        wallet.address,
        wallet.chain.id(),
        nonce,
        expires_at
    )
}

fn new_challenge(wallet: &Wallet, now: Timestamp) -> WalletChallenge {
    let nonce = format!("{:032x}", rand::thread_rng().gen::<u128>());
    let expires_at = now.plus_seconds(CHALLENGE_TTL_SECS);
    WalletChallenge {
        wallet_id: wallet.id,
        message: challenge_message(wallet, &nonce, expires_at),
        nonce,
        expires_at,
        used_at: None,
        created_at: now,
    }
}

pub async fn register_wallet(
    ctx: &AuthContext,
    address: Address,
    chain: ChainId,
    wallets: &dyn WalletRepository,
    clock: &dyn Clock,
) -> Result<RegisteredWallet, StoreError> {
    let now = clock.now();
    let existing = wallets.find_by_address(ctx.merchant_id, address).await?;
    let existing = match existing {
        Some(w) => w,
        None => {
            let wallet = Wallet {
                id: WalletId::generate(),
                merchant_id: ctx.merchant_id,
                address,
                chain,
                status: WalletStatus::Pending,
                verified_at: None,
                verified_mode: None,
                revoked_at: None,
                created_at: now,
            };
            let challenge = new_challenge(&wallet, now);
            match wallets.insert_with_challenge(&wallet, &challenge).await? {
                WalletInsert::Inserted => {
                    return Ok(RegisteredWallet {
                        wallet,
                        challenge: Some(challenge),
                        created: true,
                    })
                }
                // A concurrent registration of the same address won: reuse its record.
                WalletInsert::AddressTaken => wallets
                    .find_by_address(ctx.merchant_id, address)
                    .await?
                    .ok_or(StoreError::Contended)?,
            }
        }
    };
    if existing.status == WalletStatus::Verified {
        return Ok(RegisteredWallet {
            wallet: existing,
            challenge: None,
            created: false,
        });
    }
    let restarted = Wallet {
        chain,
        status: WalletStatus::Pending,
        verified_at: None,
        verified_mode: None,
        ..existing
    };
    let challenge = new_challenge(&restarted, now);
    let wallet = wallets.restart_verification(&restarted, &challenge).await?;
    // Verified meanwhile (the store left it so): returned unchanged, without a challenge.
    let challenge = (wallet.status != WalletStatus::Verified).then_some(challenge);
    Ok(RegisteredWallet {
        wallet,
        challenge,
        created: false,
    })
}
