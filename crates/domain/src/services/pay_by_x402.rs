//! x402 (D29): an agent pays an open payment-mode USDC session with one EIP-3009
//! `transferWithAuthorization` of its gross to the session's deposit address, which the
//! relayer sends (the agent needs no ETH). The transfer is then booked like any deposit
//! (D24): the same payment, events and webhooks. One relay per session, across api
//! processes (the relayer's store); a retry of the same signature gets the same
//! transaction back, a different one gets nothing sent.

use std::time::Duration;

use crate::model::{
    Address, CheckoutSession, CheckoutSessionId, ScreenedPayer, ScreeningPath, TxHash,
};
use crate::ports::{
    ChainError, Inclusion, PayerRefusal, PaymentRelayer, RelayError, RelaySimulation,
    RelayerReadiness, TransferPayment,
};

/// The reason given to a payer whose earlier relay reverted, while the relayer's
/// cool-down for it lasts (D30; not one of the SDK's codes, which have none for it).
pub const PAYER_COOLING_DOWN: &str = "payer_cooling_down_after_revert";
/// The reason given while relaying is paused on the session's chain (D30's revert budget).
pub const RELAYER_PAUSED: &str = "relayer_paused";
use crate::rules::eip3009::TokenDomain;
use crate::rules::x402::{self, Invalid, NotOffered, PaymentPayload, Requirements};
use crate::services::HostedError;
use crate::services::{
    ensure_recipient_verified, public_session, screen_before_sending, settle_checkout,
    stored_public_session, HostedDeps,
};

pub struct X402Deps<'a> {
    pub hosted: HostedDeps<'a>,
    pub relayer: Option<&'a dyn PaymentRelayer>,
    /// How long a paying request waits for its transaction to be mined before answering
    /// `settlement_pending` (the same signature, retried, picks the wait up again).
    pub inclusion_wait: Duration,
}

/// What a session asks of an x402 payer now.
#[derive(Debug, Clone)]
pub struct X402Offer {
    pub session: CheckoutSession,
    pub requirements: Requirements,
    pub domain: TokenDomain,
}

/// Why nothing was paid: an x402 reason code, and what the session asks now (none when it
/// no longer offers x402, e.g. once completed).
#[derive(Debug, Clone)]
pub struct X402Refusal {
    pub reason: &'static str,
    /// The detail is for logs only.
    pub detail: String,
    pub offer: Option<X402Offer>,
    pub session: CheckoutSession,
    /// The relayed transfer, when one is on its way (`settlement_pending`).
    pub transaction: Option<TxHash>,
}

/// A settled x402 payment: its transaction was mined.
#[derive(Debug, Clone)]
pub struct X402Paid {
    pub session: CheckoutSession,
    pub tx: TxHash,
    pub payer: Address,
}

