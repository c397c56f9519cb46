//! The public hosted checkout (DESIGN §4, D18): the session's public state (with the same
//! lazy expiry as the API), the operator-signed payment intent, and the fast-path confirm
//! verdict. The session id is the capability; the api only parses and renders.

use crate::deployment::ChainContracts;
use crate::model::{
    Address, CheckoutSession, CheckoutSessionId, PaymentStatus, PrivateKey, SessionMode,
    SessionStatus, Signature, TxHash, Wallet,
};
use crate::ports::{ChainError, Clock, SessionRepository, StoreError, WalletRepository};
use crate::rules::eip712::{self, Domain, PaymentIntent, SubscribeIntent};
use crate::services::{
    read_checkout_session, settle_checkout, with_lazy_expiry, SettleDeps, SettleError,
    SettleOutcome,
};

/// Default lifetime of a signed intent (D18); `STABLEPAY_INTENT_TTL` overrides it.
pub const DEFAULT_INTENT_TTL_SECS: u64 = 15 * 60;

pub struct HostedDeps<'a> {
    pub sessions: &'a dyn SessionRepository,
    pub wallets: &'a dyn WalletRepository,
    pub settle: SettleDeps<'a>,
    /// Signs intents; the router trusts only this key.
    pub operator_key: Option<&'a PrivateKey>,
    pub intent_ttl_secs: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum HostedError {
    #[error("no such checkout session")]
    NotFound,
    #[error("the checkout session is {0}, not open")]
    NotOpen(&'static str),
    /// The merchant revoked the session's recipient wallet (or, for a live session, it is
    /// not verified with a live key, D25): no new money goes there, by any path (D30).
    #[error(
        "the merchant's receiving wallet {0} for this checkout was revoked; it can no longer be paid"
    )]
    RecipientRevoked(Address),
    /// The transaction exists but does not pay this session (why, for the buyer).
    #[error("does not pay this session: {0}")]
    DoesNotPay(String),
    /// The session is priced in a currency and its quote lapsed (D34): it offers no way to
    /// pay; a fresh session quotes again.
    #[error(
        "the quote this checkout was priced at has expired; start a new checkout for a fresh quote"
    )]
    QuoteExpired,
    /// Payments on this network are not set up (no router, no operator key).
    #[error("payments on this network are not available: {0}")]
    NotConfigured(&'static str),
    /// The node failed or timed out. The detail is for logs only (it may hold an RPC URL).
    #[error("the network could not be reached")]
    ChainUnavailable(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<SettleError> for HostedError {
    fn from(e: SettleError) -> Self {
        match e {
            SettleError::Store(e) => HostedError::Store(e),
            SettleError::ChainNotConfigured(_) => {
                HostedError::NotConfigured("no checkout router is configured")
            }
            SettleError::Chain(ChainError::NotConfigured(_)) => {
                HostedError::NotConfigured("no RPC endpoint is configured")
            }
            SettleError::Chain(ChainError::Unavailable(detail)) => {
                HostedError::ChainUnavailable(detail)
            }
            SettleError::Contended => HostedError::ChainUnavailable(e.to_string()),
        }
    }
}

/// The session as the buyer's page sees it, with expiry applied.
pub async fn public_session(
    id: CheckoutSessionId,
    deps: &HostedDeps<'_>,
) -> Result<CheckoutSession, HostedError> {
    find_public_session(id, deps.sessions, deps.wallets, deps.settle.clock).await
}

/// The session as stored (lazily expired), its deposit address not hidden: for paths that
/// refuse a revoked recipient outright ([`ensure_recipient_verified`]), which would
/// otherwise look the wallet up twice.
pub(crate) async fn stored_public_session(
    id: CheckoutSessionId,
    deps: &HostedDeps<'_>,
) -> Result<CheckoutSession, HostedError> {
    let session = deps
        .sessions
        .get_public(id)
        .await?
        .ok_or(HostedError::NotFound)?;
    Ok(with_lazy_expiry(session, deps.sessions, deps.settle.clock).await?)
}

/// [`public_session`] with only the ports it reads (the hosted page's HTML).
pub async fn find_public_session(
    id: CheckoutSessionId,
    sessions: &dyn SessionRepository,
    wallets: &dyn WalletRepository,
    clock: &dyn Clock,
) -> Result<CheckoutSession, HostedError> {
    let session = sessions
        .get_public(id)
        .await?
        .ok_or(HostedError::NotFound)?;
    let session = with_lazy_expiry(session, sessions, clock).await?;
    let merchant = session.merchant_id;
    let wallet_at = |address| wallets.find_by_address(merchant, address);
    Ok(read_checkout_session(session, clock.now(), wallet_at).await?)
}

/// Whether the session's recipient is a wallet of its merchant that takes money of the
/// session's mode (verified; by a live key for a live session, D25).
pub(crate) async fn recipient_pays(
    session: &CheckoutSession,
    wallets: &dyn WalletRepository,
) -> Result<bool, StoreError> {
    let recipient = wallets
        .find_by_address(session.merchant_id, session.recipient_address)
        .await?;
    Ok(session.recipient_takes_money(recipient.as_ref().map(Wallet::standing)))
}

/// What the buyer's wallet submits: a router payment or a subscription.
#[derive(Debug, Clone)]
pub enum Intent {
    Payment(PaymentIntent),
    Subscribe(SubscribeIntent),
}

/// An intent the router (or subscription manager) accepts, signed by the operator key.
#[derive(Debug, Clone)]
pub struct SignedIntent {
    pub session: CheckoutSession,
    pub contracts: ChainContracts,
    /// The contract the intent is for.
    pub contract: Address,
    pub intent: Intent,
    pub signature: Signature,
}

/// Periods of a subscription's amount the hosted page proposes the subscriber approve:
/// a year of monthly charges before the allowance needs topping up.
pub const DEFAULT_ALLOWANCE_PERIODS: u128 = 12;

/// What the buyer's token approval should cover, in base units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowance {
    pub total: u128,
    /// A subscription's per-period amount and the periods `total` covers.
    pub per_period: Option<(u128, u128)>,
}

impl SignedIntent {
    /// The approval the intent needs: the payment's gross, or
    /// [`DEFAULT_ALLOWANCE_PERIODS`] × the plan's amount.
    pub fn allowance(&self) -> Allowance {
        match &self.intent {
            Intent::Payment(intent) => Allowance {
                total: intent.net_amount + intent.fee_amount,
                per_period: None,
            },
            Intent::Subscribe(_) => {
                let period = u128::from(self.session.amount.micros());
                Allowance {
                    total: period * DEFAULT_ALLOWANCE_PERIODS,
                    per_period: Some((period, DEFAULT_ALLOWANCE_PERIODS)),
                }
            }
        }
    }
}

/// Signs a payment intent for an open session whose recipient is still verified. The
/// deadline is min(expires_at, now + TTL), so an intent fetched before a revocation stops
/// working soon after (D18).
pub async fn sign_payment_intent(
    id: CheckoutSessionId,
    deps: &HostedDeps<'_>,
) -> Result<SignedIntent, HostedError> {
    let prepared = prepare_intent(id, None, deps).await?;
    let signature = prepared.operator_signature(prepared.struct_hash)?;
    let PreparedIntent {
        session,
        contracts,
        contract,
        intent,
        ..
    } = prepared;
    Ok(SignedIntent {
        session,
        contracts,
        contract,
        intent,
        signature,
    })
}

/// An intent for an open session whose recipient is still verified, not yet signed: a
/// one-signature payment signs another struct over it (`PayerIntent`), or none at all.
pub struct PreparedIntent<'a> {
    pub session: CheckoutSession,
    pub contracts: ChainContracts,
    /// The contract the intent is for.
    pub contract: Address,
    pub intent: Intent,
    /// The contract's EIP-712 domain.
    pub domain: Domain,
    /// The intent's own struct hash (what `sign_payment_intent` signs).
    pub struct_hash: [u8; 32],
    key: &'a PrivateKey,
}

