//! `cargo xtask test`: fmt --check, clippy -D warnings, every test, against a throwaway
//! PostgreSQL.

use crate::chain;
use crate::pg::Postgres;
use crate::tools;
use crate::util::{cargo, root, run as run_cmd};

pub fn run(extra: &[String]) -> Result<(), String> {
    println!("xtask: cargo fmt --check");
    run_cmd(cargo().args(["fmt", "--all", "--", "--check"]))?;
    println!("xtask: cargo clippy -D warnings");
    run_cmd(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--all-features",
        "--",
        "-D",
        "warnings",
    ]))?;
    let anvil = tools::anvil()?;
    let pg = Postgres::provision("test")?;
    let chains = [chain::start(&anvil, 84532)?, chain::start(&anvil, 8453)?];
    // Tests that need a chain find it here.
    let env = serde_json::json!({
        "chains": chains.iter().map(|c| (c.chain_id.to_string(), c.to_json())).collect::<serde_json::Map<_, _>>(),
        "operator_private_key": chain::key(chain::OPERATOR),
        "keeper_private_key": chain::key(chain::KEEPER),
        "buyers": chain::BUYERS.iter().map(|i| serde_json::json!({ "address": chain::address(*i), "private_key": chain::key(*i) })).collect::<Vec<_>>(),
    });
    let env_path = root().join("target/test/chains.json");
    std::fs::create_dir_all(root().join("target/test")).map_err(|e| e.to_string())?;
    std::fs::write(
        &env_path,
        serde_json::to_string_pretty(&env).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    // The end-to-end tests run these binaries as separate processes.
    run_cmd(cargo().args(["build", "-p", "stablepay-api", "-p", "stablepay-worker"]))?;
    println!("xtask: cargo test");
    let result = run_cmd(
        cargo()
            .args(["test", "--workspace", "--all-features"])
            .args(extra)
            .env("DATABASE_URL", &pg.url)
            .env("STABLEPAY_TEST_CHAINS", &env_path),
    );
    drop(chains);
    drop(pg);
    result
}
