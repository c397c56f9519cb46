//! Settlement wallets: register, verify by signing the challenge with the browser wallet
//! (EIP-191 personal_sign) or by pasting a signature, revoke.

use askama::Template;
use stablepay_domain::services::{
    register_wallet, revoke_wallet, verify_wallet, RegisterWalletError, RevokeWalletError,
    VerifyWalletError,
};
use stablepay_domain::{Address, ChainId, PageRequest, Signature, WalletId, WalletStatus};

use super::page_handler;
use crate::format::{address_link, opt_time, time};
use crate::shell::{Chrome, Page, Reply, WebError};

pub struct WalletLine {
    pub id: String,
    pub address: String,
    pub link: String,
    pub chain: u64,
    pub status: &'static str,
    pub pending: bool,
    pub verified: bool,
    pub verified_at: String,
    /// `live` or `test` (D25), empty until verified.
    pub verified_mode: &'static str,
    pub created: String,
}

/// A challenge waiting to be signed.
pub struct Challenge {
    pub wallet_id: String,
    pub address: String,
    pub chain_id: u64,
    pub message: String,
    pub expires: String,
    pub verify_action: String,
}

#[derive(Template)]
#[template(path = "wallets.html")]
struct WalletsView {
    chrome: Chrome,
    wallets: Vec<WalletLine>,
    challenge: Option<Challenge>,
    error: Option<String>,
    default_chain: u64,
}

async fn render(
    p: &Page,
    challenge: Option<Challenge>,
    error: Option<String>,
) -> Result<Reply, WebError> {
    let ctx = p.ctx();
    let rows = p
        .state
        .store
        .wallets()
        .list(ctx.merchant_id, &PageRequest::first(100))
        .await?;
    Reply::render(&WalletsView {
        chrome: p.chrome("wallets", "Wallets"),
        wallets: rows
            .data
            .iter()
            .map(|w| WalletLine {
                id: w.id.to_string(),
                address: w.address.to_string(),
                link: address_link(w.chain, &w.address),
                chain: w.chain.id(),
                status: w.status.as_str(),
                pending: w.status == WalletStatus::Pending,
                verified: w.status == WalletStatus::Verified,
                verified_at: opt_time(w.verified_at),
                verified_mode: w.verified_mode.map_or("", |m| m.as_str()),
                created: time(w.created_at),
            })
            .collect(),
        challenge,
        error,
        default_chain: p.mode.chain().id(),
    })
}

page_handler!(list, |p| async move { render(&p, None, None).await });

// Registers (or re-registers, for a fresh challenge) and shows the message to sign.
page_handler!(register, |p| async move {
    let address = match Address::parse(p.form.get("address").unwrap_or("").trim()) {
        Ok(a) => a,
        Err(e) => return render(&p, None, Some(format!("address: {e}"))).await,
    };
    let chain = p
        .form
        .get("chain_id")
        .and_then(|c| c.parse::<u64>().ok())
        .and_then(ChainId::from_id)
        .unwrap_or(ChainId::Base);
    let s = &p.state;
    let registered = match register_wallet(
        &p.ctx(),
        address,
        chain,
        &p.changer(),
        s.store.wallets(),
        s.clock.as_ref(),
    )
    .await
    {
        Ok(registered) => registered,
        Err(RegisterWalletError::Store(e)) => return Err(e.into()),
        Err(e) => return render(&p, None, Some(e.to_string())).await,
    };
    let challenge = registered.challenge.map(|c| Challenge {
        wallet_id: registered.wallet.id.to_string(),
        address: registered.wallet.address.to_string(),
        chain_id: registered.wallet.chain.id(),
        message: c.message,
        expires: time(c.expires_at),
        verify_action: p.link(&format!("/wallets/{}/verify", registered.wallet.id)),
    });
    let note = challenge
        .is_none()
        .then(|| "This address is already verified.".to_owned());
    render(&p, challenge, note).await
});

page_handler!(verify, |p| async move {
    let id = WalletId::parse(&p.path("id")).map_err(|_| WebError::NotFound)?;
    let signature = match Signature::parse(p.form.get("signature").unwrap_or("").trim()) {
        Ok(sig) => sig,
        Err(e) => return render(&p, None, Some(format!("signature: {e}"))).await,
    };
    let s = &p.state;
    match verify_wallet(
        &p.ctx(),
        id,
        &signature,
        &p.changer(),
        &stablepay_domain::services::VerifyWalletDeps {
            wallets: s.store.wallets(),
            subscriptions: s.store.subscriptions(),
            chain: s.chain.as_ref(),
            clock: s.clock.as_ref(),
        },
    )
    .await
    {
        Ok(_) => Ok(Reply::Redirect(p.link("/wallets?notice=wallet_verified"))),
        Err(VerifyWalletError::NotFound(_)) => Err(WebError::NotFound),
        Err(VerifyWalletError::Store(e)) => Err(e.into()),
        Err(e) => render(&p, None, Some(e.to_string())).await,
    }
});

page_handler!(revoke, |p| async move {
    let id = WalletId::parse(&p.path("id")).map_err(|_| WebError::NotFound)?;
    let s = &p.state;
    match revoke_wallet(
        &p.ctx(),
        id,
        &p.changer(),
        s.store.wallets(),
        s.store.subscriptions(),
        s.clock.as_ref(),
    )
    .await
    {
        Ok(_) => Ok(Reply::Redirect(p.link("/wallets?notice=wallet_revoked"))),
        Err(RevokeWalletError::NotFound(_)) => Err(WebError::NotFound),
        // Shown on the page (400), the wallet unchanged (D25).
        Err(e @ RevokeWalletError::NeedsLiveKey) => Err(WebError::Invalid(e.to_string())),
        Err(RevokeWalletError::Store(e)) => Err(e.into()),
    }
});
