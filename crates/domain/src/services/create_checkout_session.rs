//! POST /checkout/sessions: validate against the key's mode and read a subscription's
//! plan from the chain (`prepare_checkout_session`), then resolve the recipient,
//! snapshot the fee terms and store the session (`create_checkout_session`).

use crate::deployment::{ChainDirectory, PriceFeeds, TokenDirectory};
use crate::model::{
    Address, Amount, ChainId, CheckoutSession, CheckoutSessionId, Currency, CustomerReference,
    MetadataJson, PaymentLinkId, QuotedPrice, RedirectUrl, SessionMode, SessionOwner,
    SessionStatus, SessionTerms, Title, UnderpaymentTolerance, ValidationErrors, Wallet,
    WalletStatus,
};
use crate::ports::{
    ChainReader, Clock, SessionRepository, StoreError, SubscriptionStore, WalletRepository,
};
use crate::rules::deposit::DepositTerms;
use crate::rules::fees;

mod quote_price;
mod subscription_terms;

/// A parsed create request: every field already has its domain type, and the mode's
/// rules are in the shape of `terms` (checked once, where the request was parsed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSessionRequest {
    pub terms: SessionTerms,
    pub title: Title,
    pub description: Option<String>,
    pub recipient: Option<Address>,
    pub customer_reference: Option<CustomerReference>,
    pub metadata: MetadataJson,
    pub success_url: Option<RedirectUrl>,
    pub cancel_url: Option<RedirectUrl>,
    pub expires_in_seconds: u64,
    pub chain: Option<ChainId>,
    /// The token; `None` takes the default: EURC for a price in euros, else USDC.
    pub currency: Option<Currency>,
    /// Payment mode only (a subscription's charges are exact); `None` takes the
    /// merchant's default.
    pub underpayment_tolerance: Option<UnderpaymentTolerance>,
    /// The payment link being visited, when a visit makes the session.
    pub payment_link: Option<PaymentLinkId>,
    /// The session whose lapsed quote this one replaces (a re-quote from its hosted page).
    pub requoted_from: Option<CheckoutSessionId>,
}

