//! The whole suite's test binaries, a few at a time (`STABLEPAY_TEST_JOBS`, default 3)
//! rather than one after another as `cargo test` runs them: the end-to-end ones spend most
//! of their time waiting for blocks, so overlapping them shortens the run by minutes.
//! Each binary's output goes to `target/test/logs/<package>::<target>.log` and is printed
//! whole when it fails; a binary still running is named every minute, and one running past
//! `STABLEPAY_TEST_TIMEOUT_SECS` (900) is killed and fails. How long each took is kept in
//! `target/test/durations.json`, so the next run starts the slowest first.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::util::{cargo, describe, root};

/// One test executable, as cargo built it.
struct TestBinary {
    /// `<package>::<target>`, e.g. `stablepay-e2e::x402`; the log's file name.
    label: String,
    package: String,
    target: String,
    path: PathBuf,
    /// Its package's directory: cargo runs tests from there.
    dir: PathBuf,
}

/// What one binary did.
struct Outcome {
    label: String,
    seconds: f64,
    passed: u64,
    ignored: u64,
    ok: bool,
}

/// Builds every test target of the workspace, then runs them `jobs` at a time with `env`.
/// Fails naming every binary that failed.
pub fn run(env: &[(&str, String)]) -> Result<(), String> {
    let jobs = positive_setting("STABLEPAY_TEST_JOBS", 3)?;
    let timeout = positive_setting("STABLEPAY_TEST_TIMEOUT_SECS", 900)?;
    let timeout = Duration::from_secs(u64::try_from(timeout).unwrap_or(u64::MAX));
    let binaries = build()?;
    let logs = root().join("target/test/logs");
    std::fs::create_dir_all(&logs).map_err(|e| format!("{}: {e}", logs.display()))?;
    let durations_path = root().join("target/test/durations.json");
    let known: BTreeMap<String, f64> = std::fs::read(&durations_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let queue = Mutex::new(slowest_first(binaries, &known));
    println!(
        "xtask: running {} test binaries, {jobs} at a time (output in target/test/logs)",
        queue.lock().map(|q| q.len()).unwrap_or(0)
    );
    let started = Instant::now();
    let outcomes = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let next = queue.lock().ok().and_then(|mut q| q.pop_front());
                let Some(binary) = next else { break };
                let outcome = run_one(&binary, env, &logs, timeout);
                if let Ok(mut all) = outcomes.lock() {
                    all.push(outcome);
                }
            });
        }
    });
    let outcomes = outcomes.into_inner().unwrap_or_default();
    let durations: BTreeMap<&str, f64> = outcomes
        .iter()
        .map(|o| (o.label.as_str(), o.seconds))
        .collect();
    if let Ok(json) = serde_json::to_vec_pretty(&durations) {
        let _ = std::fs::write(&durations_path, json);
    }
    let passed: u64 = outcomes.iter().map(|o| o.passed).sum();
    let ignored: u64 = outcomes.iter().map(|o| o.ignored).sum();
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|o| !o.ok)
        .map(|o| o.label.as_str())
        .collect();
    println!(
        "xtask: {} test binaries in {:.0} s: {passed} tests passed, {ignored} ignored, {} binaries failed",
        outcomes.len(),
        started.elapsed().as_secs_f64(),
        failed.len()
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("test binaries failed: {}", failed.join(", ")))
    }
}

/// A whole number above 0 from the environment variable `name`, or `default`.
fn positive_setting(name: &str, default: usize) -> Result<usize, String> {
    match std::env::var(name) {
        Err(_) => Ok(default),
        Ok(v) => v
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{name} must be a whole number above 0, not {v:?}")),
    }
}