#[derive(Debug, thiserror::Error)]
pub enum X402Error {
    /// No such session (a 404: there is nothing to pay).
    #[error(transparent)]
    Hosted(#[from] HostedError),
    #[error("{}", .0.reason)]
    Refused(Box<X402Refusal>),
}

/// The session's x402 requirements, or why it has none (the session as it stands).
pub async fn x402_offer(
    id: CheckoutSessionId,
    deps: &X402Deps<'_>,
) -> Result<Result<X402Offer, (NotOffered, CheckoutSession)>, HostedError> {
    // Read unhidden and checked once: a revoked recipient's session offers no path at all
    // (D30), a 400 naming it.
    let session = stored_public_session(id, &deps.hosted).await?;
    if session.status == crate::model::SessionStatus::Open {
        ensure_recipient_verified(&session, &deps.hosted).await?;
    }
    let settle = &deps.hosted.settle;
    let domain = match settle
        .chain
        .authorization_domain(session.chain, session.token_address)
        .await
    {
        Ok(Some(domain)) => domain,
        Ok(None) => return Ok(Err((NotOffered::NotFiatToken, session))),
        Err(e) => return Err(HostedError::ChainUnavailable(e.to_string())),
    };
    let requirements = x402::requirements(&session, &domain, settle.clock.now());
    // Money on its way (seen, not yet at depth) counts too: once what arrived covers the
    // gross, an x402 payment on top would pay the session twice. Less (dust, a partial
    // transfer) leaves x402 offered; an x402 payment then books the rest as overpaid.
    if requirements.is_ok() {
        let arriving: u64 = settle
            .deposits
            .deposit_transfers(session.id)
            .await?
            .iter()
            .filter(|t| t.token == session.token_address)
            .map(|t| t.amount_micros)
            .fold(0, u64::saturating_add);
        if arriving >= session.amount.micros() {
            return Ok(Err((NotOffered::BeingPaid, session)));
        }
    }
    match requirements {
        Ok(requirements) => Ok(Ok(X402Offer {
            session,
            requirements,
            domain,
        })),
        Err(why) => Ok(Err((why, session))),
    }
}

/// Verifies `payment` against what the session asks and, if it holds, has the relayer
/// send it once, waits for it to be mined and books it.
pub async fn pay_by_x402(
    id: CheckoutSessionId,
    payment: &PaymentPayload,
    path: ScreeningPath,
    deps: &X402Deps<'_>,
) -> Result<X402Paid, X402Error> {
    // A retry of the authorization already relayed (the SDK's own retry, or a lost
    // answer) waits for that transaction, whatever the session's state now.
    if let Some(relayer) = deps.relayer {
        if let Some(relayed) = relayer
            .relayed_authorization(id)
            .await
            .map_err(HostedError::from)?
        {
            // Every signed term and the signature equal; a relay stored without its terms
            // is never "the same" (a copy sharing `from` and `nonce` may be forged).
            let same = relayed.terms.is_some() && relayed.terms == x402::payload_terms(payment);
            let session = public_session(id, &deps.hosted).await?;
            if !same {
                return Err(refused(
                    "settlement_in_progress",
                    "another authorization was relayed",
                    None,
                    session,
                ));
            }
            return settled(id, payer_of(payment), relayed.tx, deps, relayer, session).await;
        }
    }
    let offer = match x402_offer(id, deps).await? {
        Ok(offer) => offer,
        Err((why, session)) => {
            return Err(refused(
                why.reason(),
                "the session offers no x402 payment",
                None,
                session,
            ))
        }
    };
    let (relayer, transfer, balance) = verify_payment(&offer, payment, path, deps).await?;
    let session = &offer.session;
    let from = transfer.authorization.from;
    let unknown = |e: ChainError, offer: &X402Offer| {
        refused(
            "chain_unavailable",
            &e.to_string(),
            Some(offer.clone()),
            offer.session.clone(),
        )
    };
    let unavailable = |offer: &X402Offer| {
        refused(
            "relayer_unavailable",
            "no relayer can send it now",
            Some(offer.clone()),
            offer.session.clone(),
        )
    };
    let tx = match relayer
        .relay_transfer(session.chain, id, &transfer, balance)
        .await
    {
        Ok(crate::ports::Relayed::Submitted(tx)) => tx,
        // Another request relayed first: ours only if it carries this very authorization.
        Ok(crate::ports::Relayed::AlreadySubmitted(tx)) => {
            let mine = relayer
                .relayed_authorization(id)
                .await
                .map_err(HostedError::from)?
                .is_some_and(|r| r.terms == Some(transfer.terms()));
            if !mine {
                return Err(refused(
                    "settlement_in_progress",
                    "another authorization was relayed",
                    None,
                    session.clone(),
                ));
            }
            tx
        }
        Err(RelayError::PayerRefused(why)) => {
            let reason = match why {
                PayerRefusal::Overcommitted { .. } => Invalid::InsufficientBalance.reason(),
                PayerRefusal::CoolingDown { .. } => PAYER_COOLING_DOWN,
            };
            return Err(refused(
                reason,
                &why.to_string(),
                Some(offer.clone()),
                session.clone(),
            ));
        }
        Err(RelayError::WouldRevert(why)) => {
            return Err(refused(
                Invalid::Simulation(why.clone()).reason(),
                &why,
                Some(offer.clone()),
                session.clone(),
            ))
        }
        Err(RelayError::Unavailable(_)) => return Err(unavailable(&offer)),
        Err(RelayError::Chain(e)) => return Err(unknown(e, &offer)),
        Err(RelayError::Store(e)) => return Err(HostedError::from(e).into()),
    };
    settled(id, from, tx, deps, relayer, session.clone()).await
}

/// Every check of `payment` against `offer` short of sending it: the rules (version,
/// network, asset, recipient, exact amount, window, signature), then the chain's answers
/// (a contract payer, the recipient wallet still verified, the balance, the relayer ready,
/// and an `eth_call` of the transfer, which also catches a used nonce).
/// Answers the relayer, the transfer to send and the payer's balance just read.
pub async fn verify_payment<'a>(
    offer: &X402Offer,
    payment: &PaymentPayload,
    path: ScreeningPath,
    deps: &X402Deps<'a>,
) -> Result<(&'a dyn PaymentRelayer, TransferPayment, u128), X402Error> {
    let settle = &deps.hosted.settle;
    let now = settle.clock.now();
    let invalid = |why: Invalid, offer: &X402Offer| {
        refused(
            why.reason(),
            &format!("{why:?}"),
            Some(offer.clone()),
            offer.session.clone(),
        )
    };
    let checked = match x402::check_payment(payment, &offer.requirements, &offer.domain, now) {
        Ok(checked) => checked,
        Err(why) => return Err(invalid(why, offer)),
    };
    let session = &offer.session;
    let unknown = |e: ChainError, offer: &X402Offer| {
        refused(
            "chain_unavailable",
            &e.to_string(),
            Some(offer.clone()),
            offer.session.clone(),
        )
    };
    let from = checked.authorization.from;
    // A contract payer signs by ERC-1271: the token checks it, so the simulation decides.
    if !checked.signed_by_eoa {
        match settle.chain.is_contract(session.chain, from).await {
            Ok(true) => {}
            Ok(false) => return Err(invalid(Invalid::Signature, offer)),
            Err(e) => return Err(unknown(e, offer)),
        }
    }
    if let Err(e) = ensure_recipient_verified(session, &deps.hosted).await {
        return Err(refused(
            "recipient_revoked",
            &e.to_string(),
            None,
            session.clone(),
        ));
    }
    // A listed payer (or one no source can answer for) has nothing sent (D33).
    let payer = ScreenedPayer {
        merchant_id: session.merchant_id,
        mode: session.mode,
        chain: session.chain,
        address: from,
        subject: crate::model::ScreeningSubject::Session(session.id),
    };
    let screening = settle.screening_deps();
    if let Err(blocked) = screen_before_sending(payer, path, &screening)
        .await
        .map_err(HostedError::from)?
    {
        return Err(refused(
            blocked.reason(),
            &blocked.to_string(),
            Some(offer.clone()),
            session.clone(),
        ));
    }
    let balance = match settle
        .chain
        .token_balance(session.chain, session.token_address, from)
        .await
    {
        Ok(has) if has < checked.authorization.value => {
            return Err(invalid(Invalid::InsufficientBalance, offer))
        }
        Ok(has) => has,
        Err(e) => return Err(unknown(e, offer)),
    };
    let unavailable = |offer: &X402Offer| {
        refused(
            "relayer_unavailable",
            "no relayer can send it now",
            Some(offer.clone()),
            offer.session.clone(),
        )
    };
    let Some(relayer) = deps.relayer else {
        return Err(unavailable(offer));
    };
    match relayer.readiness(session.chain).await {
        Ok(RelayerReadiness::Ready) => {}
        Ok(RelayerReadiness::Unavailable) => return Err(unavailable(offer)),
        Ok(RelayerReadiness::Paused(why)) => {
            return Err(refused(
                RELAYER_PAUSED,
                &format!("relaying is paused on this network: {why}"),
                Some(offer.clone()),
                offer.session.clone(),
            ))
        }
        Err(e) => return Err(unknown(e, offer)),
    }
    let transfer = TransferPayment {
        token: session.token_address,
        authorization: checked.authorization,
        signature: checked.signature,
    };
    match relayer.simulate_transfer(session.chain, &transfer).await {
        Ok(RelaySimulation::Succeeds) => Ok((relayer, transfer, balance)),
        Ok(RelaySimulation::Reverts(why)) if why.contains("authorization is used") => {
            Err(invalid(Invalid::NonceUsed, offer))
        }
        Ok(RelaySimulation::Reverts(why)) => Err(invalid(Invalid::Simulation(why), offer)),
        Err(e) => Err(unknown(e, offer)),
    }
}