impl NewSessionRequest {
    /// The token the session is paid in.
    pub fn token(&self) -> Currency {
        self.currency.unwrap_or_else(|| {
            Currency::default_for(match &self.terms {
                SessionTerms::PricedPayment { price } => Some(price.fiat),
                _ => None,
            })
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CreateSessionError {
    #[error(transparent)]
    Invalid(#[from] ValidationErrors),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The plan could not be read from the chain (detail for logs only).
    #[error("the network could not be reached")]
    ChainUnavailable(String),
    /// A price could not be quoted now: a feed it needs is stale, unreadable or answered
    /// nothing usable (the message says which, and is safe to show).
    #[error("{0}")]
    PriceUnavailable(String),
}

/// What `prepare_checkout_session` reads: the chain, and where its contracts and tokens are.
pub struct PrepareSessionDeps<'a> {
    pub tokens: &'a TokenDirectory,
    pub chain: &'a dyn ChainReader,
    pub chains: &'a ChainDirectory,
    pub feeds: &'a PriceFeeds,
    pub clock: &'a dyn Clock,
}

pub struct CreateSessionDeps<'a> {
    pub sessions: &'a dyn SessionRepository,
    pub wallets: &'a dyn WalletRepository,
    pub clock: &'a dyn Clock,
    pub tokens: &'a TokenDirectory,
    pub chains: &'a ChainDirectory,
    pub subscriptions: &'a dyn SubscriptionStore,
    /// `STABLEPAY_PLAN_MIN_INTERVAL` in seconds (D19).
    pub plan_min_interval_secs: u64,
}

/// A create request checked against the key, with what it needs from the chain already
/// read: made by `prepare_checkout_session` only.
#[derive(Debug, Clone)]
pub struct PreparedSession {
    req: NewSessionRequest,
    token: Address,
    plan: Option<subscription_terms::PlanRead>,
    /// A price in a currency, quoted: the token amount and the quote.
    quoted: Option<(Amount, QuotedPrice)>,
}

/// The first step of a create, before anything is written: the request against the
/// key's chain and the currencies there, and in subscription mode the plan read from the
/// chain (so no chain read ever runs while a request's writes are open).
pub async fn prepare_checkout_session(
    owner: &SessionOwner,
    req: NewSessionRequest,
    deps: &PrepareSessionDeps<'_>,
) -> Result<PreparedSession, CreateSessionError> {
    let chain = owner.mode.chain();
    let mut errors = ValidationErrors::default();

    if let Some(asked) = req.chain {
        if asked != chain {
            errors.push(
                "chain",
                format!(
                    "{} ({}) does not match this {} key, which operates on {} ({})",
                    asked.name(),
                    asked.id(),
                    owner.mode,
                    chain.name(),
                    chain.id()
                ),
            );
        }
    }
    if req.terms.mode() == SessionMode::Subscription
        && req
            .underpayment_tolerance
            .is_some_and(|t| t != UnderpaymentTolerance::NONE)
    {
        errors.push(
            "underpayment_tolerance_bps",
            "is only valid in payment mode (a subscription's charges are exact)",
        );
    }
    let currency = req.token();
    let token = deps.tokens.token(chain, currency);
    if token.is_none() {
        errors.push(
            "currency",
            format!("{currency} is not available on {}", chain.name()),
        );
    }
    // A missing token pushed its error: `filter` then falls through to the errors too.
    let Some(token) = token.filter(|_| errors.is_empty()) else {
        return Err(errors.into());
    };
    let (plan, quoted) = match &req.terms {
        SessionTerms::Subscription { plan, price, .. } => {
            let read = subscription_terms::read_plan(chain, *plan, currency, deps).await?;
            let shown = match price {
                Some(price) => Some(
                    quote_price::display_price(chain, *price, currency, read.amount(), deps)
                        .await?,
                ),
                None => None,
            };
            (Some(read), shown)
        }
        SessionTerms::PricedPayment { price } => (
            None,
            Some(quote_price::quote_price(chain, *price, currency, deps).await?),
        ),
        SessionTerms::Payment { .. } => (None, None),
    };
    Ok(PreparedSession {
        req,
        token,
        plan,
        quoted,
    })
}

/// The second step: the recipient resolved, the fee terms snapshot, the session stored
/// (and in subscription mode the plan checked and registered).
pub async fn create_checkout_session(
    owner: &SessionOwner,
    prepared: PreparedSession,
    deps: &CreateSessionDeps<'_>,
) -> Result<CheckoutSession, CreateSessionError> {
    let PreparedSession {
        req,
        token,
        plan,
        quoted,
    } = prepared;
    let chain = owner.mode.chain();
    let session_mode = req.terms.mode();
    let currency = req.token();

    let (amount, token_address, recipient, interval_seconds, chain_plan_id) = match req.terms {
        SessionTerms::Subscription {
            amount,
            interval_seconds,
            ..
        } => {
            let asked = subscription_terms::AskedTerms {
                amount,
                interval_seconds,
                recipient: req.recipient,
            };
            let read = plan.ok_or_else(|| {
                StoreError::Internal("a subscription session was not prepared with its plan".into())
            })?;
            let terms =
                subscription_terms::subscription_terms(owner, chain, asked, read, deps).await?;
            (
                terms.amount,
                terms.token,
                terms.recipient,
                Some(terms.interval_seconds),
                Some(terms.plan_id.to_string()),
            )
        }
        SessionTerms::Payment { amount } => {
            let recipient = resolve_recipient(owner, req.recipient, deps.wallets).await?;
            (amount, token, recipient, None, None)
        }
        SessionTerms::PricedPayment { .. } => {
            let (amount, _) = quoted.as_ref().ok_or_else(|| {
                StoreError::Internal("a priced session was not prepared with its quote".into())
            })?;
            let recipient = resolve_recipient(owner, req.recipient, deps.wallets).await?;
            (*amount, token, recipient, None, None)
        }
    };

    let fee_bps = owner.fee_tier.bps();
    let split = fees::split(amount, fee_bps);
    let now = deps.clock.now();
    let mut session = CheckoutSession {
        id: CheckoutSessionId::generate_at(now),
        merchant_id: owner.merchant_id,
        mode: owner.mode,
        session_mode,
        status: SessionStatus::Open,
        title: req.title.into(),
        description: req.description,
        amount,
        currency,
        fee_bps,
        fee_micros: split.fee_micros,
        net_micros: split.net_micros,
        fee_tier: owner.fee_tier.label().to_owned(),
        chain,
        token_address,
        interval_seconds,
        chain_plan_id,
        recipient_address: recipient,
        customer: None,
        subscription: None,
        customer_reference: req.customer_reference.map(String::from),
        success_url: req.success_url.map(String::from),
        cancel_url: req.cancel_url.map(String::from),
        wallet_address: None,
        tx_hash: None,
        metadata: req.metadata.into(),
        expires_at: now.plus_seconds(req.expires_in_seconds as i64),
        completed_at: None,
        created_at: now,
        deposit_address: None,
        amount_received_micros: 0,
        underpayment_tolerance: session_tolerance(owner, session_mode, req.underpayment_tolerance),
        underpaid_micros: None,
        awaiting_review: false,
        priced: quoted.map(|(_, priced)| priced),
        payment_link: req.payment_link,
        requoted_from: req.requoted_from,
    };
    // A payment can also arrive by plain transfer where the chain has a deposit factory.
    if session_mode == SessionMode::Payment {
        if let Some(factory) = deps.chains.get(chain).and_then(|c| c.deposit_factory) {
            session.deposit_address = Some(DepositTerms::of_session(&session).address(&factory));
        }
    }
    deps.sessions.insert(&session).await?;
    Ok(session)
}

/// The recipient must be one of the merchant's verified wallets; it may be omitted only
/// when there is exactly one. A live session pays only a wallet verified in live mode,
/// named or defaulted (D25): a wallet a test key verified is never live money's
/// destination.
pub(crate) async fn resolve_recipient(
    owner: &SessionOwner,
    asked: Option<Address>,
    wallets: &dyn WalletRepository,
) -> Result<Address, CreateSessionError> {
    let verified = wallets.verified(owner.merchant_id).await?;
    let fail = |msg: String| Err(ValidationErrors::single("recipient", msg).into());
    match asked {
        Some(address) => match verified.iter().find(|w| w.address == address) {
            Some(w) if w.pays_in(owner.mode) => Ok(w.address),
            Some(w) if w.status == WalletStatus::Verified => fail(format!(
                "{address} was verified with a test key; a live session pays only a wallet verified with a live key (register and verify it again with a live key, or in the live dashboard)"
            )),
            _ => fail(format!(
                "{address} is not a verified settlement wallet of this account"
            )),
        },
        None => {
            let candidates: Vec<&Wallet> =
                verified.iter().filter(|w| w.pays_in(owner.mode)).collect();
            match candidates.as_slice() {
                [only] => Ok(only.address),
                [] if owner.mode.is_live() && !verified.is_empty() => fail(
                    "is required: no settlement wallet of this account was verified with a live key; name one, or verify one with a live key (or the live dashboard)".into(),
                ),
                [] => fail("no verified settlement wallet: register one with POST /api/v1/wallets and verify it".into()),
                several => fail(format!(
                    "is required: this account has {} verified settlement wallets{}",
                    several.len(),
                    if owner.mode.is_live() { " in live mode" } else { "" }
                )),
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;

/// The tolerance a new session keeps: none in subscription mode (its charges are exact;
/// a non-zero one was refused by `prepare_checkout_session`), else the request's, else
/// the merchant's default.
fn session_tolerance(
    owner: &SessionOwner,
    mode: SessionMode,
    asked: Option<UnderpaymentTolerance>,
) -> UnderpaymentTolerance {
    match mode {
        SessionMode::Subscription => UnderpaymentTolerance::NONE,
        SessionMode::Payment => asked.unwrap_or(owner.underpayment_tolerance),
    }
}
