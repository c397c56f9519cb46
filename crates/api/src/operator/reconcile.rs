//! `stablepay-api reconcile --chain-id N [--from-block A] [--to-block B]` (D32): compares
//! the ledger with the chain for a block range through the domain's `reconcile_ledger`,
//! prints every difference on stdout, and fails (exit 1) on any, or when a transaction
//! could not be verified (the node gave no answer: a re-run decides).

use std::io::Write;
use std::sync::Arc;

use stablepay_config::{ChainEnv, KeyRole};
use stablepay_domain::ports::SystemClock;
use stablepay_domain::services::{
    reconcile_ledger, reconcile_range, SettleDeps, RECONCILE_DEFAULT_BLOCKS,
};
use stablepay_domain::ChainId;

#[derive(clap::Args)]
pub struct ReconcileArgs {
    /// The chain to compare (e.g. 8453 for Base).
    #[arg(long)]
    chain_id: u64,
    /// First block (default: a day of Base blocks before --to-block).
    #[arg(long)]
    from_block: Option<u64>,
    /// Last block (default, and at most: the deepest block at confirmation depth).
    #[arg(long)]
    to_block: Option<u64>,
}

pub async fn reconcile(args: ReconcileArgs) -> Result<(), String> {
    let chain = ChainId::from_id(args.chain_id)
        .ok_or_else(|| format!("--chain-id: chain {} is not supported", args.chain_id))?;
    let env = ChainEnv::from_env(KeyRole::Operator).map_err(|e| e.to_string())?;
    let reader = Arc::new(stablepay_evm::EvmChain::from_env(&env)?);
    let store = super::admin_store().await?;
    let clock = SystemClock;
    let deps = SettleDeps {
        chain: reader.as_ref(),
        store: &store,
        deposits: &store,
        subscriptions: &store,
        clock: &clock,
        chains: &env.contracts,
        tokens: &env.tokens,
        // Reconciling books what the chain holds; screening of those payers is the
        // watcher's path (D33), not re-run here.
        screening: &stablepay_domain::services::NO_SCREENING,
        screening_log: &store,
    };
    let (from, to) = reconcile_range(
        chain,
        args.from_block,
        args.to_block,
        RECONCILE_DEFAULT_BLOCKS,
        &deps,
    )
    .await
    .map_err(|e| e.to_string())?;
    let report = reconcile_ledger(chain, from, to, &deps, &store)
        .await
        .map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    for difference in &report.differences {
        let _ = writeln!(out, "{difference}");
    }
    for (tx, why) in &report.unverified {
        let _ = writeln!(out, "unverified: {tx}: {why}");
    }
    let _ = writeln!(
        out,
        "chain {} blocks {from}..={to}: {} transactions, {} differences, {} unverified",
        chain.id(),
        report.transactions,
        report.differences.len(),
        report.unverified.len()
    );
    match (report.differences.len(), report.unverified.len()) {
        (0, 0) => Ok(()),
        (0, n) => Err(format!(
            "{n} transactions could not be verified; run it again"
        )),
        (n, _) => Err(format!("{n} differences between the ledger and the chain")),
    }
}
