//! POST /wallets: register a settlement wallet and issue a one-hour, single-use challenge.
//! A wallet a live key revoked is registered again only by a live key (D25).

use rand::Rng;
use serde_json::json;

use crate::model::{
    Address, AuditAction, AuditEvent, AuthContext, ChainId, Changer, Timestamp, Wallet,
    WalletChallenge, WalletStatus,
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

#[derive(Debug, thiserror::Error)]
pub enum RegisterWalletError {
    /// A live key revoked this wallet (D25): a leaked test key must not bring live money's
    /// old destination back.
    #[error(
        "this wallet was revoked with a live key; registering it again needs a live key (or the live dashboard)"
    )]
    NeedsLiveKey,
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub async fn register_wallet(
    ctx: &AuthContext,
    address: Address,
    chain: ChainId,
    by: &Changer,
    wallets: &dyn WalletRepository,
    clock: &dyn Clock,
) -> Result<RegisteredWallet, RegisterWalletError> {
    let now = clock.now();
    let audit = |wallet: &Wallet| {
        AuditEvent::of(
            by,
            ctx.merchant_id,
            Some(ctx.mode),
            AuditAction::WalletRegistered,
            wallet.id,
            now,
        )
        .after(json!({
            "address": wallet.address.to_string(),
            "chain_id": chain.id(),
            "status": WalletStatus::Pending.as_str(),
        }))
    };
    let existing = wallets.find_by_address(ctx.merchant_id, address).await?;
    let existing = match existing {
        Some(w) => w,
        None => {
            let wallet = Wallet::registered(ctx.merchant_id, address, chain, now);
            let challenge = new_challenge(&wallet, now);
            match wallets
                .insert_with_challenge(&wallet, &challenge, &audit(&wallet))
                .await?
            {
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
        // Verified by a test key only: a live key gets a challenge to verify it for live
        // money (D25); the wallet keeps serving test mode meanwhile.
        let challenge = if existing.pays_in(ctx.mode) {
            None
        } else {
            let challenge = new_challenge(&existing, now);
            wallets.add_challenge(&challenge).await?;
            Some(challenge)
        };
        return Ok(RegisteredWallet {
            wallet: existing,
            challenge,
            created: false,
        });
    }
    if !existing.restorable_in(ctx.mode) {
        return Err(RegisterWalletError::NeedsLiveKey);
    }
    let existing_status = existing.status;
    let restarted = Wallet {
        chain,
        status: WalletStatus::Pending,
        verified_at: None,
        verified_mode: None,
        ..existing
    };
    let challenge = new_challenge(&restarted, now);
    let audit = audit(&restarted).before(json!({ "status": existing_status.as_str() }));
    let wallet = wallets
        .restart_verification(&restarted, &challenge, &audit)
        .await?;
    // Verified meanwhile (the store left it so): returned unchanged, without a challenge.
    let challenge = (wallet.status != WalletStatus::Verified).then_some(challenge);
    Ok(RegisteredWallet {
        wallet,
        challenge,
        created: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Actor, ApiKeyId, FeeTier, MerchantId, Mode};
    use crate::ports::{MockClock, MockWalletRepository};
    use futures_executor::block_on;

    fn ctx(mode: Mode) -> AuthContext {
        AuthContext {
            merchant_id: MerchantId::from_uuid(uuid::Uuid::from_u128(1)),
            mode,
            actor: Actor::ApiKey(ApiKeyId::generate()),
            fee_tier: FeeTier::Standard,
            rate_limit_per_min: None,
            underpayment_tolerance: crate::model::UnderpaymentTolerance::NONE,
        }
    }

    fn wallet(status: WalletStatus, verified: Option<Mode>, revoked: Option<Mode>) -> Wallet {
        Wallet {
            status,
            verified_mode: verified,
            revoked_at: revoked.map(|_| Timestamp::from_unix_seconds(1).unwrap()),
            revoked_mode: revoked,
            ..Wallet::registered(
                ctx(Mode::Test).merchant_id,
                Address::from_bytes([7; 20]),
                ChainId::Base,
                Timestamp::from_unix_seconds(0).unwrap(),
            )
        }
    }

    fn clock() -> MockClock {
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .return_const(Timestamp::from_unix_seconds(2).unwrap());
        clock
    }

    fn register(
        mode: Mode,
        wallets: &MockWalletRepository,
    ) -> Result<RegisteredWallet, RegisterWalletError> {
        block_on(register_wallet(
            &ctx(mode),
            Address::from_bytes([7; 20]),
            ChainId::Base,
            &Changer::new(ctx(mode).actor, None),
            wallets,
            &clock(),
        ))
    }

    fn holding(w: Wallet) -> MockWalletRepository {
        let mut wallets = MockWalletRepository::new();
        wallets
            .expect_find_by_address()
            .returning(move |_, _| Ok(Some(w.clone())));
        wallets
    }

    #[test]
    fn a_wallet_a_live_key_revoked_is_registered_again_only_by_a_live_key() {
        let revoked = wallet(WalletStatus::Revoked, Some(Mode::Test), Some(Mode::Live));
        let mut wallets = holding(revoked.clone());
        wallets.expect_restart_verification().never();
        assert!(matches!(
            register(Mode::Test, &wallets),
            Err(RegisterWalletError::NeedsLiveKey)
        ));
        let mut wallets = holding(revoked);
        wallets
            .expect_restart_verification()
            .times(1)
            .returning(|w, _, _| Ok(w.clone()));
        let out = register(Mode::Live, &wallets).unwrap();
        assert_eq!(out.wallet.status, WalletStatus::Pending);
        assert!(out.challenge.is_some());
    }

    #[test]
    fn a_wallet_a_test_key_revoked_is_registered_again_by_either_key() {
        for mode in [Mode::Test, Mode::Live] {
            let mut wallets = holding(wallet(
                WalletStatus::Revoked,
                Some(Mode::Test),
                Some(Mode::Test),
            ));
            wallets
                .expect_restart_verification()
                .times(1)
                .returning(|w, _, _| Ok(w.clone()));
            assert!(register(mode, &wallets).unwrap().challenge.is_some());
        }
    }

    #[test]
    fn a_live_key_gets_a_challenge_for_a_wallet_only_a_test_key_verified() {
        let test_verified = wallet(WalletStatus::Verified, Some(Mode::Test), None);
        let mut wallets = holding(test_verified.clone());
        wallets
            .expect_add_challenge()
            .times(1)
            .returning(|_| Ok(()));
        let out = register(Mode::Live, &wallets).unwrap();
        // Still verified (it keeps serving test mode) with a challenge for live money.
        assert_eq!(out.wallet, test_verified);
        assert!(out.challenge.is_some());
        // A test key, or a live key for a live-verified wallet: unchanged, no challenge.
        let mut wallets = holding(test_verified);
        wallets.expect_add_challenge().never();
        assert!(register(Mode::Test, &wallets).unwrap().challenge.is_none());
        let mut wallets = holding(wallet(WalletStatus::Verified, Some(Mode::Live), None));
        wallets.expect_add_challenge().never();
        assert!(register(Mode::Live, &wallets).unwrap().challenge.is_none());
    }
}
