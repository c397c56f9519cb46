//! `cargo xtask dev` runs the whole service locally; `cargo xtask test` runs every check.
//! Both provision a throwaway PostgreSQL cluster under `target/` when `DATABASE_URL` is
//! unset.

mod bench;
mod bench_api;
mod bench_api_report;
mod bench_billing;
mod bench_export;
mod bench_fairness;
mod bench_gas;
mod bench_latency;
mod bench_lists;
mod bench_pgbench;
mod bench_receiver;
mod bench_settlement;
mod bench_settlement_sessions;
mod bench_sign_in;
mod bench_soak;
mod bench_watching;
mod bench_x402;
mod chain;
mod cpu;
mod dev;
mod docs_check;
mod fuzz;
mod load;
mod pg;
mod sdks;
mod seed;
mod sign;
mod test;
mod test_binaries;
mod tools;
mod util;
mod walkthrough;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  dev     start PostgreSQL (throwaway) and two anvil chains (84532, 8453) with the
          contracts deployed, migrate, seed two demo merchants, run api + worker;
          writes target/dev/env.json; Ctrl-C stops everything
  test    start PostgreSQL (throwaway) and the anvil chains, then cargo fmt --check,
          clippy -D warnings, and
          every test of the workspace (extra arguments go to cargo test)
  bench   webhooks: deliveries/s and commit-to-receipt latency (release build;
          BENCH_DELIVERIES, BENCH_WORKERS tune it); fairness beside a slow endpoint
          with a 50,000 backlog; API-driven latency
          at 500/s with autovacuum off (BENCH_LATENCY_SECS, default 120);
          BENCH_ONLY=throughput|fairness|latency runs one part
          settlement: router payments settled by the chain watcher: latency and
          payments verified per minute (BENCH_PAYMENTS tunes it); --relayed: one
          signature each, sent by the relayer (default 1,000 payments); --deposits:
          transfers to deposit addresses, then their sweeps; --x402: agents paying
          sessions over x402 through the api (BENCH_CONCURRENCY agents, default 64):
          request-to-200 latency, payments per minute, each settled exactly once
          soak: 100,000 deliveries while a worker is SIGKILLed every 3 s: lost/duplicates
          billing: subscription charges per minute
          gas: gasUsed of transfer, approve, pay and one-signature payWithAuthorization
          on a fresh dev chain against DESIGN §10's bars (fails over a bar)
          api: POST/GET checkout sessions vs pgbench on the same PostgreSQL in paired
          rounds, api and pgbench back to back (STABLEPAY_BENCH_ROUNDS, 3), the median
          held to the bars, then held at 40 %/60 % of it; CPU per request of the api,
          PostgreSQL and the load generator; idle RSS; every list over 1M+ rows
          (STABLEPAY_BENCH_SKIP_LISTS=1 skips the lists)
          lists: the list half of api alone
          export: the ledger export of 1M entries: first and last byte, the api's
          RSS growth (bar < 50 MiB), the net column summed back against SQL
          sign-in: GET p50/p99 of a checkout session alone and beside 50 dashboard
          sign-ins at once (argon2id off the request threads; bar p99 < 50 ms)
          (every bench: STABLEPAY_PG_OPTIONS='-c name=value ...' adds PostgreSQL
          options for profiling; the server log stays in target/<name>/pg)
  fuzz    Schemathesis (PyPI, into target/tools) runs the served OpenAPI document
          against a throwaway stack in every phase, stateful links included, with a
          test key and a live key; --cases N per operation (default 200), --seed S;
          fails on any 5xx or response outside the document. `test` runs it with
          STABLEPAY_FUZZ_CASES (default 20) when given no test filter
  walkthrough  run docs/walkthrough.md's sh blocks as written against a throwaway stack
          and check what each step prints (`test` runs it beside the fuzz)
  sdks    regenerate the SDKs' generated parts (sdks/typescript, sdks/python) from
          docs/openapi.json; --check: fail when the committed ones differ (`test` runs
          it); test: build both packages and run their suites against a stack of their own
  contracts  compile contracts/src with solc (npm) into contracts/out (committed)
  contracts test  the Solidity tests in contracts/test (forge from npm; also part of `test`)
  contracts snapshot  refresh contracts/gas-snapshot (forge's gas of the unit tests; `bench
          gas` compares a run with it)
  sign    --key 0x<private key>: EIP-191-sign stdin (to verify a wallet from a shell);
          --typed-data --key 0x…: sign the ReceiveWithAuthorization on stdin (a one-signature payment)
";

fn main() -> ExitCode {
    forget_cargo_run_env();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("dev") => dev::run(),
        Some("test") => test::run(&args[1..]),
        Some("sign") => sign::run(&args[1..]),
        Some("bench") => match args.get(1).map(String::as_str) {
            Some("settlement") => bench_settlement::run(&args[2..]),
            Some("gas") => bench_gas::run(&args[2..]),
            Some("billing") => bench_billing::run(&args[2..]),
            Some("soak") => bench_soak::run(&args[2..]),
            Some("api") => bench_api::run(&args[2..]),
            Some("lists") => bench_api::run_lists(&args[2..]),
            Some("export") => bench_export::run(&args[2..]),
            Some("sign-in") => bench_sign_in::run(&args[2..]),
            _ => bench::run(&args[1..]),
        },
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("walkthrough") => walkthrough::run(),
        Some("sdks") => sdks::run(&args[1..]),
        Some("contracts") => match args.get(1).map(String::as_str) {
            Some("test") => tools::forge_test(),
            Some("snapshot") => tools::forge_snapshot(true).map(|done| println!("xtask: {done}")),
            _ => tools::compile_contracts(),
        },
        Some("-h" | "--help" | "help") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo xtask` is `cargo run`, which gives this process xtask's package variables
/// (`CARGO_MANIFEST_DIR`, `CARGO_PKG_NAME`, …). Build scripts such as ring's rerun when
/// those change, so every cargo started from here with them set rebuilt ring and all above
/// it (about 90 s), and the next plain `cargo` rebuilt it back. Children (cargo, and the
/// walk-through's `cargo xtask sign`) get the environment a shell has.
fn forget_cargo_run_env() {
    let set_by_cargo_run: Vec<String> = std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| {
            k.starts_with("CARGO_PKG_")
                || k.starts_with("CARGO_MANIFEST_")
                || matches!(
                    k.as_str(),
                    "CARGO_PRIMARY_PACKAGE" | "CARGO_BIN_NAME" | "CARGO_CRATE_NAME"
                )
        })
        .collect();
    for k in set_by_cargo_run {
        std::env::remove_var(k);
    }
}