impl PreparedIntent<'_> {
    /// The operator key's signature of `struct_hash` in the contract's domain.
    pub fn operator_signature(&self, struct_hash: [u8; 32]) -> Result<Signature, HostedError> {
        eip712::sign(&self.domain, struct_hash, self.key.expose())
            .ok_or(HostedError::NotConfigured("the operator key cannot sign"))
    }
}

/// The intent [`sign_payment_intent`] signs, with a deadline also no later than `until` (a
/// one-signature payment's intent ends with the payer's authorization).
pub async fn prepare_intent<'a>(
    id: CheckoutSessionId,
    until: Option<u64>,
    deps: &HostedDeps<'a>,
) -> Result<PreparedIntent<'a>, HostedError> {
    let session = stored_public_session(id, deps).await?;
    if session.status != SessionStatus::Open {
        return Err(HostedError::NotOpen(session.status.as_str()));
    }
    if !session.quote_live(deps.settle.clock.now()) {
        return Err(HostedError::QuoteExpired);
    }
    ensure_recipient_verified(&session, deps).await?;
    let contracts = *deps
        .settle
        .chains
        .get(session.chain)
        .ok_or(HostedError::NotConfigured(
            "no checkout router is configured",
        ))?;
    let key = deps
        .operator_key
        .ok_or(HostedError::NotConfigured("no operator key is configured"))?;
    let ttl = i64::try_from(deps.intent_ttl_secs).unwrap_or(i64::MAX);
    let now = deps.settle.clock.now().unix_seconds();
    // Never signed past the quote's expiry (D34): a later payment would pay a lapsed rate.
    let quote_ends = session
        .priced
        .as_ref()
        .and_then(|p| p.quote.expires_at)
        .map_or(i64::MAX, |t| t.unix_seconds());
    let deadline = session
        .expires_at
        .unix_seconds()
        .min(now.saturating_add(ttl))
        .min(quote_ends);
    let reference = eip712::session_ref(&session.id);
    let deadline = u64::try_from(deadline)
        .unwrap_or(0)
        .min(until.unwrap_or(u64::MAX));
    let fee_amount = u128::from(session.fee_micros);
    let (contract, name, intent, struct_hash) = match session.session_mode {
        SessionMode::Payment => {
            let intent = PaymentIntent {
                reference,
                token: session.token_address,
                recipient: session.recipient_address,
                net_amount: u128::from(session.net_micros),
                fee_amount,
                deadline,
            };
            let hash = intent.struct_hash();
            (
                contracts.checkout_router,
                eip712::ROUTER_NAME,
                Intent::Payment(intent),
                hash,
            )
        }
        SessionMode::Subscription => {
            let manager = contracts
                .subscription_manager
                .ok_or(HostedError::NotConfigured(
                    "no subscription contract is configured",
                ))?;
            let plan_id = session
                .chain_plan_id
                .as_deref()
                .and_then(|p| p.parse::<u128>().ok())
                .ok_or(HostedError::NotConfigured("the session names no plan"))?;
            let intent = SubscribeIntent {
                plan_id,
                reference,
                fee_amount,
                deadline,
            };
            let hash = intent.struct_hash();
            (
                manager,
                eip712::SUBSCRIPTIONS_NAME,
                Intent::Subscribe(intent),
                hash,
            )
        }
    };
    let domain = Domain {
        name,
        chain_id: session.chain.id(),
        verifying_contract: contract,
    };
    Ok(PreparedIntent {
        session,
        contracts,
        contract,
        intent,
        domain,
        struct_hash,
        key,
    })
}

