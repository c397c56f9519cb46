//! DELETE /wallets/:id: a revoked wallet can no longer receive new sessions; past
//! payments are unaffected; subscriptions paying it are paused (D10). Revoking twice
//! returns the revoked wallet (and pauses anything a failed first call left active).
//! A test key may not revoke a wallet verified in live mode (D25).

use serde_json::json;

use crate::model::{
    AuditAction, AuditEvent, AuthContext, Changer, Missing, Wallet, WalletId, WalletStatus,
};
use crate::ports::{Clock, StoreError, SubscriptionStore, WalletRepository, WalletRevocation};
use crate::services::{follow_recipient_wallet, RecipientChange};

#[derive(Debug, thiserror::Error)]
pub enum RevokeWalletError {
    #[error(transparent)]
    NotFound(Missing),
    /// A leaked test key must not be able to take live money's destination out of
    /// service (and then default live sessions to a wallet of its own).
    #[error(
        "this wallet was verified in live mode; revoking it needs a live key (or the live dashboard)"
    )]
    NeedsLiveKey,
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub async fn revoke_wallet(
    ctx: &AuthContext,
    id: WalletId,
    by: &Changer,
    wallets: &dyn WalletRepository,
    subscriptions: &dyn SubscriptionStore,
    clock: &dyn Clock,
) -> Result<Wallet, RevokeWalletError> {
    let not_found = || RevokeWalletError::NotFound(Missing::of(id));
    let wallet = wallets
        .get(ctx.merchant_id, id)
        .await?
        .ok_or_else(not_found)?;
    let revoked = if wallet.status == WalletStatus::Revoked {
        wallet
    } else if !wallet.revocable_in(ctx.mode) {
        return Err(RevokeWalletError::NeedsLiveKey);
    } else {
        let now = clock.now();
        let audit = AuditEvent::of(
            by,
            ctx.merchant_id,
            Some(ctx.mode),
            AuditAction::WalletRevoked,
            id,
            now,
        )
        .before(json!({ "status": wallet.status.as_str() }))
        .after(json!({
            "status": WalletStatus::Revoked.as_str(),
            "address": wallet.address.to_string(),
        }));
        match wallets
            .revoke(ctx.merchant_id, id, now, ctx.mode, &audit)
            .await
            .map_err(|e| match e {
                StoreError::NotFound => not_found(),
                e => RevokeWalletError::Store(e),
            })? {
            WalletRevocation::Revoked(w) => w,
            // Verified in live mode between the read and the update.
            WalletRevocation::NeedsLiveKey => return Err(RevokeWalletError::NeedsLiveKey),
        }
    };
    follow_recipient_wallet(
        ctx.merchant_id,
        revoked.address,
        RecipientChange::Revoked,
        subscriptions,
    )
    .await?;
    Ok(revoked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Actor, Address, ApiKeyId, ChainId, FeeTier, MerchantId, Mode, Timestamp};
    use crate::ports::{MockClock, MockSubscriptionStore, MockWalletRepository};
    use futures_executor::block_on;

    fn ctx(mode: Mode) -> AuthContext {
        AuthContext {
            merchant_id: MerchantId::generate(),
            mode,
            actor: Actor::ApiKey(ApiKeyId::generate()),
            fee_tier: FeeTier::Standard,
            rate_limit_per_min: None,
            underpayment_tolerance: crate::model::UnderpaymentTolerance::NONE,
        }
    }

    fn wallet(ctx: &AuthContext, verified_in: Mode) -> Wallet {
        Wallet {
            id: WalletId::generate(),
            merchant_id: ctx.merchant_id,
            address: Address::from_bytes([7; 20]),
            chain: ChainId::Base,
            status: WalletStatus::Verified,
            verified_at: Some(Timestamp::from_unix_seconds(1).unwrap()),
            verified_mode: Some(verified_in),
            revoked_at: None,
            revoked_mode: None,
            created_at: Timestamp::from_unix_seconds(0).unwrap(),
        }
    }

    fn clock() -> MockClock {
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .return_const(Timestamp::from_unix_seconds(2).unwrap());
        clock
    }

    fn subscriptions(pauses: bool) -> MockSubscriptionStore {
        let mut subs = MockSubscriptionStore::new();
        subs.expect_live_for_recipient()
            .times(usize::from(pauses))
            .returning(|_, _| Ok(Vec::new()));
        subs
    }

    #[test]
    fn a_test_key_cannot_revoke_a_live_verified_wallet_and_nothing_is_written() {
        let ctx = ctx(Mode::Test);
        let w = wallet(&ctx, Mode::Live);
        let mut repo = MockWalletRepository::new();
        let got = w.clone();
        repo.expect_get()
            .returning(move |_, _| Ok(Some(got.clone())));
        repo.expect_revoke().never();
        let err = block_on(revoke_wallet(
            &ctx,
            w.id,
            &Changer::new(ctx.actor, None),
            &repo,
            &subscriptions(false),
            &clock(),
        ))
        .unwrap_err();
        assert!(matches!(err, RevokeWalletError::NeedsLiveKey), "{err:?}");
        assert!(err.to_string().contains("live key"));
    }

    #[test]
    fn a_live_key_revokes_any_wallet_and_a_test_key_a_test_verified_one() {
        for (key, verified_in) in [
            (Mode::Live, Mode::Live),
            (Mode::Live, Mode::Test),
            (Mode::Test, Mode::Test),
        ] {
            let ctx = ctx(key);
            let w = wallet(&ctx, verified_in);
            let mut repo = MockWalletRepository::new();
            let got = w.clone();
            repo.expect_get()
                .returning(move |_, _| Ok(Some(got.clone())));
            let revoked = Wallet {
                status: WalletStatus::Revoked,
                ..w.clone()
            };
            repo.expect_revoke()
                .withf(move |_, _, _, by, _| *by == key)
                .times(1)
                .returning(move |_, _, _, _, _| Ok(WalletRevocation::Revoked(revoked.clone())));
            let out = block_on(revoke_wallet(
                &ctx,
                w.id,
                &Changer::new(ctx.actor, None),
                &repo,
                &subscriptions(true),
                &clock(),
            ))
            .unwrap();
            assert_eq!(out.status, WalletStatus::Revoked);
        }
    }

    #[test]
    fn a_wallet_verified_in_live_mode_meanwhile_is_refused_by_the_store() {
        let ctx = ctx(Mode::Test);
        let mut w = wallet(&ctx, Mode::Test);
        w.status = WalletStatus::Pending;
        w.verified_mode = None;
        let mut repo = MockWalletRepository::new();
        let got = w.clone();
        repo.expect_get()
            .returning(move |_, _| Ok(Some(got.clone())));
        repo.expect_revoke()
            .returning(|_, _, _, _, _| Ok(WalletRevocation::NeedsLiveKey));
        let err = block_on(revoke_wallet(
            &ctx,
            w.id,
            &Changer::new(ctx.actor, None),
            &repo,
            &subscriptions(false),
            &clock(),
        ))
        .unwrap_err();
        assert!(matches!(err, RevokeWalletError::NeedsLiveKey));
    }
}
