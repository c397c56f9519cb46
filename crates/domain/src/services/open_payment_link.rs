//! GET of a payment link's URL (D34): each visit opens a fresh checkout session on the
//! link's terms, for the link's merchant on their terms now, unless the visitor already holds an
//! open one of this link (never two at a time per visitor), the link is off, or its limit
//! of completed payments is reached.

use crate::model::{
    CheckoutSession, CheckoutSessionId, ChosenAmountError, MetadataJson, Missing, PaymentLink,
    PaymentLinkId, RedirectUrl, SessionOwner, SessionStatus, Title,
};
use crate::ports::{PaymentLinkRepository, StoreError};

use super::{
    create_checkout_session, prepare_checkout_session, CreateSessionDeps, CreateSessionError,
    NewSessionRequest, PrepareSessionDeps,
};

/// How long a session a link opens stays open (a visit is a buyer at the page now; a
/// priced one's quote usually lapses sooner).
pub const LINK_SESSION_TTL_SECS: u64 = 3600;

/// What a visit brings.
#[derive(Debug, Clone, Copy, Default)]
pub struct LinkVisitor<'a> {
    /// The session this visitor's last visit opened (their cookie), if any.
    pub returning: Option<CheckoutSessionId>,
    /// The amount the buyer typed, for a link that asks for one.
    pub chosen_amount: Option<&'a str>,
}

#[derive(Debug)]
pub enum LinkVisit {
    /// Go to this session's hosted page; `fresh` when this visit opened it.
    Session {
        session: Box<CheckoutSession>,
        fresh: bool,
    },
    /// The link takes the buyer's amount: ask for it (and say why the last was refused).
    AskAmount {
        link: Box<PaymentLink>,
        refused: Option<ChosenAmountError>,
    },
    Inactive(Box<PaymentLink>),
    /// Its limit of completed payments is reached.
    SoldOut(Box<PaymentLink>),
}

#[derive(Debug, thiserror::Error)]
pub enum LinkVisitError {
    #[error(transparent)]
    NotFound(Missing),
    /// The link could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The link was found but no session could be opened for it now: a price not
    /// quotable, the network, storage, or its terms no longer valid (its wallet revoked,
    /// its token off its peg). The link comes back for the page that says so.
    #[error("{error}")]
    Unavailable {
        link: Box<PaymentLink>,
        error: CreateSessionError,
    },
}

pub struct LinkVisitDeps<'a> {
    pub links: &'a dyn PaymentLinkRepository,
    pub prepare: PrepareSessionDeps<'a>,
    pub create: CreateSessionDeps<'a>,
}

pub async fn open_payment_link(
    id: PaymentLinkId,
    visitor: LinkVisitor<'_>,
    deps: &LinkVisitDeps<'_>,
) -> Result<LinkVisit, LinkVisitError> {
    let visited = deps
        .links
        .visited_link(id)
        .await?
        .ok_or_else(|| LinkVisitError::NotFound(Missing::of(id)))?;
    let link = visited.link;
    let owner = SessionOwner {
        merchant_id: link.merchant_id,
        mode: link.mode,
        fee_tier: visited.fee_tier,
        underpayment_tolerance: visited.underpayment_tolerance,
    };
    visit(&link, owner, visitor, deps)
        .await
        .map_err(|error| LinkVisitError::Unavailable {
            link: Box::new(link.clone()),
            error,
        })
}

/// A visit to `link`, found: what the visitor is shown or sent to.
async fn visit(
    link: &PaymentLink,
    owner: SessionOwner,
    visitor: LinkVisitor<'_>,
    deps: &LinkVisitDeps<'_>,
) -> Result<LinkVisit, CreateSessionError> {
    let id = link.id;
    if !link.active {
        return Ok(LinkVisit::Inactive(Box::new(link.clone())));
    }
    if link.is_sold_out() {
        return Ok(LinkVisit::SoldOut(Box::new(link.clone())));
    }
    if let Some(returning) = visitor.returning {
        let now = deps.create.clock.now();
        let held = deps.create.sessions.get_public(returning).await?;
        if let Some(session) = held.filter(|s| {
            s.payment_link == Some(id)
                && s.status_at(now) == SessionStatus::Open
                && now < s.pays_until()
        }) {
            return Ok(LinkVisit::Session {
                session: Box::new(session),
                fresh: false,
            });
        }
    }
    let terms = match link.session_terms(visitor.chosen_amount) {
        Ok(terms) => terms,
        Err(refused) => {
            // A first visit to an open-amount link has typed nothing yet: no complaint.
            let refused = visitor.chosen_amount.is_some().then_some(refused);
            return Ok(LinkVisit::AskAmount {
                link: Box::new(link.clone()),
                refused,
            });
        }
    };
    let stored = |what: &str| StoreError::Internal(format!("payment link {id}: stored {what}"));
    let request = NewSessionRequest {
        terms,
        title: Title::parse(&link.name).map_err(|_| stored("name"))?,
        description: link.description.clone(),
        recipient: Some(link.recipient),
        customer_reference: None,
        metadata: MetadataJson::from_json_text(&link.metadata).map_err(|_| stored("metadata"))?,
        success_url: link
            .success_url
            .as_deref()
            .map(RedirectUrl::parse)
            .transpose()
            .map_err(|_| stored("success_url"))?,
        cancel_url: None,
        expires_in_seconds: LINK_SESSION_TTL_SECS,
        chain: None,
        currency: Some(link.currency),
        underpayment_tolerance: None,
        payment_link: Some(id),
        requoted_from: None,
    };
    let prepared = prepare_checkout_session(&owner, request, &deps.prepare).await?;
    let session = create_checkout_session(&owner, prepared, &deps.create).await?;
    Ok(LinkVisit::Session {
        session: Box::new(session),
        fresh: true,
    })
}

#[cfg(test)]
#[path = "open_payment_link/tests.rs"]
mod tests;
