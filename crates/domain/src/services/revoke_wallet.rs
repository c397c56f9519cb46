//! DELETE /wallets/:id: a revoked wallet can no longer receive new sessions; past
//! payments are unaffected; subscriptions paying it are paused (D10). Revoking twice
//! returns the revoked wallet (and pauses anything a failed first call left active).

use super::LookupError;
use crate::model::{AuthContext, Missing, Wallet, WalletId, WalletStatus};
use crate::ports::{Clock, SubscriptionStore, WalletRepository};
use crate::services::{follow_recipient_wallet, RecipientChange};

pub async fn revoke_wallet(
    ctx: &AuthContext,
    id: WalletId,
    wallets: &dyn WalletRepository,
    subscriptions: &dyn SubscriptionStore,
    clock: &dyn Clock,
) -> Result<Wallet, LookupError> {
    let wallet = wallets
        .get(ctx.merchant_id, id)
        .await?
        .ok_or_else(|| LookupError::NotFound(Missing::of(id)))?;
    let revoked = if wallet.status == WalletStatus::Revoked {
        wallet
    } else {
        wallets
            .revoke(ctx.merchant_id, id, clock.now())
            .await
            .map_err(|e| LookupError::from_store(e, id))?
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
