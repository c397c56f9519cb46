//! DELETE /wallets/:id: a revoked wallet can no longer receive new sessions; past
//! payments are unaffected. Revoking twice returns the revoked wallet.

use super::LookupError;
use crate::model::{AuthContext, Wallet, WalletId, WalletStatus};
use crate::ports::{Clock, StoreError, WalletRepository};

pub async fn revoke_wallet(
    ctx: &AuthContext,
    id: WalletId,
    wallets: &dyn WalletRepository,
    clock: &dyn Clock,
) -> Result<Wallet, LookupError> {
    let wallet = wallets
        .get(ctx.merchant_id, id)
        .await?
        .ok_or(LookupError::NotFound)?;
    if wallet.status == WalletStatus::Revoked {
        return Ok(wallet);
    }
    wallets
        .revoke(ctx.merchant_id, id, clock.now())
        .await
        .map_err(|e| match e {
            StoreError::NotFound => LookupError::NotFound,
            e => e.into(),
        })
}
