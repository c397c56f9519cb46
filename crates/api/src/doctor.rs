//! `stablepay-api doctor` (D27): every check of the configuration against each chain
//! (`stablepay_evm::doctor`, the same checks `serve` and the worker run at start) and,
//! with `DATABASE_URL`, that every migration is applied. One line per check; exit 1
//! naming the variable of the first check that did not pass (a mismatch, a balance under
//! its floor, or a chain or database that did not answer).

use stablepay_config::{ChainEnv, KeyRole, ScreeningEnv};
use stablepay_domain::ports::{Clock, SystemClock};
use stablepay_domain::rules::relay_budget::{self, RevertBudget};
use stablepay_domain::ChainId;
use stablepay_evm::doctor::{check_chain, expectations, Check, Verdict};

pub async fn run() -> Result<(), String> {
    let operator = ChainEnv::from_env(KeyRole::Operator).map_err(|e| e.to_string())?;
    // The worker's key, read the worker's way: the doctor checks both processes' keys.
    let keeper = ChainEnv::from_env(KeyRole::Keeper)
        .map_err(|e| e.to_string())?
        .signing_key;
    let evm = stablepay_evm::EvmChain::from_env(&operator)?;
    let chains = expectations(&operator, operator.signing_key.as_ref(), keeper.as_ref())?;
    let mut checks: Vec<Check> = Vec::new();
    if chains.is_empty() {
        checks.push(Check {
            variable: "STABLEPAY_RPC_URL_<chain>".into(),
            verdict: Verdict::Mismatch(
                "no chain has both an RPC URL and a checkout router configured".into(),
            ),
        });
    }
    for want in &chains {
        checks.extend(check_chain(&evm, want).await);
    }
    let screening = ScreeningEnv::from_env().map_err(|e| e.to_string())?;
    checks.extend(screening_checks(&evm, &screening).await);
    if let Some(url) = stablepay_config::optional("DATABASE_URL") {
        checks.extend(screening_lists(&url, &screening).await);
        let verdict = match stablepay_postgres::pending_migrations(&url).await {
            Ok(pending) if pending.is_empty() => Verdict::Ok("every migration is applied".into()),
            Ok(pending) => Verdict::Mismatch(format!(
                "{} migrations are not applied ({}): run `stablepay-api migrate`",
                pending.len(),
                pending.join(", ")
            )),
            // The error names no URL: only what failed.
            Err(e) => Verdict::Unknown(e),
        };
        checks.push(Check {
            variable: "DATABASE_URL".into(),
            verdict,
        });
        for want in &chains {
            checks.push(reconcile_line(&url, want.contracts.chain).await);
        }
        if let Some(relayer) = &operator.relayer {
            for want in &chains {
                checks
                    .push(revert_budget(&url, want.contracts.chain, &relayer.revert_budget).await);
            }
        }
    }
    for c in &checks {
        println!("{c}");
    }
    match checks.iter().find(|c| !matches!(c.verdict, Verdict::Ok(_))) {
        None => {
            println!("all {} checks passed", checks.len());
            Ok(())
        }
        Some(first) => Err(format!("{} did not pass: {first}", first.variable)),
    }
}

/// D30: the relayer's gas lost to reverts over the last hour on `chain`, against its
/// budget; `PAUSED` while it is over (the hosted page offers the other ways to pay).
async fn revert_budget(url: &str, chain: ChainId, budget: &RevertBudget) -> Check {
    let since = SystemClock.now().plus_seconds(-relay_budget::WINDOW_SECS);
    let verdict = match stablepay_postgres::relay_gas_at(url, chain, since).await {
        Ok(gas) => match budget.judge(gas) {
            Some(pause) => Verdict::Paused(format!(
                "relaying is paused on chain {}: {pause}",
                chain.id()
            )),
            None => Verdict::Ok(format!(
                "chain {}: relays that reverted used {} of the relayer's {} gas in the last hour (pauses over {} % once at least {} gas)",
                chain.id(),
                gas.reverted,
                gas.spent,
                budget.percent(),
                budget.min_gas()
            )),
        },
        Err(e) => Verdict::Unknown(e),
    };
    Check {
        variable: "STABLEPAY_RELAYER_REVERT_BUDGET_PERCENT".into(),
        verdict,
    }
}

