//! `cargo xtask fuzz`: Schemathesis runs the served OpenAPI document against a throwaway
//! stack (the one `dev` starts), in every phase (examples, coverage, fuzzing, and stateful
//! runs along the document's links), with a test key and then a live key. The checks
//! (`xtask/schemathesis.toml`): a server error, a status the document does not list, a
//! body, header or content type that breaks the document, or invalid input accepted,
//! fails the run.

use std::process::Command;

use crate::dev::{self, StackOptions};
use crate::tools;
use crate::util::{root, run as run_cmd};

pub(crate) const FUZZ: StackOptions = StackOptions {
    name: "fuzz",
    // Thousands of requests: the processes say only what went wrong.
    log: "warn",
    // The fuzzer sends hundreds of requests a second; 429s would hide everything else.
    rate_limit: "1000000",
    api_metrics: "127.0.0.1:0",
    worker_metrics: "127.0.0.1:0",
    build: crate::dev::TEST_BUILD,
};

pub fn run(args: &[String]) -> Result<(), String> {
    let mut cases: u32 = 200;
    let mut seed: Option<String> = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--cases" => {
                cases = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|n| *n > 0)
                    .ok_or("--cases takes a positive number (test cases per operation)")?;
            }
            "--seed" => seed = it.next().cloned(),
            other => return Err(format!("fuzz: unknown argument `{other}`")),
        }
    }
    // The fuzzer writes thousands of rows: only ever into a throwaway cluster.
    if crate::pg::external_url().is_some() {
        return Err("fuzz runs against a throwaway PostgreSQL: unset DATABASE_URL".into());
    }
    let st = tools::schemathesis()?;
    let stack = dev::start(&FUZZ)?;
    let merchant = stack
        .merchants
        .first()
        .ok_or("the stack seeded no merchant")?;
    let report_dir = root().join("target/fuzz");
    std::fs::create_dir_all(&report_dir).map_err(|e| e.to_string())?;
    let schema = format!("{}/api/v1/openapi.json", stack.api);
    for (mode, key) in [("test", &merchant.test_key), ("live", &merchant.live_key)] {
        println!("xtask: schemathesis, {cases} cases per operation, {mode} key");
        let mut cmd = Command::new(&st);
        cmd.arg("--config-file")
            .arg(root().join("xtask/schemathesis.toml"))
            .arg("run")
            .arg(&schema)
            .args(["--max-examples", &cases.to_string()])
            // One worker: Hypothesis 6's source cache races across threads ("AST
            // constructor recursion depth mismatch"), a tool error, not a finding.
            .args(["--workers", "1"])
            .args(["--header", &format!("Authorization: Bearer {key}")])
            .args(["--report", "junit"])
            .arg("--report-junit-path")
            .arg(report_dir.join(format!("junit-{mode}.xml")))
            .args(["--request-timeout", "20"])
            .arg("--no-color")
            .env(
                "SCHEMATHESIS_HOOKS",
                root().join("xtask/schemathesis_hooks.py"),
            )
            .current_dir(&report_dir);
        if let Some(seed) = &seed {
            cmd.args(["--seed", seed]);
        }
        run_cmd(&mut cmd)
            .map_err(|e| format!("{e}\n(the failing cases are above; reports in target/fuzz)"))?;
    }
    drop(stack);
    Ok(())
}