/// Waits for the session's relay to be mined, books it (the watcher would too) and answers
/// with the session as it then stands.
async fn settled(
    id: CheckoutSessionId,
    payer: Address,
    relayed: TxHash,
    deps: &X402Deps<'_>,
    relayer: &dyn PaymentRelayer,
    session: CheckoutSession,
) -> Result<X402Paid, X402Error> {
    let settle = &deps.hosted.settle;
    match relayer
        .await_inclusion(session.chain, id, deps.inclusion_wait)
        .await
    {
        Ok(Inclusion::Mined(tx)) => {
            // The fast path of D24's booking. Its failure loses nothing: the watcher books
            // every transfer to a deposit address.
            let _ = settle_checkout(session.chain, tx, settle).await;
            let session = public_session(id, &deps.hosted).await?;
            Ok(X402Paid { session, tx, payer })
        }
        Ok(Inclusion::Failed) => Err(refused(
            "transaction_failed",
            "the relayed transfer did not pay",
            None,
            session,
        )),
        Ok(Inclusion::NotYet) => Err(pending(
            "not mined yet; send the same payment again",
            relayed,
            session,
        )),
        Err(e) => Err(pending(&e.to_string(), relayed, session)),
    }
}

/// The payer a payment names (its terms checked equal to the relayed one's before this is
/// used).
fn payer_of(payment: &PaymentPayload) -> Address {
    Address::parse(&payment.payload.authorization.from.to_lowercase())
        .unwrap_or(Address::from_bytes([0; 20]))
}

fn refused(
    reason: &'static str,
    detail: &str,
    offer: Option<X402Offer>,
    session: CheckoutSession,
) -> X402Error {
    X402Error::Refused(Box::new(X402Refusal {
        reason,
        detail: detail.to_owned(),
        offer,
        session,
        transaction: None,
    }))
}

/// `settlement_pending`, naming the transfer on its way (the SDKs retry with it).
fn pending(detail: &str, tx: TxHash, session: CheckoutSession) -> X402Error {
    X402Error::Refused(Box::new(X402Refusal {
        reason: "settlement_pending",
        detail: detail.to_owned(),
        offer: None,
        session,
        transaction: Some(tx),
    }))
}

#[cfg(test)]
mod tests;
