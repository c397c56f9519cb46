//! `cargo xtask walkthrough`: runs `docs/walkthrough.md` as written. Its `sh` blocks run in
//! bash against a stack of their own (the one `dev` starts: same chains, depths, plan
//! interval and dunning delays), from a directory whose `target/dev/env.json` describes
//! that stack, so a `cargo xtask dev` the developer has running is left alone. What the
//! page says each step prints is then looked for, in order, in what it printed.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::dev::{self, StackOptions};
use crate::tools;
use crate::util::root;

/// The fuzz's stack (quiet, metrics on free ports, built as the tests are), with `dev`'s
/// rate limit: the page's requests and polls stay under it, as a reader's would.
const WALKTHROUGH: StackOptions = StackOptions {
    name: "walkthrough",
    rate_limit: "120",
    ..crate::fuzz::FUZZ
};

/// The page waits for the chain and the worker by polling; a step that never gets what it
/// waits for (a regression) ends the run here instead of hanging the suite. The page's
/// slowest step, the subscription's dunning, takes about 140 s.
const DEADLINE: Duration = Duration::from_secs(600);

/// What each step prints when it works, in the order the page prints it.
const EXPECTED: &[(&str, &str)] = &[
    ("1. a session is created", r#""object":"checkout.session""#),
    ("3. the retry is replayed", "idempotency-replayed: true"),
    ("4. the wallet is verified", r#""verified_mode":"test""#),
    ("5. the endpoint's secret is shown", r#""secret":"whsec_"#),
    ("6. the test event is listed", r#""object":"webhook_event""#),
    ("6. recover answers", r#""completed":"#),
    (
        "7. the router payment confirms",
        r#""settlement":"confirmed""#,
    ),
    ("7. its payment is listed", r#""status":"confirmed""#),
    (
        "7b. the one-signature payment confirms",
        r#""settlement":"confirmed""#,
    ),
    ("7c. 4 USDC are received", r#""amount_received":"4""#),
    (
        "7c. one payment with 1 overpaid",
        r#""overpaid_amount":"1""#,
    ),
    ("7d. the agent is answered 200", "200 eyJ"),
    ("7e. a euro price is quoted in USDC", r#""amount":"21.65""#),
    (
        "7f. a payment link's visit is sent to a session",
        "303 http",
    ),
    ("7f. the session names its link", "plink_"),
    ("8. the refund is recorded", r#""object":"refund""#),
    (
        "9. the subscription's first charge confirms",
        r#""settlement":"confirmed""#,
    ),
    ("9. the subscription is active", r#""status":"active""#),
    ("9. dunning expires it", r#""status":"expired""#),
    ("9. the failed charge is listed", "insufficient_allowance"),
    ("10. the portal cancels", r#""status":"canceled""#),
    ("the OpenAPI document", "openapi 3.1"),
    ("the error envelope", r#""field":"amount""#),
];

pub fn run() -> Result<(), String> {
    let page = std::fs::read_to_string(root().join("docs/walkthrough.md"))
        .map_err(|e| format!("cannot read docs/walkthrough.md: {e}"))?;
    let script = sh_blocks(&page);
    if script.trim().is_empty() {
        return Err("docs/walkthrough.md has no ```sh block".into());
    }
    // Step 7d installs the x402 SDK into target/tools/x402: the suite's copy already.
    tools::x402_python()?;
    let stack = dev::start(&WALKTHROUGH)?;
    // The reader's repository root; beside the stack's cluster (`target/walkthrough/pg`).
    let home = root().join("target/walkthrough/reader");
    let _ = std::fs::remove_dir_all(&home);
    dev::write_env_json(&stack, &home.join("target/dev"))?;
    link_tools(&home)?;
    let log_path = home.join("output.log");
    let printed = run_script(&script, &home, &log_path)?;
    drop(stack);
    check_printed(&printed).map_err(|missing| {
        format!(
            "docs/walkthrough.md did not print what it says: {missing} (full output in {}); its end:\n{}",
            log_path.display(),
            tail(&printed, 40)
        )
    })?;
    println!(
        "xtask: docs/walkthrough.md ran as written ({} steps checked)",
        EXPECTED.len()
    );
    Ok(())
}

/// Every fenced `sh` block of a Markdown page, in order, as one script.
fn sh_blocks(page: &str) -> String {
    let mut script = String::new();
    let mut inside = false;
    for line in page.lines() {
        let fence = line.trim_start();
        if !inside && fence == "```sh" {
            inside = true;
        } else if inside && fence.starts_with("```") {
            inside = false;
        } else if inside {
            script.push_str(line);
            script.push('\n');
        }
    }
    script
}

/// The page's `target/tools/x402` is the suite's, so step 7d's `pip install` finds the
/// pinned SDK in place instead of downloading it again.
fn link_tools(home: &Path) -> Result<(), String> {
    let target = home.join("target");
    std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
    std::os::unix::fs::symlink(root().join("target/tools"), target.join("tools"))
        .map_err(|e| format!("cannot link target/tools into {}: {e}", home.display()))
}

/// Runs the script in bash from `home` (the reader's repository root), stdout and stderr
/// into `log`, and returns what it printed. Its exit status is not the verdict: the page is
/// a sequence of commands, not a `set -e` script; what it printed is.
fn run_script(script: &str, home: &Path, log: &Path) -> Result<String, String> {
    println!(
        "xtask: running docs/walkthrough.md (output in {})",
        log.display()
    );
    let out = std::fs::File::create(log).map_err(|e| e.to_string())?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(home)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot run bash: {e}"))?;
    let started = Instant::now();
    let timed_out = loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            break false;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            break true;
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    let mut printed = String::new();
    std::fs::File::open(log)
        .and_then(|mut f| f.read_to_string(&mut printed))
        .map_err(|e| e.to_string())?;
    if timed_out {
        return Err(format!(
            "docs/walkthrough.md still ran after {} s (a step waits for something that never came); its end:\n{}",
            DEADLINE.as_secs(),
            tail(&printed, 40)
        ));
    }
    println!(
        "xtask: docs/walkthrough.md took {} s",
        started.elapsed().as_secs()
    );
    Ok(printed)
}

/// Looks for each expected line in order; the first missing one is the error.
fn check_printed(printed: &str) -> Result<(), String> {
    let mut rest = printed;
    for (step, text) in EXPECTED {
        match rest.find(text) {
            Some(at) => rest = &rest[at + text.len()..],
            None => {
                return Err(format!(
                    "step {step}: `{text}` not found after the previous steps"
                ))
            }
        }
    }
    Ok(())
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sh_blocks_are_run() {
        let page = "text\n```sh\necho one\n```\n```json\n{}\n```\n  ```sh\necho two\n```\n";
        assert_eq!(sh_blocks(page), "echo one\necho two\n");
    }

    #[test]
    fn a_step_printed_out_of_order_is_missing() {
        let mut printed: String = EXPECTED.iter().map(|(_, t)| format!("{t}\n")).collect();
        assert_eq!(check_printed(&printed), Ok(()));
        printed = printed.replacen(r#""status":"expired""#, "", 1);
        let err = check_printed(&printed).unwrap_err();
        assert!(err.contains("dunning expires it"), "{err}");
    }
}
