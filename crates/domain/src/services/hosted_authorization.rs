//! One-signature payments on the hosted page (D23): the EIP-3009 `ReceiveWithAuthorization`
//! a buyer's wallet signs, and its submission, which the service's relayer sends through
//! `CheckoutRouter.payWithAuthorization`. Settlement is unchanged (watcher + confirm).
//!
//! Everything that can be checked before spending gas is, in the order a buyer can fix
//! it: the signer, the payer's balance, then an `eth_call` from the relayer. An RPC that
//! fails or is late is "unknown" (503), never a verdict.

use crate::model::{Address, CheckoutSession, CheckoutSessionId, SessionMode, Signature};
use crate::ports::{
    ChainError, OneSignaturePayment, PaymentRelayer, RelayError, RelaySimulation, Relayed,
    RelayerReadiness,
};
use crate::rules::eip3009::{on_chain_signature, ReceiveAuthorization, TokenDomain};
use crate::services::{
    prepare_intent, public_session, HostedDeps, HostedError, Intent, PreparedIntent,
};

/// An authorization must stay valid at least this long after it is submitted.
pub const MIN_VALIDITY_SECS: u64 = 60;

pub struct AuthorizationDeps<'a> {
    pub hosted: HostedDeps<'a>,
    /// `None` when no relayer key is configured.
    pub relayer: Option<&'a dyn PaymentRelayer>,
}

#[derive(Debug, thiserror::Error)]
pub enum AuthorizationError {
    #[error(transparent)]
    Hosted(#[from] HostedError),
    /// The token has no EIP-3009 (dev and Base USDT): the buyer pays with a transaction.
    #[error("{0} has no one-signature payments (EIP-3009); pay with a transaction")]
    Unsupported(&'static str),
    #[error("subscriptions are started with a transaction from the subscriber's wallet")]
    NotPaymentMode,
    #[error("the signature was not made by {0} over this checkout's authorization")]
    SignatureMismatch(Address),
    #[error(
        "must be at least {MIN_VALIDITY_SECS} seconds in the future, to leave time to be mined"
    )]
    ValidBeforePast,
    #[error("must not be later than the checkout's payment deadline ({0})")]
    ValidBeforeTooLate(u64),
    #[error("{payer} holds {has} base units of the token; this checkout needs {needs}")]
    InsufficientFunds {
        payer: Address,
        has: u128,
        needs: u128,
    },
    /// The network would refuse the payment (an `eth_call` reverted), for this reason.
    #[error("the network would refuse this payment: {0}")]
    Rejected(String),
    /// No relayer key, or its ETH is under the floor: the page falls back to approve + pay.
    #[error("one-signature payments are not available right now; pay with a transaction")]
    RelayerUnavailable,
    /// Relaying is paused on this chain (D30's budget of gas lost to reverts).
    #[error("one-signature payments are paused on this network ({0}); pay with a transaction or send to the deposit address")]
    RelayerPaused(crate::rules::relay_budget::RelayPause),
    /// The relayer sends nothing for this payer now (D30): over its balance with payments
    /// on their way, or cooling down after one reverted. Other payers are not affected.
    #[error(transparent)]
    PayerRefused(crate::ports::PayerRefusal),
    /// The detail is for logs only (it may hold an RPC URL).
    #[error("the network could not be reached")]
    ChainUnavailable(String),
    /// The payer is listed by a sanctions source, or none could answer (D33): nothing sent.
    #[error(transparent)]
    PayerBlocked(crate::services::PayerBlocked),
    /// A one-signature payment of this session was relayed: no transaction intent is handed
    /// out, so the buyer does not pay twice.
    #[error("this checkout is being paid by a one-signature payment ({0})")]
    AlreadyRelayed(crate::model::TxHash),
}

impl From<ChainError> for AuthorizationError {
    fn from(e: ChainError) -> Self {
        match e {
            ChainError::NotConfigured(_) => AuthorizationError::Hosted(HostedError::NotConfigured(
                "no RPC endpoint is configured",
            )),
            ChainError::Unavailable(detail) => AuthorizationError::ChainUnavailable(detail),
        }
    }
}

