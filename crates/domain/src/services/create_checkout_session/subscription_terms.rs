//! Subscription-mode sessions (spec POST /checkout/sessions rules 1–2): the plan is read
//! from the chain, checked against the merchant's verified wallets, the chain's USDC,
//! the amount type, the minimum interval and every cross-check, then registered.

use super::{CreateSessionDeps, CreateSessionError, NewSessionRequest};
use crate::model::{AuthContext, ChainId, Currency, ValidationErrors};
use crate::ports::{ChainError, RegisteredPlan};
use crate::rules::plans::{accept_plan, PlanCrossChecks, PlanTerms};

/// A plan id: a decimal number that fits uint256's lower 128 bits (plan counters never
/// get near that).
fn parse_plan_id(raw: Option<&str>) -> Result<u128, ValidationErrors> {
    let Some(raw) = raw else {
        return Err(ValidationErrors::single(
            "chain_plan_id",
            "is required in subscription mode",
        ));
    };
    let digits = raw.trim();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ValidationErrors::single(
            "chain_plan_id",
            "must be a decimal plan id",
        ));
    }
    match digits.parse::<u128>() {
        Ok(0) | Err(_) => Err(ValidationErrors::single(
            "chain_plan_id",
            format!("{digits} is not a plan id"),
        )),
        Ok(id) => Ok(id),
    }
}

pub(super) async fn subscription_terms(
    ctx: &AuthContext,
    chain: ChainId,
    req: &NewSessionRequest,
    deps: &CreateSessionDeps<'_>,
) -> Result<PlanTerms, CreateSessionError> {
    let plan_id = parse_plan_id(req.chain_plan_id.as_deref())?;
    if req.currency != Currency::Usdc {
        return Err(
            ValidationErrors::single("currency", "subscriptions settle in USDC only").into(),
        );
    }
    let (Some(manager), Some(usdc)) = (
        deps.chains.get(chain).and_then(|c| c.subscription_manager),
        deps.tokens.token(chain, Currency::Usdc),
    ) else {
        return Err(ValidationErrors::single(
            "mode",
            format!(
                "subscriptions are not set up on {} ({})",
                chain.name(),
                chain.id()
            ),
        )
        .into());
    };
    let plan = deps
        .chain
        .subscription_plan(chain, manager, plan_id)
        .await
        .map_err(|e| match e {
            ChainError::NotConfigured(_) | ChainError::Unavailable(_) => {
                CreateSessionError::ChainUnavailable(e.to_string())
            }
        })?
        .ok_or_else(|| {
            ValidationErrors::single(
                "chain_plan_id",
                format!("no plan {plan_id} exists on the subscription contract {manager}"),
            )
        })?;
    let verified: Vec<_> = deps
        .wallets
        .verified(ctx.merchant_id)
        .await?
        .into_iter()
        .map(|w| w.address)
        .collect();
    let checks = PlanCrossChecks {
        amount: req.amount,
        interval_seconds: req.interval_seconds,
        recipient: req.recipient,
    };
    let terms = accept_plan(&plan, usdc, &verified, deps.plan_min_interval_secs, &checks)?;
    deps.subscriptions
        .register_plan(&RegisteredPlan {
            merchant_id: ctx.merchant_id,
            chain,
            manager,
            terms: terms.clone(),
            created_at: deps.clock.now(),
        })
        .await?;
    Ok(terms)
}
