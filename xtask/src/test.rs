//! `cargo xtask test`: fmt --check, clippy -D warnings, every test, against a throwaway
//! PostgreSQL, then the contracts' Solidity tests (forge), the API contract fuzz, the
//! walk-through (docs/walkthrough.md) as written and the SDKs (`sdks`).

use crate::chain;
use crate::pg::Postgres;
use crate::tools;
use crate::util::{cargo, root, run as run_cmd};

pub fn run(args: &[String]) -> Result<(), String> {
    // `--no-lint` (first) skips fmt and clippy: for re-running a few tests while working.
    let (lint, extra) = match args.split_first() {
        Some((first, rest)) if first == "--no-lint" => (false, rest),
        _ => (true, args),
    };
    // The tools come from registries (npm, Debian, PyPI): fetched while clippy builds,
    // which keeps both cores busy on its own, rather than one after the other.
    let tools = std::thread::spawn(fetch_tools);
    if lint {
        lint_workspace()?;
    }
    tools
        .join()
        .map_err(|_| "installing the test tools panicked".to_owned())??;
    run_tests(extra)?;
    if extra.is_empty() {
        tools::forge_test()?;
    }
    // The whole suite also fuzzes the API contract, in a bounded number of cases.
    // (Never against a DATABASE_URL server: the fuzzer would write into it.)
    // So does the walk-through, as written, beside the fuzz: it mostly waits for blocks.
    if extra.is_empty() {
        if crate::pg::external_url().is_some() {
            println!(
                "xtask: DATABASE_URL is set, so the contract fuzz, the walk-through and the SDK suites are skipped (cargo xtask fuzz, cargo xtask walkthrough, cargo xtask sdks test)"
            );
            crate::sdks::check()?;
        } else {
            let walkthrough = std::thread::spawn(crate::walkthrough::run);
            // The SDKs (generated files current, packages built, suites against a stack).
            let sdks =
                std::thread::spawn(|| crate::sdks::check().and_then(|()| crate::sdks::test()));
            let cases = std::env::var("STABLEPAY_FUZZ_CASES").unwrap_or_else(|_| "20".into());
            let fuzz = crate::fuzz::run(&["--cases".into(), cases]);
            let walkthrough = walkthrough
                .join()
                .map_err(|_| "the walk-through panicked".to_owned())?;
            let sdks = sdks
                .join()
                .map_err(|_| "the SDK checks panicked".to_owned())?;
            fuzz?;
            walkthrough?;
            sdks?;
        }
    }
    Ok(())
}

/// Every tool the suite installs: anvil, forge and solc, Chromium, Schemathesis, the x402
/// SDK (each call is a no-op once its pinned version is in place).
fn fetch_tools() -> Result<(), String> {
    tools::forge()?;
    tools::anvil()?;
    tools::chromium()?;
    tools::schemathesis()?;
    tools::x402_python()?;
    crate::sdks::node_modules()?;
    crate::sdks::python_tools()?;
    Ok(())
}

fn lint_workspace() -> Result<(), String> {
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
    ]))
}

fn run_tests(extra: &[String]) -> Result<(), String> {
    let anvil = tools::anvil()?;
    tools::chromium()?;
    let x402_python = tools::x402_python()?;
    let pg = Postgres::provision("test")?;
    let chains = [chain::start(&anvil, 84532)?, chain::start(&anvil, 8453)?];
    // Tests that need a chain of their own (reorgs, a paused node) start anvil with the
    // test chain's deployed state: same contracts at the same addresses.
    std::fs::create_dir_all(root().join("target/test")).map_err(|e| e.to_string())?;
    let mut states = serde_json::Map::new();
    for c in &chains {
        let path = root().join(format!("target/test/anvil-state-{}.hex", c.chain_id));
        let state = chain::rpc(&c.rpc_url, "anvil_dumpState", serde_json::json!([]))?;
        std::fs::write(&path, state.as_str().unwrap_or_default()).map_err(|e| e.to_string())?;
        states.insert(format!("state_{}", c.chain_id), serde_json::json!(path));
    }
    // Tests that need a chain find it here.
    let mut env = serde_json::json!({
        "anvil": anvil,
        // The official x402 SDK's Python (agents pay sessions with it).
        "x402_python": x402_python,
        "chains": chains.iter().map(|c| (c.chain_id.to_string(), c.to_json())).collect::<serde_json::Map<_, _>>(),
        "operator_private_key": chain::key(chain::OPERATOR),
        "keeper_private_key": chain::key(chain::KEEPER),
        "buyers": chain::BUYERS.iter().map(|i| serde_json::json!({ "address": chain::address(*i), "private_key": chain::key(*i) })).collect::<Vec<_>>(),
    });
    if let Some(map) = env.as_object_mut() {
        map.extend(states);
    }
    let env_path = root().join("target/test/chains.json");
    std::fs::write(
        &env_path,
        serde_json::to_string_pretty(&env).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    // The end-to-end tests run the api and worker binaries as separate processes: the
    // test build itself builds them (their packages have integration tests), with the
    // same features as every test. A separate `cargo build -p …` unified dependency
    // features differently and compiled ethers, tokio and the rest a second time.
    run_cmd(cargo().args(crate::dev::TEST_BUILD))?;
    let env = [
        ("DATABASE_URL", pg.url.clone()),
        ("STABLEPAY_TEST_CHAINS", env_path.display().to_string()),
    ];
    let result = if extra.is_empty() {
        // The whole suite: its binaries a few at a time, then the doc tests (also when a
        // binary failed, so one run reports every failure).
        let binaries = crate::test_binaries::run(&env);
        println!("xtask: cargo test --doc");
        let doc = run_cmd(
            cargo()
                .args(["test", "--workspace", "--all-features", "--doc"])
                .envs(env.iter().map(|(k, v)| (*k, v.as_str()))),
        );
        match (binaries, doc) {
            (Ok(()), Ok(())) => Ok(()),
            (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
            (Err(a), Err(b)) => Err(format!("{a}; {b}")),
        }
    } else {
        println!("xtask: cargo test");
        run_cmd(
            cargo()
                // Every failing test binary is reported, not only the first.
                .args(["test", "--workspace", "--all-features", "--no-fail-fast"])
                .args(extra)
                .envs(env.iter().map(|(k, v)| (*k, v.as_str()))),
        )
    };
    drop(chains);
    drop(pg);
    result
}
