//! The x402 facilitator for merchants (D29): a merchant's own x402 resource server asks
//! `/verify` and `/settle` about payments to its sessions' deposit addresses, with its API
//! key. Only deposit addresses of the key's own open sessions, at their gross: the
//! service's gas never pays an arbitrary `payTo`. Invalid payments are answers
//! (`isValid: false` / `success: false` with a reason), never errors.

use crate::model::{Address, AuthContext, CheckoutSession, ScreeningPath};
use crate::ports::PaymentRelayer;
use crate::rules::x402::{self, FacilitatorRequest, Requirements, SettleResponse, VerifyResponse};
use crate::services::{pay_by_x402, verify_payment, x402_offer, X402Deps, X402Error, X402Offer};

/// What `/supported` lists: the exact scheme on the key's chain, sent by the relayer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Supported {
    pub network: String,
    pub signer: Option<Address>,
}

pub fn x402_supported(ctx: &AuthContext, relayer: Option<&dyn PaymentRelayer>) -> Supported {
    Supported {
        network: x402::network(ctx.mode.chain()),
        signer: relayer.map(|r| r.signer()),
    }
}

/// `/verify`: whether `payment` would settle `requirements` now, and whose it is.
pub async fn x402_verify(
    ctx: &AuthContext,
    request: &FacilitatorRequest,
    deps: &X402Deps<'_>,
) -> Result<VerifyResponse, X402Error> {
    let offer = match own_session(ctx, request, deps).await? {
        Ok(session) => match offer_on_terms(session, request, deps).await? {
            Ok(offer) => offer,
            Err(reason) => return Ok(invalid(reason)),
        },
        Err(reason) => return Ok(invalid(reason)),
    };
    match verify_payment(
        &offer,
        &request.payment_payload,
        ScreeningPath::Facilitator,
        deps,
    )
    .await
    {
        Ok((_, transfer, _)) => Ok(VerifyResponse {
            is_valid: true,
            invalid_reason: None,
            payer: Some(transfer.authorization.from.to_string()),
        }),
        Err(X402Error::Refused(r)) => Ok(invalid(r.reason)),
        Err(e) => Err(e),
    }
}

/// `/settle`: verifies, then settles exactly as `GET /x402/:id` does (one relay per
/// session, the wait for inclusion, D24's booking). A payment already relayed is followed
/// to its end whatever the session's state now, so a retry after `settlement_pending`
/// (which names the transaction) learns how it ended.
pub async fn x402_settle(
    ctx: &AuthContext,
    request: &FacilitatorRequest,
    deps: &X402Deps<'_>,
) -> Result<SettleResponse, X402Error> {
    let network = x402::network(ctx.mode.chain());
    let failed = |reason: &str, tx: Option<String>| SettleResponse {
        success: false,
        error_reason: Some(reason.to_owned()),
        payer: None,
        transaction: tx.unwrap_or_default(),
        network: network.clone(),
    };
    let session = match own_session(ctx, request, deps).await? {
        Ok(session) => session,
        Err(reason) => return Ok(failed(reason, None)),
    };
    let relayed = match deps.relayer {
        Some(relayer) => relayer
            .relayed_authorization(session.id)
            .await
            .map_err(crate::services::HostedError::from)?,
        None => None,
    };
    if relayed.is_none() {
        if let Err(reason) = offer_on_terms(session.clone(), request, deps).await? {
            return Ok(failed(reason, None));
        }
    }
    match pay_by_x402(
        session.id,
        &request.payment_payload,
        ScreeningPath::Facilitator,
        deps,
    )
    .await
    {
        Ok(paid) => Ok(SettleResponse {
            success: true,
            error_reason: None,
            payer: Some(paid.payer.to_string()),
            transaction: paid.tx.to_string(),
            network,
        }),
        Err(X402Error::Refused(r)) => Ok(failed(r.reason, r.transaction.map(|t| t.to_string()))),
        Err(e) => Err(e),
    }
}

/// The key's own session at the requirements' `payTo` (this merchant, this mode, on the
/// key's network), or why not.
async fn own_session(
    ctx: &AuthContext,
    request: &FacilitatorRequest,
    deps: &X402Deps<'_>,
) -> Result<Result<CheckoutSession, &'static str>, X402Error> {
    if request.x402_version != x402::VERSION {
        return Ok(Err("invalid_x402_version"));
    }
    let requirements = &request.payment_requirements;
    let chain = ctx.mode.chain();
    if requirements.network != x402::network(chain) {
        return Ok(Err("network_mismatch"));
    }
    let Ok(pay_to) = Address::parse(&requirements.pay_to.to_lowercase()) else {
        return Ok(Err("invalid_payload"));
    };
    let session = deps
        .hosted
        .settle
        .deposits
        .session_by_deposit_address(chain, pay_to)
        .await
        .map_err(crate::services::HostedError::from)?;
    // Another merchant's (or mode's) address is as unknown as no address at all.
    Ok(session
        .filter(|s| s.merchant_id == ctx.merchant_id && s.mode == ctx.mode)
        .ok_or(RECIPIENT_MISMATCH))
}

/// What the session asks now, if the merchant's requirements are exactly that.
async fn offer_on_terms(
    session: CheckoutSession,
    request: &FacilitatorRequest,
    deps: &X402Deps<'_>,
) -> Result<Result<X402Offer, &'static str>, X402Error> {
    let offer = match x402_offer(session.id, deps).await {
        // An invalid payment is an answer, never an error, for the SDKs (D29).
        Err(crate::services::HostedError::RecipientRevoked(_)) => {
            return Ok(Err("recipient_revoked"))
        }
        other => other?,
    };
    match offer {
        Ok(offer) if same_terms(&offer.requirements, &request.payment_requirements) => {
            Ok(Ok(offer))
        }
        Ok(_) => Ok(Err(
            "invalid_exact_evm_payload_authorization_value_mismatch",
        )),
        Err((why, _)) => Ok(Err(why.reason())),
    }
}

const RECIPIENT_MISMATCH: &str = "invalid_exact_evm_payload_recipient_mismatch";

/// What the merchant's server asks for is what the session asks for: the same scheme,
/// amount (its gross), asset and address. The timeout is the server's own business.
fn same_terms(asked: &Requirements, given: &Requirements) -> bool {
    let address = |s: &str| Address::parse(&s.to_lowercase()).ok();
    given.scheme == asked.scheme
        && given.amount == asked.amount
        && address(&given.asset) == address(&asked.asset)
        && address(&given.pay_to) == address(&asked.pay_to)
}

fn invalid(reason: &str) -> VerifyResponse {
    VerifyResponse {
        is_valid: false,
        invalid_reason: Some(reason.to_owned()),
        payer: None,
    }
}