/// `cargo test --no-run`, reading the executables from cargo's JSON messages (its
/// diagnostics still go to the terminal).
fn build() -> Result<Vec<TestBinary>, String> {
    let mut cmd = cargo();
    cmd.args([
        "test",
        "--workspace",
        "--all-features",
        "--no-run",
        "--message-format=json-render-diagnostics",
    ])
    .stdout(Stdio::piped());
    let what = describe(&cmd);
    let mut child = cmd.spawn().map_err(|e| format!("cannot run {what}: {e}"))?;
    let mut binaries = Vec::new();
    let mut seen = HashSet::new();
    if let Some(stdout) = child.stdout.take() {
        // Every line is read (a line that is not JSON is skipped), so cargo never blocks on
        // a full pipe.
        for line in BufReader::new(stdout).split(b'\n') {
            let Ok(line) = line else { break };
            let Ok(message) = serde_json::from_slice::<serde_json::Value>(&line) else {
                continue;
            };
            if let Some(binary) = test_binary(&message) {
                if seen.insert(binary.path.clone()) {
                    binaries.push(binary);
                }
            }
        }
    }
    let status = child.wait().map_err(|e| format!("{what}: {e}"))?;
    if !status.success() {
        return Err(format!("{what} failed ({status})"));
    }
    Ok(binaries)
}

/// A `compiler-artifact` message of a test target that has an executable.
fn test_binary(message: &serde_json::Value) -> Option<TestBinary> {
    if message["reason"] != "compiler-artifact" || message["profile"]["test"] != true {
        return None;
    }
    let path = PathBuf::from(message["executable"].as_str()?);
    let manifest = Path::new(message["manifest_path"].as_str()?);
    let package = package_name(message["package_id"].as_str()?)?;
    let target = message["target"]["name"].as_str()?;
    // A library's unit tests and an integration test may share a name.
    let kind = message["target"]["kind"][0].as_str().unwrap_or("test");
    let label = match kind {
        "test" => format!("{package}::{target}"),
        other => format!("{package}::{target}-{other}"),
    };
    Some(TestBinary {
        label,
        package: package.to_owned(),
        target: target.to_owned(),
        path,
        dir: manifest.parent()?.to_path_buf(),
    })
}

/// The package a cargo package id names: `path+file:///…/crates/domain#stablepay-domain@0.1.0`,
/// or `path+file:///…/xtask#0.1.0` when the folder bears the package's name.
fn package_name(id: &str) -> Option<&str> {
    let (url, fragment) = id.rsplit_once('#')?;
    match fragment.split_once('@') {
        Some((name, _)) => Some(name),
        None => url.rsplit('/').next(),
    }
}

/// Binaries whose last duration is known, slowest first, after the unknown ones (which
/// may be slow) in cargo's order.
fn slowest_first(binaries: Vec<TestBinary>, known: &BTreeMap<String, f64>) -> VecDeque<TestBinary> {
    let (mut timed, unknown): (Vec<_>, Vec<_>) = binaries
        .into_iter()
        .partition(|b| known.contains_key(&b.label));
    timed.sort_by(|a, b| {
        let secs = |t: &TestBinary| known.get(&t.label).copied().unwrap_or(0.0);
        secs(b).total_cmp(&secs(a))
    });
    unknown.into_iter().chain(timed).collect()
}

/// Runs one binary from its package's directory, as `cargo test` would, its output into
/// its log; past `timeout` it is killed.
fn run_one(binary: &TestBinary, env: &[(&str, String)], logs: &Path, timeout: Duration) -> Outcome {
    let log_path = logs.join(format!("{}.log", binary.label));
    let started = Instant::now();
    let child = std::fs::File::create(&log_path)
        .and_then(|log| Ok((log.try_clone()?, log)))
        .and_then(|(out, err)| {
            Command::new(&binary.path)
                .current_dir(&binary.dir)
                // What cargo sets when it runs a test, not what it set for xtask.
                .env("CARGO_MANIFEST_DIR", &binary.dir)
                .env("CARGO_PKG_NAME", &binary.package)
                .env("CARGO_CRATE_NAME", binary.target.replace('-', "_"))
                .env_remove("CARGO_BIN_NAME")
                .env_remove("CARGO_PRIMARY_PACKAGE")
                .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
                .stdout(out)
                .stderr(err)
                .spawn()
        });
    let status = child.and_then(|child| wait_for(child, &binary.label, started, timeout));
    let seconds = started.elapsed().as_secs_f64();
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    let (passed, ignored) = counts(&log);
    let ok = matches!(&status, Ok(s) if s.success());
    if ok {
        println!(
            "xtask: {} ok: {passed} passed in {seconds:.1} s",
            binary.label
        );
    } else {
        let why = match &status {
            Ok(s) => s.to_string(),
            Err(e) => format!("cannot run: {e}"),
        };
        // One print, so a failure's log is not interleaved with other binaries' lines.
        println!(
            "xtask: {} FAILED ({why}) after {seconds:.1} s; its output:\n{log}\nxtask: end of {}'s output",
            binary.label, binary.label
        );
    }
    Outcome {
        label: binary.label.clone(),
        seconds,
        passed,
        ignored,
        ok,
    }
}