/// The fast path's answer about one transaction, judged by the session's own records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmVerdict {
    /// The session is paid and complete.
    Confirmed,
    /// This transaction pays the session and is below confirmation depth.
    Pending,
    /// The node does not know the transaction (not mined yet, or a lagging node).
    NotSeen,
}

/// Verifies `tx` at once (the chain watcher settles it anyway) and says where the
/// session stands.
pub async fn confirm_payment(
    id: CheckoutSessionId,
    tx: TxHash,
    deps: &HostedDeps<'_>,
) -> Result<(CheckoutSession, ConfirmVerdict), HostedError> {
    let session = public_session(id, deps).await?;
    if session.status == SessionStatus::Completed {
        return Ok((session, ConfirmVerdict::Confirmed));
    }
    ensure_recipient_verified(&session, deps).await?;
    let outcomes = settle_checkout(session.chain, tx, &deps.settle).await?;
    let fresh = deps.sessions.get_public(id).await?.unwrap_or(session);
    if fresh.status == SessionStatus::Completed {
        return Ok((fresh, ConfirmVerdict::Confirmed));
    }
    // The transaction may pay another session: only this session's record counts.
    let recorded = deps
        .settle
        .store
        .payment_for_session_tx(fresh.chain, tx, fresh.id)
        .await?;
    let verdict = match (recorded.map(|p| p.status), outcomes.first()) {
        (Some(PaymentStatus::Pending), _) => ConfirmVerdict::Pending,
        // A subscribe below depth: nothing is recorded until it is deep (D10).
        (_, _)
            if fresh.session_mode == SessionMode::Subscription
                && outcomes.contains(&SettleOutcome::AwaitingDepth) =>
        {
            ConfirmVerdict::Pending
        }
        // A plain transfer to the session's deposit address, below depth (D24).
        (_, _) if outcomes.contains(&SettleOutcome::DepositPending) => ConfirmVerdict::Pending,
        (_, Some(SettleOutcome::ReceiptUnknown)) => ConfirmVerdict::NotSeen,
        (_, Some(SettleOutcome::Rejected(why))) => {
            return Err(HostedError::DoesNotPay(why.clone()))
        }
        _ => return Err(HostedError::DoesNotPay("it pays another checkout".into())),
    };
    Ok((fresh, verdict))
}