/// D32: what the worker's latest scheduled reconcile found on `chain`. Differences fail the
/// doctor: the books and the chain disagree and someone must look.
async fn reconcile_line(url: &str, chain: ChainId) -> Check {
    let verdict = match stablepay_postgres::latest_reconcile_at(url, chain).await {
        Ok(None) => Verdict::Ok(format!(
            "chain {}: no scheduled reconcile has run yet (every STABLEPAY_RECONCILE_INTERVAL)",
            chain.id()
        )),
        Ok(Some((from, to, 0, at))) => Verdict::Ok(format!(
            "chain {}: the ledger equals the chain in blocks {from}..={to} (reconciled {at})",
            chain.id()
        )),
        Ok(Some((from, to, n, at))) => Verdict::Mismatch(format!(
            "chain {}: {n} differences between the ledger and the chain in blocks {from}..={to} (reconciled {at}); run `stablepay-api reconcile --chain-id {} --from-block {from} --to-block {to}` to list them",
            chain.id(),
            chain.id()
        )),
        Err(e) => Verdict::Unknown(e),
    };
    Check {
        variable: "STABLEPAY_RECONCILE_INTERVAL".into(),
        verdict,
    }
}

/// D33: which sources screen payers, in which modes, and that each oracle answers.
async fn screening_checks(evm: &stablepay_evm::EvmChain, env: &ScreeningEnv) -> Vec<Check> {
    let named = |m: stablepay_domain::rules::screening::ScreenedModes| -> Vec<&str> {
        [(m.test, "test"), (m.live, "live")]
            .into_iter()
            .filter_map(|(on, m)| on.then_some(m))
            .collect()
    };
    let modes = named(env.modes);
    let required = named(env.required);
    let summary = if env.oracles.is_empty() && env.lists.is_empty() {
        "no source is configured: payers are not screened".to_owned()
    } else {
        format!(
            "payers in {} mode are screened against {}",
            if modes.is_empty() {
                "no".to_owned()
            } else {
                modes.join(" and ")
            },
            [
                (!env.oracles.is_empty()).then(|| {
                    let chains: Vec<String> = env
                        .oracles
                        .iter()
                        .map(|(c, _)| c.id().to_string())
                        .collect();
                    format!("the sanctions oracle (chains {})", chains.join(", "))
                }),
                (!env.lists.is_empty()).then(|| format!("the lists {}", env.lists.join(", "))),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" and ")
        ) + &format!(
            " by default; required (no merchant can turn it off) in {} mode",
            if required.is_empty() {
                "no".to_owned()
            } else {
                required.join(" and ")
            }
        )
    };
    let mut checks = vec![Check {
        variable: "STABLEPAY_SCREENING_MODES".into(),
        verdict: Verdict::Ok(summary),
    }];
    for (chain, oracle) in &env.oracles {
        let probe = stablepay_domain::Address::from_bytes([0; 20]);
        let verdict = match evm.is_sanctioned(*chain, *oracle, probe).await {
            Ok(_) => Verdict::Ok(format!("chain {}: the sanctions oracle at {oracle} answers isSanctioned", chain.id())),
            Err(stablepay_domain::ports::ChainError::Unavailable(e)) if e.contains("no boolean") => {
                Verdict::Mismatch(format!("chain {}: {oracle} does not answer isSanctioned(address) with a boolean: no sanctions oracle there", chain.id()))
            }
            Err(e) => Verdict::Unknown(format!("chain {}: {e}", chain.id())),
        };
        checks.push(Check {
            variable: format!("STABLEPAY_SANCTIONS_ORACLE_{}", chain.id()),
            verdict,
        });
    }
    checks
}

/// D33: every list screening reads is imported (a list never imported answers unknown,
/// which refuses every payer it screens).
async fn screening_lists(url: &str, env: &ScreeningEnv) -> Vec<Check> {
    if env.lists.is_empty() {
        return Vec::new();
    }
    let imported = stablepay_postgres::imported_lists_at(url).await;
    env.lists
        .iter()
        .map(|name| {
            let verdict = match &imported {
                Err(e) => Verdict::Unknown(e.clone()),
                Ok(lists) => match lists.iter().find(|l| &l.name == name) {
                    Some(l) => Verdict::Ok(format!(
                        "list {name}: version {} of {} addresses, imported {}",
                        l.version,
                        l.entries,
                        l.imported_at.as_datetime().format("%Y-%m-%d %H:%M UTC")
                    )),
                    None => Verdict::Mismatch(format!(
                        "list {name} was never imported: run `stablepay-api screening import FILE --source {name}`"
                    )),
                },
            };
            Check {
                variable: "STABLEPAY_SCREENING_LISTS".into(),
                verdict,
            }
        })
        .collect()
}