/// Waits for `child`, naming it every minute; kills it past `timeout` (an error).
fn wait_for(
    mut child: std::process::Child,
    label: &str,
    started: Instant,
    timeout: Duration,
) -> std::io::Result<std::process::ExitStatus> {
    let mut named = Duration::ZERO;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        let running = started.elapsed();
        if running > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other(format!(
                "killed after {} s (STABLEPAY_TEST_TIMEOUT_SECS)",
                timeout.as_secs()
            )));
        }
        if running >= named + Duration::from_secs(60) {
            named = running;
            println!("xtask: {label} still running after {} s", running.as_secs());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Passed and ignored tests, from the libtest summary lines in `log`.
fn counts(log: &str) -> (u64, u64) {
    let number_before = |line: &str, word: &str| -> u64 {
        line.split(';')
            .find_map(|part| part.trim().strip_suffix(word))
            .and_then(|n| n.trim().rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    log.lines()
        .filter(|l| l.starts_with("test result:"))
        .fold((0, 0), |(p, i), l| {
            (
                p + number_before(l, "passed"),
                i + number_before(l, "ignored"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_libtest_summaries() {
        let log = "running 3 tests\n\
                   test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 1.00s\n\
                   test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.5s\n";
        assert_eq!(counts(log), (5, 1));
    }

    /// Cargo's message for a test executable of `package_id`'s package in `dir`.
    fn artifact(package_id: &str, dir: &str, name: &str, kind: &str) -> serde_json::Value {
        serde_json::json!({
            "reason": "compiler-artifact",
            "package_id": package_id,
            "manifest_path": format!("{dir}/Cargo.toml"),
            "target": { "name": name, "kind": [kind] },
            "profile": { "test": true },
            "executable": format!("/w/target/debug/deps/{name}-0123")
        })
    }

    #[test]
    fn a_test_artifact_names_its_package_and_target() {
        let e2e = "path+file:///w/tests/e2e#stablepay-e2e@0.1.0";
        let binary = test_binary(&artifact(e2e, "/w/tests/e2e", "x402", "test")).unwrap();
        assert_eq!(binary.label, "stablepay-e2e::x402");
        assert_eq!(binary.dir, PathBuf::from("/w/tests/e2e"));
        assert_eq!(package_name("path+file:///w/xtask#0.1.0"), Some("xtask"));
        let domain = "path+file:///w/crates/domain#stablepay-domain@0.1.0";
        let unit = artifact(domain, "/w/crates/domain", "stablepay_domain", "lib");
        assert_eq!(
            test_binary(&unit).unwrap().label,
            "stablepay-domain::stablepay_domain-lib"
        );
        let library = serde_json::json!({ "reason": "compiler-artifact", "profile": { "test": false }, "executable": null });
        assert!(test_binary(&library).is_none());
    }

    #[test]
    fn known_slow_binaries_go_first_after_unknown_ones() {
        let b = |label: &str| TestBinary {
            label: label.into(),
            package: String::new(),
            target: String::new(),
            path: PathBuf::new(),
            dir: PathBuf::new(),
        };
        let known = BTreeMap::from([("fast".to_owned(), 1.0), ("slow".to_owned(), 100.0)]);
        let order: Vec<String> = slowest_first(vec![b("fast"), b("new"), b("slow")], &known)
            .into_iter()
            .map(|b| b.label)
            .collect();
        assert_eq!(order, ["new", "slow", "fast"]);
    }
}
