//! POST /wallets/:id/verify: check the EIP-191 signature over the open challenge.

use serde_json::json;

use crate::model::{
    AuditAction, AuditEvent, AuthContext, Changer, Missing, Signature, Wallet, WalletId,
};
use crate::ports::{
    ChainReader, ChallengeUse, Clock, StoreError, SubscriptionStore, WalletRepository,
};
use crate::services::{follow_recipient_wallet, signed_by, RecipientChange};

#[derive(Debug, thiserror::Error)]
pub enum VerifyWalletError {
    #[error(transparent)]
    NotFound(Missing),
    /// A live key revoked this wallet (D25).
    #[error(
        "this wallet was revoked with a live key; verifying it again needs a live key (or the live dashboard)"
    )]
    NeedsLiveKey,
    #[error("the verification challenge has expired; register the wallet again to get a new one")]
    ChallengeExpired,
    #[error(
        "the verification challenge was already used; register the wallet again to get a new one"
    )]
    ChallengeUsed,
    #[error("the signature was not produced by {0} over the challenge message")]
    SignatureMismatch(String),
    #[error(
        "the wallet's chain could not be reached to check its ERC-1271 signature; retry shortly"
    )]
    ChainUnavailable,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What verifying a wallet reaches: its store, the subscriptions that follow it, its chain
/// (ERC-1271 wallets) and the clock.
#[derive(Clone, Copy)]
pub struct VerifyWalletDeps<'a> {
    pub wallets: &'a dyn WalletRepository,
    pub subscriptions: &'a dyn SubscriptionStore,
    pub chain: &'a dyn ChainReader,
    pub clock: &'a dyn Clock,
}