impl From<RelayError> for AuthorizationError {
    fn from(e: RelayError) -> Self {
        match e {
            RelayError::Unavailable(_) => AuthorizationError::RelayerUnavailable,
            RelayError::PayerRefused(why) => AuthorizationError::PayerRefused(why),
            RelayError::WouldRevert(why) => AuthorizationError::Rejected(why),
            RelayError::Chain(e) => e.into(),
            RelayError::Store(e) => AuthorizationError::Hosted(e.into()),
        }
    }
}

/// What the hosted page offers first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OneSignatureOffer {
    /// One signature, no gas (EIP-3009), relayed.
    Offered,
    /// Not for this session or token, no relayer, or the node cannot say: the page offers
    /// paying with a transaction.
    NotOffered,
    /// Relaying is paused on the session's chain (D30): the page falls back to the other
    /// ways to pay and says why.
    Paused(crate::rules::relay_budget::RelayPause),
}

/// Whether the hosted page offers a one-signature payment first: an open payment session
/// whose token has EIP-3009, with a relayer above its balance floor and within its revert
/// budget to send it. A node that cannot answer counts as no (the page still offers
/// paying with a transaction).
pub async fn one_signature_offered(
    session: &CheckoutSession,
    chain: &dyn crate::ports::ChainReader,
    relayer: Option<&dyn PaymentRelayer>,
) -> OneSignatureOffer {
    let Some(relayer) = relayer else {
        return OneSignatureOffer::NotOffered;
    };
    let payable = session.session_mode == SessionMode::Payment
        && session.status == crate::model::SessionStatus::Open
        && matches!(
            chain
                .authorization_domain(session.chain, session.token_address)
                .await,
            Ok(Some(_))
        );
    if !payable {
        return OneSignatureOffer::NotOffered;
    }
    match relayer.readiness(session.chain).await {
        Ok(RelayerReadiness::Ready) => OneSignatureOffer::Offered,
        Ok(RelayerReadiness::Paused(why)) => OneSignatureOffer::Paused(why),
        Ok(RelayerReadiness::Unavailable) | Err(_) => OneSignatureOffer::NotOffered,
    }
}

/// The intent for paying with a transaction (approve + pay, or subscribe), unless a
/// one-signature payment of the session was relayed already.
pub async fn transaction_intent(
    id: CheckoutSessionId,
    deps: &AuthorizationDeps<'_>,
) -> Result<crate::services::SignedIntent, AuthorizationError> {
    if let Some(relayer) = deps.relayer {
        if let Some(tx) = relayer.relayed(id).await.map_err(HostedError::from)? {
            return Err(AuthorizationError::AlreadyRelayed(tx));
        }
    }
    Ok(crate::services::sign_payment_intent(id, &deps.hosted).await?)
}

/// What the buyer's wallet signs with `eth_signTypedData_v4`.
#[derive(Debug, Clone)]
pub struct AuthorizationRequest {
    pub session: CheckoutSession,
    pub router: Address,
    pub domain: TokenDomain,
    pub authorization: ReceiveAuthorization,
}

/// The authorization for `payer` to sign: net + fee to the router, valid until the intent's
/// deadline (min(expires_at, now + intent TTL), D18), with the session ref as its nonce.
pub async fn authorization_request(
    id: CheckoutSessionId,
    payer: Address,
    deps: &AuthorizationDeps<'_>,
) -> Result<AuthorizationRequest, AuthorizationError> {
    let (prepared, domain) = one_signature_intent(id, None, deps).await?;
    let Intent::Payment(intent) = prepared.intent else {
        return Err(AuthorizationError::NotPaymentMode);
    };
    Ok(AuthorizationRequest {
        session: prepared.session,
        router: prepared.contract,
        domain,
        authorization: ReceiveAuthorization::paying(payer, prepared.contract, &intent),
    })
}

