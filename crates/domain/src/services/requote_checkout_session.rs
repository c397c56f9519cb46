//! POST /pay/:id/requote (D34): a session whose quote lapsed offers its buyer a fresh
//! session at a new quote. It has the same price, token, wallet, fee terms, metadata,
//! customer reference and redirect URLs, ends when the old session would have, and names
//! the session it replaces (`requoted_from`). A session a payment link opened is re-quoted
//! by the link instead (its visit rules apply: active, within its limit).

use crate::model::{
    CheckoutSession, CheckoutSessionId, FeeTier, MetadataJson, PaymentLinkId, RedirectUrl,
    SessionOwner, SessionStatus, SessionTerms, Title,
};
use crate::ports::StoreError;

use super::{
    create_checkout_session, prepare_checkout_session, CreateSessionDeps, CreateSessionError,
    NewSessionRequest, PrepareSessionDeps,
};

/// A re-quote is refused when less than this is left of the session itself.
pub const REQUOTE_MIN_LEFT_SECS: i64 = 60;

#[derive(Debug)]
pub enum Requoted {
    Session(Box<CheckoutSession>),
    /// Visit this link again: it opens the fresh session.
    ByLink(PaymentLinkId),
}

#[derive(Debug, thiserror::Error)]
pub enum RequoteError {
    #[error("no such checkout session")]
    NotFound,
    /// Why this session takes no new quote (safe to show).
    #[error("{0}")]
    NotRequotable(&'static str),
    #[error(transparent)]
    Session(#[from] CreateSessionError),
}

impl From<StoreError> for RequoteError {
    fn from(e: StoreError) -> Self {
        Self::Session(e.into())
    }
}

pub struct RequoteDeps<'a> {
    pub prepare: PrepareSessionDeps<'a>,
    pub create: CreateSessionDeps<'a>,
}

pub async fn requote_checkout_session(
    id: CheckoutSessionId,
    deps: &RequoteDeps<'_>,
) -> Result<Requoted, RequoteError> {
    let old = deps
        .create
        .sessions
        .get_public(id)
        .await?
        .ok_or(RequoteError::NotFound)?;
    let now = deps.create.clock.now();
    let refuse = |why| Err(RequoteError::NotRequotable(why));
    let Some(price) = old
        .priced
        .as_ref()
        .filter(|p| p.quote.expires_at.is_some())
        .map(|p| p.price)
    else {
        return refuse("only a price quoted across currencies is quoted again");
    };
    if old.status_at(now) != SessionStatus::Open || old.awaiting_review {
        return refuse("the session is no longer open");
    }
    if old.quote_live(now) {
        return refuse("the session's quote has not expired: pay it as quoted");
    }
    if old.amount_received_micros > 0 {
        return refuse("a transfer already reached this session at its quote: ask the merchant");
    }
    let left = old.expires_at.unix_seconds() - now.unix_seconds();
    if left < REQUOTE_MIN_LEFT_SECS {
        return refuse("the session itself is expiring");
    }
    if let Some(link) = old.payment_link {
        return Ok(Requoted::ByLink(link));
    }
    let stored = |what: &str| StoreError::Internal(format!("session {id}: stored {what}"));
    let owner = SessionOwner {
        merchant_id: old.merchant_id,
        mode: old.mode,
        fee_tier: FeeTier::from_parts(&old.fee_tier, Some(old.fee_bps))
            .map_err(|_| stored("fee tier"))?,
        underpayment_tolerance: old.underpayment_tolerance,
    };
    let url = |u: &Option<String>| {
        u.as_deref()
            .map(RedirectUrl::parse)
            .transpose()
            .map_err(|_| stored("redirect URL"))
    };
    let request = NewSessionRequest {
        terms: SessionTerms::PricedPayment { price },
        title: Title::parse(&old.title).map_err(|_| stored("title"))?,
        description: old.description.clone(),
        recipient: Some(old.recipient_address),
        customer_reference: old
            .customer_reference
            .as_deref()
            .map(crate::model::CustomerReference::parse)
            .transpose()
            .map_err(|_| stored("customer_reference"))?,
        metadata: MetadataJson::from_json_text(&old.metadata).map_err(|_| stored("metadata"))?,
        success_url: url(&old.success_url)?,
        cancel_url: url(&old.cancel_url)?,
        expires_in_seconds: left as u64,
        chain: None,
        currency: Some(old.currency),
        underpayment_tolerance: Some(old.underpayment_tolerance),
        payment_link: None,
        requoted_from: Some(old.id),
    };
    let prepared = prepare_checkout_session(&owner, request, &deps.prepare).await?;
    let fresh = create_checkout_session(&owner, prepared, &deps.create).await?;
    Ok(Requoted::Session(Box::new(fresh)))
}

#[cfg(test)]
#[path = "requote_checkout_session/tests.rs"]
mod tests;
