//! Whether an on-chain plan can back a subscription checkout of this merchant (spec POST
//! /checkout/sessions rules 1–2, D19), and the terms the session snapshots from it.

use crate::model::{Address, Amount, ValidationErrors};
use crate::ports::OnChainPlan;

/// What the merchant's request says about the plan (optional cross-checks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanCrossChecks {
    pub amount: Option<Amount>,
    pub interval_seconds: Option<u64>,
    pub recipient: Option<Address>,
}

/// The plan terms a subscription session carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanTerms {
    pub plan_id: u128,
    pub amount: Amount,
    pub interval_seconds: u64,
    pub recipient: Address,
    pub token: Address,
}

/// Accepts `plan` when it bills the chain's USDC, pays a verified wallet of the
/// merchant, fits the service's amount type, bills no more often than
/// `min_interval_seconds`, and agrees with every cross-check the request gave. Every
/// disagreement is reported on the field that caused it.
pub fn accept_plan(
    plan: &OnChainPlan,
    usdc: Address,
    verified_wallets: &[Address],
    min_interval_seconds: u64,
    checks: &PlanCrossChecks,
) -> Result<PlanTerms, ValidationErrors> {
    let mut e = ValidationErrors::default();
    let id = plan.plan_id;
    if plan.token != usdc {
        e.push(
            "chain_plan_id",
            format!(
                "plan {id} bills token {}, not this chain's USDC ({usdc})",
                plan.token
            ),
        );
    }
    if !verified_wallets.contains(&plan.recipient) {
        e.push(
            "chain_plan_id",
            format!(
                "plan {id} pays {}, which is not a verified settlement wallet of this account",
                plan.recipient
            ),
        );
    }
    let amount = u64::try_from(plan.amount)
        .ok()
        .and_then(|micros| Amount::from_micros(micros).ok());
    if amount.is_none() {
        e.push(
            "chain_plan_id",
            format!(
                "plan {id} bills {} base units, outside the amounts this service accepts",
                plan.amount
            ),
        );
    }
    if plan.interval_seconds < min_interval_seconds {
        e.push(
            "chain_plan_id",
            format!(
                "plan {id} bills every {} s; the shortest interval accepted is {min_interval_seconds} s",
                plan.interval_seconds
            ),
        );
    }
    if let (Some(asked), Some(actual)) = (checks.amount, amount) {
        if asked != actual {
            e.push(
                "amount",
                format!("is {asked}, but plan {id} bills {actual}"),
            );
        }
    }
    if let Some(asked) = checks.interval_seconds {
        if asked != plan.interval_seconds {
            e.push(
                "interval_seconds",
                format!(
                    "is {asked}, but plan {id} bills every {} s",
                    plan.interval_seconds
                ),
            );
        }
    }
    if let Some(asked) = checks.recipient {
        if asked != plan.recipient {
            e.push(
                "recipient",
                format!("is {asked}, but plan {id} pays {}", plan.recipient),
            );
        }
    }
    e.into_result()?;
    let amount =
        amount.ok_or_else(|| ValidationErrors::single("chain_plan_id", "invalid amount"))?;
    Ok(PlanTerms {
        plan_id: id,
        amount,
        interval_seconds: plan.interval_seconds,
        recipient: plan.recipient,
        token: plan.token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(n: u8) -> Address {
        Address::from_bytes([n; 20])
    }

    fn plan() -> OnChainPlan {
        OnChainPlan {
            plan_id: 7,
            creator: a(9),
            token: a(1),
            recipient: a(2),
            amount: 24_900_000,
            interval_seconds: 30 * 86_400,
        }
    }

    fn fields(e: ValidationErrors) -> Vec<String> {
        e.0.into_iter().map(|f| f.field).collect()
    }

    #[test]
    fn a_usdc_plan_to_a_verified_wallet_is_accepted_with_its_terms() {
        let terms = accept_plan(
            &plan(),
            a(1),
            &[a(3), a(2)],
            86_400,
            &PlanCrossChecks::default(),
        )
        .unwrap();
        assert_eq!(terms.amount, Amount::parse("24.9").unwrap());
        assert_eq!(
            (terms.plan_id, terms.interval_seconds, terms.recipient),
            (7, 30 * 86_400, a(2))
        );
        let checks = PlanCrossChecks {
            amount: Some(Amount::parse("24.90").unwrap()),
            interval_seconds: Some(30 * 86_400),
            recipient: Some(a(2)),
        };
        assert!(accept_plan(&plan(), a(1), &[a(2)], 86_400, &checks).is_ok());
    }

    #[test]
    fn every_disagreement_is_named_on_its_field() {
        let bad = OnChainPlan {
            token: a(5),
            recipient: a(6),
            interval_seconds: 60,
            ..plan()
        };
        let e = accept_plan(&bad, a(1), &[a(2)], 86_400, &PlanCrossChecks::default()).unwrap_err();
        assert_eq!(
            fields(e),
            ["chain_plan_id", "chain_plan_id", "chain_plan_id"]
        );
        let checks = PlanCrossChecks {
            amount: Some(Amount::parse("25").unwrap()),
            interval_seconds: Some(86_400),
            recipient: Some(a(3)),
        };
        let e = accept_plan(&plan(), a(1), &[a(2)], 86_400, &checks).unwrap_err();
        assert_eq!(fields(e), ["amount", "interval_seconds", "recipient"]);
    }

    #[test]
    fn amounts_outside_the_amount_type_are_refused() {
        for amount in [0, u128::from(u64::MAX) + 1, 1_000_000_000_000_001] {
            let e = accept_plan(
                &OnChainPlan { amount, ..plan() },
                a(1),
                &[a(2)],
                1,
                &PlanCrossChecks::default(),
            )
            .unwrap_err();
            assert_eq!(fields(e), ["chain_plan_id"], "{amount}");
        }
    }
}
