//! Subscription-mode sessions (spec POST /checkout/sessions rules 1–2): the plan is read
//! from the chain before anything is written, then checked against the merchant's verified wallets, the chain's USDC,
//! the amount type, the minimum interval and every cross-check, then registered.

use super::{CreateSessionDeps, CreateSessionError, PrepareSessionDeps};
use crate::model::{
    Address, Amount, ChainId, ChainPlanId, Currency, SessionOwner, ValidationErrors,
};
use crate::ports::{ChainError, OnChainPlan, RegisteredPlan};
use crate::rules::plans::{accept_plan, PlanCrossChecks, PlanTerms};

/// What the request asked for, beside the plan's own terms.
pub(super) struct AskedTerms {
    pub amount: Option<Amount>,
    pub interval_seconds: Option<u64>,
    pub recipient: Option<Address>,
}

/// The plan as read from the chain, with where it was read.
#[derive(Debug, Clone)]
pub(super) struct PlanRead {
    manager: Address,
    usdc: Address,
    plan: OnChainPlan,
}

impl PlanRead {
    /// The plan's amount per period, in token base units.
    pub(super) fn amount(&self) -> u128 {
        self.plan.amount
    }
}

/// Reads the plan the request names from the chain's subscription manager.
pub(super) async fn read_plan(
    chain: ChainId,
    plan_id: ChainPlanId,
    currency: Currency,
    deps: &PrepareSessionDeps<'_>,
) -> Result<PlanRead, CreateSessionError> {
    if currency != Currency::Usdc {
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
    let id = plan_id.get();
    let plan = deps
        .chain
        .subscription_plan(chain, manager, id)
        .await
        .map_err(|e| match e {
            ChainError::NotConfigured(_) | ChainError::Unavailable(_) => {
                CreateSessionError::ChainUnavailable(e.to_string())
            }
        })?
        .ok_or_else(|| {
            ValidationErrors::single(
                "chain_plan_id",
                format!("no plan {id} exists on the subscription contract {manager}"),
            )
        })?;
    Ok(PlanRead {
        manager,
        usdc,
        plan,
    })
}

/// The plan checked against the merchant's verified wallets, the chain's USDC, the
/// amount type, the minimum interval and every cross-check, then registered.
pub(super) async fn subscription_terms(
    owner: &SessionOwner,
    chain: ChainId,
    req: AskedTerms,
    read: PlanRead,
    deps: &CreateSessionDeps<'_>,
) -> Result<PlanTerms, CreateSessionError> {
    let verified: Vec<_> = deps
        .wallets
        .verified(owner.merchant_id)
        .await?
        .into_iter()
        .map(|w| w.address)
        .collect();
    let checks = PlanCrossChecks {
        amount: req.amount,
        interval_seconds: req.interval_seconds,
        recipient: req.recipient,
    };
    let terms = accept_plan(
        &read.plan,
        read.usdc,
        &verified,
        deps.plan_min_interval_secs,
        &checks,
    )?;
    deps.subscriptions
        .register_plan(&RegisteredPlan {
            merchant_id: owner.merchant_id,
            chain,
            manager: read.manager,
            terms: terms.clone(),
            created_at: deps.clock.now(),
        })
        .await?;
    Ok(terms)
}