pub async fn verify_wallet(
    ctx: &AuthContext,
    id: WalletId,
    signature: &Signature,
    by: &Changer,
    deps: &VerifyWalletDeps<'_>,
) -> Result<Wallet, VerifyWalletError> {
    let VerifyWalletDeps {
        wallets,
        subscriptions,
        chain,
        clock,
    } = *deps;
    let wallet = wallets
        .get(ctx.merchant_id, id)
        .await?
        .ok_or_else(|| VerifyWalletError::NotFound(Missing::of(id)))?;
    if !wallet.restorable_in(ctx.mode) {
        return Err(VerifyWalletError::NeedsLiveKey);
    }
    let challenge = wallets
        .latest_challenge(id)
        .await?
        .ok_or(VerifyWalletError::ChallengeUsed)?;
    if challenge.used_at.is_some() {
        return Err(VerifyWalletError::ChallengeUsed);
    }
    let now = clock.now();
    if now >= challenge.expires_at {
        return Err(VerifyWalletError::ChallengeExpired);
    }
    // EOAs: ecrecover. Contracts (code at the address): ERC-1271 on the wallet's chain.
    let signed = signed_by(
        chain,
        wallet.chain,
        wallet.address,
        challenge.message.as_bytes(),
        signature,
    )
    .await
    .map_err(|_| VerifyWalletError::ChainUnavailable)?;
    if !signed {
        return Err(VerifyWalletError::SignatureMismatch(
            wallet.address.to_string(),
        ));
    }
    let audit = AuditEvent::of(
        by,
        ctx.merchant_id,
        Some(ctx.mode),
        AuditAction::WalletVerified,
        id,
        now,
    )
    .before(json!({ "status": wallet.status.as_str() }))
    .after(json!({
        "status": crate::model::WalletStatus::Verified.as_str(),
        "verified_mode": ctx.mode.as_str(),
        "address": wallet.address.to_string(),
    }));
    let verified = match wallets
        .mark_verified(id, &challenge.nonce, now, ctx.mode, &audit)
        .await
        .map_err(|e| match e {
            StoreError::NotFound => VerifyWalletError::NotFound(Missing::of(id)),
            e => VerifyWalletError::Store(e),
        })? {
        ChallengeUse::Consumed(wallet) => wallet,
        ChallengeUse::NotUsable => return Err(VerifyWalletError::ChallengeUsed),
        // Revoked by a live key between the read and the write.
        ChallengeUse::NeedsLiveKey => return Err(VerifyWalletError::NeedsLiveKey),
    };
    // Subscriptions paused while this address was revoked bill again (D10), those of a
    // mode the wallet now pays in (D25: a test key's verification resumes no live one).
    follow_recipient_wallet(
        ctx.merchant_id,
        verified.address,
        RecipientChange::Verified(ctx.mode),
        subscriptions,
    )
    .await?;
    Ok(verified)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        ApiKeyId, ChainId, FeeTier, MerchantId, Mode, Timestamp, WalletChallenge, WalletStatus,
    };
    use crate::ports::{
        ChainError, MockChainReader, MockClock, MockSubscriptionStore, MockWalletRepository,
    };
    use crate::rules::eip191;
    use crate::services::challenge_message;
    use chrono::{TimeZone, Utc};
    use futures_executor::block_on;

    const KEY: [u8; 32] = [7u8; 32];

    fn at(s: i64) -> Timestamp {
        Timestamp::new(Utc.timestamp_opt(s, 0).unwrap())
    }

    fn fixture(used: bool) -> (AuthContext, Wallet, WalletChallenge) {
        let ctx = AuthContext {
            merchant_id: MerchantId::generate(),
            mode: Mode::Test,
            actor: crate::model::Actor::ApiKey(ApiKeyId::generate()),
            fee_tier: FeeTier::Standard,
            rate_limit_per_min: None,
            underpayment_tolerance: crate::model::UnderpaymentTolerance::NONE,
        };
        let wallet = Wallet::registered(
            ctx.merchant_id,
            eip191::address_of_private_key(&KEY).unwrap(),
            ChainId::Base,
            at(0),
        );
        let challenge = WalletChallenge {
            wallet_id: wallet.id,
            nonce: "00".into(),
            message: challenge_message(&wallet, "00", at(3600)),
            expires_at: at(3600),
            used_at: used.then(|| at(10)),
            created_at: at(0),
        };
        (ctx, wallet, challenge)
    }

    fn repo(wallet: &Wallet, challenge: &WalletChallenge) -> MockWalletRepository {
        let mut repo = MockWalletRepository::new();
        let w = wallet.clone();
        repo.expect_get().returning(move |_, _| Ok(Some(w.clone())));
        let c = challenge.clone();
        repo.expect_latest_challenge()
            .returning(move |_| Ok(Some(c.clone())));
        repo
    }

    fn no_contract() -> MockChainReader {
        let mut chain = MockChainReader::new();
        chain.expect_is_contract().returning(|_, _| Ok(false));
        chain
    }

    #[test]
    fn erc1271_wallets_are_asked_on_chain() {
        let (ctx, wallet, challenge) = fixture(false);
        let mut repo = repo(&wallet, &challenge);
        let verified = Wallet {
            status: WalletStatus::Verified,
            ..wallet.clone()
        };
        repo.expect_mark_verified()
            .returning(move |_, _, _, _, _| Ok(ChallengeUse::Consumed(verified.clone())));
        let expected_hash = eip191::hash_message(challenge.message.as_bytes());
        let mut chain = MockChainReader::new();
        chain.expect_is_contract().returning(|_, _| Ok(true));
        chain
            .expect_is_valid_signature()
            .withf(move |_, _, hash, _| *hash == expected_hash)
            .returning(|_, _, _, _| Ok(true));
        // Signed by some owner key, not by the wallet address itself.
        let sig = eip191::sign(challenge.message.as_bytes(), &[9u8; 32]).unwrap();
        let out = block_on(verify_wallet(
            &ctx,
            wallet.id,
            &sig,
            &Changer::new(ctx.actor, None),
            &VerifyWalletDeps {
                wallets: &repo,
                subscriptions: &no_subscriptions(),
                chain: &chain,
                clock: &clock(100),
            },
        ))
        .unwrap();
        assert_eq!(out.status, WalletStatus::Verified);

        let mut down = MockChainReader::new();
        down.expect_is_contract()
            .returning(|_, _| Err(ChainError::Unavailable("timeout".into())));
        let err = block_on(verify_wallet(
            &ctx,
            wallet.id,
            &sig,
            &Changer::new(ctx.actor, None),
            &VerifyWalletDeps {
                wallets: &repo,
                subscriptions: &no_subscriptions(),
                chain: &down,
                clock: &clock(100),
            },
        ))
        .unwrap_err();
        assert!(matches!(err, VerifyWalletError::ChainUnavailable));
    }

    /// No subscription pays the verified address (nothing to resume).
    fn no_subscriptions() -> MockSubscriptionStore {
        let mut subs = MockSubscriptionStore::new();
        subs.expect_live_for_recipient()
            .returning(|_, _| Ok(Vec::new()));
        subs
    }

    fn clock(s: i64) -> MockClock {
        let mut clock = MockClock::new();
        clock.expect_now().return_const(at(s));
        clock
    }

    #[test]
    fn a_valid_signature_verifies() {
        let (ctx, wallet, challenge) = fixture(false);
        let mut repo = repo(&wallet, &challenge);
        let verified = Wallet {
            status: WalletStatus::Verified,
            ..wallet.clone()
        };
        repo.expect_mark_verified()
            .withf(|_, nonce, _, mode, _| nonce == "00" && *mode == Mode::Test)
            .times(1)
            .returning(move |_, _, _, _, _| Ok(ChallengeUse::Consumed(verified.clone())));
        let sig = eip191::sign(challenge.message.as_bytes(), &KEY).unwrap();
        let out = block_on(verify_wallet(
            &ctx,
            wallet.id,
            &sig,
            &Changer::new(ctx.actor, None),
            &VerifyWalletDeps {
                wallets: &repo,
                subscriptions: &no_subscriptions(),
                chain: &no_contract(),
                clock: &clock(100),
            },
        ))
        .unwrap();
        assert_eq!(out.status, WalletStatus::Verified);
    }

    #[test]
    fn a_wallet_a_live_key_revoked_is_verified_again_only_by_a_live_key() {
        let (ctx, wallet, challenge) = fixture(false);
        let revoked = Wallet {
            revoked_mode: Some(Mode::Live),
            ..wallet.clone()
        };
        let mut revoked_repo = repo(&revoked, &challenge);
        revoked_repo.expect_mark_verified().never();
        let sig = eip191::sign(challenge.message.as_bytes(), &KEY).unwrap();
        let err = block_on(verify_wallet(
            &ctx,
            wallet.id,
            &sig,
            &Changer::new(ctx.actor, None),
            &VerifyWalletDeps {
                wallets: &revoked_repo,
                subscriptions: &MockSubscriptionStore::new(),
                chain: &no_contract(),
                clock: &clock(100),
            },
        ))
        .unwrap_err();
        assert!(matches!(err, VerifyWalletError::NeedsLiveKey), "{err:?}");
        // A live revocation that lands between the read and the write: the store says so.
        let mut racing = repo(&wallet, &challenge);
        racing
            .expect_mark_verified()
            .times(1)
            .returning(|_, _, _, _, _| Ok(ChallengeUse::NeedsLiveKey));
        let err = block_on(verify_wallet(
            &ctx,
            wallet.id,
            &sig,
            &Changer::new(ctx.actor, None),
            &VerifyWalletDeps {
                wallets: &racing,
                subscriptions: &MockSubscriptionStore::new(),
                chain: &no_contract(),
                clock: &clock(100),
            },
        ))
        .unwrap_err();
        assert!(matches!(err, VerifyWalletError::NeedsLiveKey), "{err:?}");
    }

    #[test]
    fn a_signature_by_another_key_is_rejected() {
        let (ctx, wallet, challenge) = fixture(false);
        let repo = repo(&wallet, &challenge);
        let sig = eip191::sign(challenge.message.as_bytes(), &[9u8; 32]).unwrap();
        let err = block_on(verify_wallet(
            &ctx,
            wallet.id,
            &sig,
            &Changer::new(ctx.actor, None),
            &VerifyWalletDeps {
                wallets: &repo,
                subscriptions: &no_subscriptions(),
                chain: &no_contract(),
                clock: &clock(100),
            },
        ))
        .unwrap_err();
        assert!(matches!(err, VerifyWalletError::SignatureMismatch(_)));
    }

    #[test]
    fn expired_and_used_challenges_are_refused() {
        let (ctx, wallet, challenge) = fixture(false);
        let sig = eip191::sign(challenge.message.as_bytes(), &KEY).unwrap();
        let err = block_on(verify_wallet(
            &ctx,
            wallet.id,
            &sig,
            &Changer::new(ctx.actor, None),
            &VerifyWalletDeps {
                wallets: &repo(&wallet, &challenge),
                subscriptions: &no_subscriptions(),
                chain: &no_contract(),
                clock: &clock(3600),
            },
        ))
        .unwrap_err();
        assert!(matches!(err, VerifyWalletError::ChallengeExpired));

        let (ctx, wallet, used) = fixture(true);
        let err = block_on(verify_wallet(
            &ctx,
            wallet.id,
            &sig,
            &Changer::new(ctx.actor, None),
            &VerifyWalletDeps {
                wallets: &repo(&wallet, &used),
                subscriptions: &no_subscriptions(),
                chain: &no_contract(),
                clock: &clock(100),
            },
        ))
        .unwrap_err();
        assert!(matches!(err, VerifyWalletError::ChallengeUsed));
    }

    #[test]
    fn losing_a_race_to_use_the_challenge_is_a_used_challenge() {
        let (ctx, wallet, challenge) = fixture(false);
        let mut repo = repo(&wallet, &challenge);
        repo.expect_mark_verified()
            .returning(|_, _, _, _, _| Ok(ChallengeUse::NotUsable));
        let sig = eip191::sign(challenge.message.as_bytes(), &KEY).unwrap();
        let err = block_on(verify_wallet(
            &ctx,
            wallet.id,
            &sig,
            &Changer::new(ctx.actor, None),
            &VerifyWalletDeps {
                wallets: &repo,
                subscriptions: &no_subscriptions(),
                chain: &no_contract(),
                clock: &clock(100),
            },
        ))
        .unwrap_err();
        assert!(matches!(err, VerifyWalletError::ChallengeUsed));
    }
}