/// Checks a signed authorization and has the relayer send it; a session relayed before
/// answers with its transaction and nothing new is sent.
pub async fn submit_authorization(
    id: CheckoutSessionId,
    payer: Address,
    valid_before: u64,
    signature: &Signature,
    deps: &AuthorizationDeps<'_>,
) -> Result<(CheckoutSession, Relayed), AuthorizationError> {
    let relayer = deps.relayer.ok_or(AuthorizationError::RelayerUnavailable)?;
    if let Some(tx) = relayer.relayed(id).await.map_err(HostedError::from)? {
        let session = public_session(id, &deps.hosted).await?;
        return Ok((session, Relayed::AlreadySubmitted(tx)));
    }
    let now = u64::try_from(deps.hosted.settle.clock.now().unix_seconds()).unwrap_or(0);
    // Time to be mined: a relayed transaction that lands after `validBefore` reverts, and
    // the relayer would have paid for nothing.
    if valid_before < now.saturating_add(MIN_VALIDITY_SECS) {
        return Err(AuthorizationError::ValidBeforePast);
    }
    let (prepared, domain) = one_signature_intent(id, Some(valid_before), deps).await?;
    let Intent::Payment(intent) = prepared.intent else {
        return Err(AuthorizationError::NotPaymentMode);
    };
    if intent.deadline != valid_before {
        return Err(AuthorizationError::ValidBeforeTooLate(intent.deadline));
    }
    let session = &prepared.session;
    // The intent's deadline is `valid_before` (checked above).
    let authorization = ReceiveAuthorization::paying(payer, prepared.contract, &intent);
    let chain = deps.hosted.settle.chain;
    // A smart-contract wallet signs by ERC-1271: the token checks it, so the simulation
    // below decides for those.
    if !authorization.signed_by_payer(&domain, signature)
        && !chain.is_contract(session.chain, payer).await?
    {
        return Err(AuthorizationError::SignatureMismatch(payer));
    }
    // Before anything is read or sent for the payer: a listed payer's money is never moved.
    let screened = crate::model::ScreenedPayer {
        merchant_id: session.merchant_id,
        mode: session.mode,
        chain: session.chain,
        address: payer,
        subject: crate::model::ScreeningSubject::Session(session.id),
    };
    let screening = deps.hosted.settle.screening_deps();
    crate::services::screen_before_sending(
        screened,
        crate::model::ScreeningPath::OneSignature,
        &screening,
    )
    .await
    .map_err(HostedError::from)?
    .map_err(AuthorizationError::PayerBlocked)?;
    let has = chain
        .token_balance(session.chain, session.token_address, payer)
        .await?;
    if has < authorization.value {
        return Err(AuthorizationError::InsufficientFunds {
            payer,
            has,
            needs: authorization.value,
        });
    }
    match relayer.readiness(session.chain).await? {
        RelayerReadiness::Ready => {}
        RelayerReadiness::Unavailable => return Err(AuthorizationError::RelayerUnavailable),
        RelayerReadiness::Paused(why) => return Err(AuthorizationError::RelayerPaused(why)),
    }
    // Bound to this payer (`PayerIntent`), and made only here, as the relayer sends this
    // payer's authorization: another wallet's authorization cannot pay the session with it.
    let payment = OneSignaturePayment {
        router: prepared.contract,
        operator_signature: prepared.operator_signature(intent.payer_struct_hash(&payer))?,
        intent,
        payer,
        valid_before,
        payer_signature: on_chain_signature(signature),
        cancel_signature: prepared
            .operator_signature(crate::rules::eip712::cancel_struct_hash(&intent.reference))?,
    };
    if let RelaySimulation::Reverts(why) = relayer.simulate(session.chain, &payment).await? {
        return Err(AuthorizationError::Rejected(why));
    }
    let relayed = relayer
        .relay(session.chain, session.id, &payment, has)
        .await?;
    Ok((prepared.session, relayed))
}

/// An unsigned payment intent for one-signature payment (deadline `until`, or the default)
/// and the token's EIP-712 domain, which a token without EIP-3009 does not have.
async fn one_signature_intent<'a>(
    id: CheckoutSessionId,
    until: Option<u64>,
    deps: &AuthorizationDeps<'a>,
) -> Result<(PreparedIntent<'a>, TokenDomain), AuthorizationError> {
    let prepared = prepare_intent(id, until, &deps.hosted).await?;
    if prepared.session.session_mode != SessionMode::Payment {
        return Err(AuthorizationError::NotPaymentMode);
    }
    let session = &prepared.session;
    let domain = deps
        .hosted
        .settle
        .chain
        .authorization_domain(session.chain, session.token_address)
        .await?
        .ok_or(AuthorizationError::Unsupported(session.currency.as_str()))?;
    Ok((prepared, domain))
}

#[cfg(test)]
mod tests;
