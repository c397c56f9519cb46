//! `stablepay-api doctor` (D27): every check of the configuration against each chain
//! (`stablepay_evm::doctor`, the same checks `serve` and the worker run at start) and,
//! with `DATABASE_URL`, that every migration is applied. One line per check; exit 1
//! naming the variable of the first check that did not pass (a mismatch, a balance under
//! its floor, or a chain or database that did not answer).

use stablepay_config::{ChainEnv, KeyRole};
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
    if let Some(url) = stablepay_config::optional("DATABASE_URL") {
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
