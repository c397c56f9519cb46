//! POST /payment_links and POST /payment_links/:id (D34): a link is checked once, when it
//! is made, against everything a visit will need (its token on the key's chain, the price
//! feeds its price is quoted at, a verified wallet to pay), so a visit fails only on what
//! changes later (a feed going stale, a wallet revoked).

use crate::deployment::{PriceFeeds, TokenDirectory};
use crate::model::{
    Address, AuthContext, Currency, LinkPricing, MetadataJson, Missing, PaymentLink, PaymentLinkId,
    RedirectUrl, Title, ValidationErrors,
};
use crate::ports::{Clock, PaymentLinkRepository, StoreError, WalletRepository};

use super::create_checkout_session::resolve_recipient;
use super::CreateSessionError;

/// A parsed create request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPaymentLink {
    pub name: Title,
    pub description: Option<String>,
    pub pricing: LinkPricing,
    /// The token; `None` takes the default: EURC for a price in euros, else USDC.
    pub currency: Option<Currency>,
    pub recipient: Option<Address>,
    pub success_url: Option<RedirectUrl>,
    pub metadata: MetadataJson,
    pub completed_limit: Option<u32>,
}

impl NewPaymentLink {
    /// The token the link's sessions are paid in.
    pub fn token(&self) -> Currency {
        self.currency
            .unwrap_or_else(|| Currency::default_for(self.pricing.fiat()))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PaymentLinkError {
    #[error(transparent)]
    Invalid(#[from] ValidationErrors),
    #[error(transparent)]
    NotFound(Missing),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub struct PaymentLinkDeps<'a> {
    pub links: &'a dyn PaymentLinkRepository,
    pub wallets: &'a dyn WalletRepository,
    pub tokens: &'a TokenDirectory,
    pub feeds: &'a PriceFeeds,
    pub clock: &'a dyn Clock,
}

/// Checks and stores a new link, active, for the key's merchant and mode.
pub async fn create_payment_link(
    ctx: &AuthContext,
    new: NewPaymentLink,
    deps: &PaymentLinkDeps<'_>,
) -> Result<PaymentLink, PaymentLinkError> {
    let chain = ctx.mode.chain();
    let token = new.token();
    let mut errors = ValidationErrors::default();
    if deps.tokens.token(chain, token).is_none() {
        errors.push(
            "currency",
            format!("{token} is not available on {}", chain.name()),
        );
    }
    if let Some(fiat) = new.pricing.fiat() {
        if let Err(why) = deps.feeds.for_price(chain, fiat, token) {
            let field = match new.pricing {
                LinkPricing::Custom { .. } => "custom_price",
                _ => "price",
            };
            errors.push(field, why);
        }
    }
    if !errors.is_empty() {
        return Err(errors.into());
    }
    let recipient = match resolve_recipient(&ctx.owner(), new.recipient, deps.wallets).await {
        Ok(address) => address,
        Err(CreateSessionError::Invalid(v)) => return Err(v.into()),
        Err(CreateSessionError::Store(e)) => return Err(e.into()),
        Err(other) => return Err(StoreError::Internal(other.to_string()).into()),
    };
    let now = deps.clock.now();
    let link = PaymentLink {
        id: PaymentLinkId::generate_at(now),
        merchant_id: ctx.merchant_id,
        mode: ctx.mode,
        name: new.name.into(),
        description: new.description,
        pricing: new.pricing,
        currency: token,
        recipient,
        success_url: new.success_url.map(String::from),
        metadata: new.metadata.into(),
        completed_limit: new.completed_limit,
        completed_count: 0,
        active: true,
        created_by: ctx.actor,
        created_at: now,
    };
    deps.links.insert_link(&link).await?;
    Ok(link)
}

/// Turns a link on or off: an inactive link's URL opens no session (sessions it opened
/// before stay payable until they expire).
pub async fn set_payment_link_active(
    ctx: &AuthContext,
    id: PaymentLinkId,
    active: bool,
    links: &dyn PaymentLinkRepository,
) -> Result<PaymentLink, PaymentLinkError> {
    links
        .set_link_active(ctx.merchant_id, ctx.mode, id, active)
        .await
        .map_err(|e| match e {
            StoreError::NotFound => PaymentLinkError::NotFound(Missing::of(id)),
            e => e.into(),
        })
}

#[cfg(test)]
#[path = "manage_payment_links/tests.rs"]
mod tests;