pub(crate) async fn ensure_recipient_verified(
    session: &CheckoutSession,
    deps: &HostedDeps<'_>,
) -> Result<(), HostedError> {
    if recipient_pays(session, deps.wallets).await? {
        Ok(())
    } else {
        Err(HostedError::RecipientRevoked(session.recipient_address))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::eip712::{PaymentIntent, SubscribeIntent};
    use crate::services::fixtures::settlement::{directory, payee, router, session, token, CHAIN};

    fn signed(intent: Intent) -> SignedIntent {
        SignedIntent {
            session: session(),
            contracts: directory().get(CHAIN).cloned().unwrap(),
            contract: router(),
            intent,
            signature: Signature::from_bytes(vec![1; 65]),
        }
    }

    #[test]
    fn a_payment_approves_its_gross_and_a_subscription_a_year_of_periods() {
        let pay = signed(Intent::Payment(PaymentIntent {
            reference: [1; 32],
            token: token(),
            recipient: payee(),
            net_amount: 9_900_000,
            fee_amount: 100_000,
            deadline: 1,
        }));
        assert_eq!(
            pay.allowance(),
            Allowance {
                total: 10_000_000,
                per_period: None
            }
        );
        let sub = signed(Intent::Subscribe(SubscribeIntent {
            plan_id: 1,
            reference: [1; 32],
            fee_amount: 100_000,
            deadline: 1,
        }));
        let period = u128::from(sub.session.amount.micros());
        assert_eq!(
            sub.allowance(),
            Allowance {
                total: period * 12,
                per_period: Some((period, DEFAULT_ALLOWANCE_PERIODS))
            }
        );
    }
}
