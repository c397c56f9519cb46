//! `cargo xtask sdks`: the TypeScript and Python SDKs' generated parts, made from
//! `docs/openapi.json` (one source of truth), and their checks.
//!
//! - TypeScript (`sdks/typescript`): `src/schema.ts` by openapi-typescript.
//! - Python (`sdks/python`): `src/stablepay/{api,models,client.py,errors.py,types.py}` by
//!   openapi-python-client.
//! - Both: the package version is the document's `info.version`.
//!
//! `cargo xtask sdks` rewrites them; `cargo xtask sdks --check` (part of `cargo xtask test`)
//! generates into `target/sdks` and fails naming every file that differs from the committed
//! one, after proving on a copy of the document with one field changed that it would notice.
//! `cargo xtask test` then builds both packages (tsc and `npm pack`; a wheel and an sdist,
//! mypy --strict), and runs each SDK's test suite, its README walk-through included,
//! against a stack of its own.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::dev::{self, StackOptions};
use crate::tools::{self, tools_dir};
use crate::util::{output, root, run as run_cmd};

/// The Python tools, pinned: the generator (which brings ruff, its formatter), the test
/// runner, the type checker and the packager's backend.
pub const PYTHON_PACKAGES: &[&str] = &[
    "openapi-python-client==0.29.1",
    "pytest==8.4.2",
    "mypy==1.18.2",
    "build==1.3.0",
    "hatchling==1.27.0",
];

/// The generator's two spots `mypy --strict` rejects, switched off in the files themselves
/// (so a merchant's own mypy run agrees): (file, error codes, why).
const MYPY_EXCEPTIONS: &[(&str, &str, &str)] = &[
    (
        "client.py",
        "arg-type",
        "Generated: its context managers pass `*args: object` on to httpx's typed `__exit__`.",
    ),
    (
        "models/error.py",
        "assignment,return-value",
        "Generated: `from_dict` reuses the name `error` for the field and the instance.",
    ),
];

/// The files of the Python package that the generator writes (the rest is hand-written).
const PYTHON_GENERATED: &[&str] = &["api", "models", "client.py", "errors.py", "types.py"];

/// Where the Python package lives, under `sdks/`.
const PYTHON_PACKAGE: &str = "python/src/stablepay";

/// The line of each package file that carries its version (`info.version`), by the text
/// before the quoted version.
const VERSION_LINES: &[(&str, &str)] = &[
    ("typescript/package.json", "\"version\": "),
    ("python/pyproject.toml", "version = "),
    ("python/src/stablepay/__init__.py", "__version__ = "),
];

/// The virtualenv (under `target/tools`) with `PYTHON_PACKAGES`.
const PYTHON_VENV: &str = "sdk-python";

/// The SDK stack: the fuzz's (quiet, built as the tests are) with a budget that lets the
/// pagination tests create hundreds of sessions; 429s come from each merchant's
/// `limited_test_key`.
const SDKS: StackOptions = StackOptions {
    name: "sdks",
    rate_limit: "100000",
    ..crate::fuzz::FUZZ
};

pub fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        None => {
            generate(&root().join("docs/openapi.json"), &root().join("sdks"))?;
            println!("xtask: regenerated the SDKs' generated files from docs/openapi.json");
            Ok(())
        }
        Some("--check") => check(),
        Some("test") => test(),
        Some(other) => Err(format!(
            "sdks: unknown argument `{other}` (none: regenerate; --check; test)"
        )),
    }
}

/// The committed generated files are what the document makes now, and the check notices a
/// change of one field.
pub fn check() -> Result<(), String> {
    let scratch = root().join("target/sdks/generated");
    let doc = root().join("docs/openapi.json");
    // A file left from an earlier run (a renamed output) would read as drift.
    let _ = std::fs::remove_dir_all(&scratch);
    generate(&doc, &scratch)?;
    let differing = differences(&scratch, &root().join("sdks"))?;
    if !differing.is_empty() {
        return Err(format!(
            "the SDKs' generated files differ from what docs/openapi.json makes now (run `cargo xtask sdks` and commit): {}",
            differing.join(", ")
        ));
    }
    // The check itself: one field's description changed must show up in both SDKs.
    let drifted = root().join("target/sdks/drift");
    let _ = std::fs::remove_dir_all(&drifted);
    std::fs::create_dir_all(&drifted).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(&doc).map_err(|e| e.to_string())?;
    let mut value: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let field = value
        .pointer_mut("/components/schemas/CheckoutSessionResource/properties/title")
        .and_then(|v| v.as_object_mut())
        .ok_or("the drift check expects CheckoutSessionResource.title in the document")?;
    field.insert("description".into(), "Changed by the drift check.".into());
    let drifted_doc = drifted.join("openapi.json");
    std::fs::write(&drifted_doc, value.to_string()).map_err(|e| e.to_string())?;
    generate(&drifted_doc, &drifted.join("sdks"))?;
    let noticed = differences(&drifted.join("sdks"), &root().join("sdks"))?;
    let both = ["sdks/typescript/", "sdks/python/"]
        .iter()
        .all(|sdk| noticed.iter().any(|f| f.starts_with(sdk)));
    if !both {
        return Err(format!(
            "the drift check did not notice a changed field in both SDKs (it saw: {noticed:?})"
        ));
    }
    println!(
        "xtask: the SDKs match docs/openapi.json (a changed field shows in {} files)",
        noticed.len()
    );
    Ok(())
}

/// Builds both packages, then runs both suites against a stack of their own.
pub fn test() -> Result<(), String> {
    build()?;
    let stack = dev::start(&SDKS)?;
    let home = root().join("target/sdks/home");
    let _ = std::fs::remove_dir_all(&home);
    dev::write_env_json(&stack, &home.join("target/dev"))?;
    let env_json = home.join("target/dev/env.json");
    println!("xtask: the TypeScript SDK's tests (node --test)");
    let ts = run_cmd(
        Command::new("npm")
            .args(["test", "--silent"])
            .current_dir(root().join("sdks/typescript"))
            .env("STABLEPAY_ENV", &env_json),
    );
    println!("xtask: the Python SDK's tests (pytest)");
    let py = run_cmd(
        Command::new(python_tools()?.join("bin/pytest"))
            .args(["-q", "-p", "no:cacheprovider"])
            .current_dir(root().join("sdks/python"))
            .env("PYTHONPATH", root().join("sdks/python/src"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("STABLEPAY_ENV", &env_json),
    );
    drop(stack);
    ts.map_err(|e| format!("the TypeScript SDK: {e}"))?;
    py.map_err(|e| format!("the Python SDK: {e}"))
}

/// tsc and `npm pack` (the tarball must hold the compiled entry and its types); mypy
/// --strict, then a wheel and an sdist (the wheel must hold `py.typed` and the generated
/// requests). Artifacts go to `target/sdks/dist`.
fn build() -> Result<(), String> {
    let ts = root().join("sdks/typescript");
    let dist = root().join("target/sdks/dist");
    let _ = std::fs::remove_dir_all(&dist);
    std::fs::create_dir_all(&dist).map_err(|e| e.to_string())?;
    node_modules()?;
    println!("xtask: building the TypeScript SDK (tsc, npm pack)");
    run_cmd(
        Command::new("npm")
            .args(["run", "--silent", "build"])
            .current_dir(&ts),
    )?;
    let packed = output(
        Command::new("npm")
            .args(["pack", "--silent", "--pack-destination"])
            .arg(&dist)
            .current_dir(&ts),
    )?;
    let tarball = dist.join(packed.trim());
    let listing = output(Command::new("tar").arg("-tzf").arg(&tarball))?;
    for needed in [
        "package/dist/index.js",
        "package/dist/index.d.ts",
        "package/dist/schema.d.ts",
        "package/README.md",
        "package/CHANGELOG.md",
    ] {
        if !listing.lines().any(|l| l == needed) {
            return Err(format!("{} lacks {needed}", tarball.display()));
        }
    }
    let py = root().join("sdks/python");
    let tools = python_tools()?;
    println!("xtask: checking the Python SDK (mypy --strict) and building it (wheel, sdist)");
    run_cmd(
        Command::new(tools.join("bin/mypy"))
            .args(["--cache-dir"])
            .arg(root().join("target/sdks/mypy-cache"))
            .current_dir(&py)
            .env("MYPYPATH", py.join("src")),
    )?;
    run_cmd(
        Command::new(tools.join("bin/python"))
            .args(["-m", "build", "--no-isolation", "--outdir"])
            .arg(&dist)
            .arg(&py)
            .env("PYTHONDONTWRITEBYTECODE", "1"),
    )?;
    // The build leaves nothing in the tree (hatchling writes only to --outdir).
    let wheel = std::fs::read_dir(&dist)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or("python -m build made no wheel")?;
    let listing = output(
        Command::new(tools.join("bin/python"))
            .args(["-m", "zipfile", "-l"])
            .arg(&wheel),
    )?;
    for needed in [
        "stablepay/py.typed",
        "stablepay/_sdk.py",
        "stablepay/webhooks.py",
        "stablepay/api/checkout_sessions/create_checkout_session.py",
    ] {
        if !listing.contains(needed) {
            return Err(format!("{} lacks {needed}", wheel.display()));
        }
    }
    println!(
        "xtask: SDK packages built in {} ({}, {})",
        dist.display(),
        packed.trim(),
        wheel.file_name().unwrap_or_default().to_string_lossy()
    );
    Ok(())
}

/// Writes the generated files of both SDKs for `doc` under `out` (`typescript/…`,
/// `python/…`, laid out as in `sdks/`).
fn generate(doc: &Path, out: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(doc).map_err(|e| format!("{}: {e}", doc.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let version = value
        .pointer("/info/version")
        .and_then(|v| v.as_str())
        .ok_or("the document has no info.version")?
        .to_owned();
    node_modules()?;
    let ts_out = out.join("typescript/src");
    std::fs::create_dir_all(&ts_out).map_err(|e| e.to_string())?;
    let ts = root().join("sdks/typescript");
    run_cmd(
        Command::new(ts.join("node_modules/.bin/openapi-typescript"))
            .arg(doc)
            .arg("--empty-objects-unknown")
            .arg("--output")
            .arg(ts_out.join("schema.ts"))
            .current_dir(&ts),
    )?;

    let tools = python_tools()?;
    let scratch = root().join("target/sdks/python-generator");
    let _ = std::fs::remove_dir_all(&scratch);
    let path = format!(
        "{}:{}",
        tools.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    run_cmd(
        Command::new(tools.join("bin/openapi-python-client"))
            .args(["generate", "--meta", "none", "--path"])
            .arg(doc)
            .arg("--config")
            .arg(root().join("sdks/python/openapi-python-client.yaml"))
            .arg("--output-path")
            .arg(&scratch)
            // Its post-hooks run ruff (installed with it) to format the output.
            .env("PATH", path),
    )?;
    let py_out = out.join(PYTHON_PACKAGE);
    std::fs::create_dir_all(&py_out).map_err(|e| e.to_string())?;
    for part in PYTHON_GENERATED {
        let target = py_out.join(part);
        let _ = std::fs::remove_dir_all(&target);
        let _ = std::fs::remove_file(&target);
        copy_tree(&scratch.join(part), &target)?;
    }
    for (file, codes, why) in MYPY_EXCEPTIONS {
        let path = py_out.join(file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let header = format!("# {why}\n# mypy: disable-error-code=\"{codes}\"\n");
        std::fs::write(&path, header + &text).map_err(|e| e.to_string())?;
    }
    let _ = std::fs::remove_dir_all(&scratch);
    for (file, prefix) in VERSION_LINES {
        set_version(file, prefix, &version, out)?;
    }
    Ok(())
}

/// Copies `sdks/<file>` to `<out>/<file>` with its first line that starts (indentation
/// aside) with `prefix` ending in `version` instead, quoted (and its comma kept).
fn set_version(file: &str, prefix: &str, version: &str, out: &Path) -> Result<(), String> {
    let from = root().join("sdks").join(file);
    let text = std::fs::read_to_string(&from).map_err(|e| format!("{}: {e}", from.display()))?;
    let mut found = false;
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        let body = line.trim_start();
        if !found && body.starts_with(prefix) {
            found = true;
            let indent = &line[..line.len() - body.len()];
            let comma = if body.ends_with(',') { "," } else { "" };
            lines.push(format!("{indent}{prefix}\"{version}\"{comma}"));
        } else {
            lines.push(line.to_owned());
        }
    }
    if !found {
        return Err(format!(
            "sdks/{file} has no `{prefix}` line to set to {version}"
        ));
    }
    let to = out.join(file);
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::write(&to, lines.join("\n") + "\n").map_err(|e| e.to_string())
}

/// Files under `generated` whose copy under `committed` is missing or different, and
/// committed generated files the generator no longer makes; as `sdks/<path>`.
fn differences(generated: &Path, committed: &Path) -> Result<Vec<String>, String> {
    let made = files(generated)?;
    let mut differing: Vec<String> = made
        .iter()
        .filter(|(rel, bytes)| std::fs::read(committed.join(rel)).ok().as_ref() != Some(*bytes))
        .map(|(rel, _)| format!("sdks/{rel}"))
        .collect();
    // A generated file the document no longer makes (an operation removed) must go too.
    let generated_part = |rel: &str| {
        PYTHON_GENERATED
            .iter()
            .any(|part| rel == *part || rel.starts_with(&format!("{part}/")))
    };
    for rel in files(&committed.join(PYTHON_PACKAGE))?.into_keys() {
        let whole = format!("{PYTHON_PACKAGE}/{rel}");
        if generated_part(&rel) && !made.contains_key(&whole) {
            differing.push(format!("sdks/{whole} (no longer generated)"));
        }
    }
    Ok(differing)
}

/// Every file under `dir`, by relative path; `__pycache__` skipped.
fn files(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in entries.filter_map(|e| e.ok()) {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == "__pycache__") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .map_err(|e| e.to_string())?
                    .to_string_lossy()
                    .into_owned();
                found.insert(rel, std::fs::read(&path).map_err(|e| e.to_string())?);
            }
        }
    }
    Ok(found)
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    if from.is_file() {
        return std::fs::copy(from, to)
            .map(|_| ())
            .map_err(|e| format!("copy {}: {e}", from.display()));
    }
    for (rel, bytes) in files(from)? {
        let path = to.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `npm ci` in `sdks/typescript` (its lockfile's openapi-typescript, openapi-fetch,
/// TypeScript) when `node_modules` is not that lockfile's yet.
pub fn node_modules() -> Result<(), String> {
    let ts = root().join("sdks/typescript");
    let lock = std::fs::read(ts.join("package-lock.json")).map_err(|e| e.to_string())?;
    let stamp = ts.join("node_modules/.stablepay-lock");
    if std::fs::read(&stamp).ok().as_ref() == Some(&lock) {
        return Ok(());
    }
    println!("xtask: npm ci (sdks/typescript)");
    run_cmd(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&ts),
    )?;
    std::fs::write(&stamp, lock).map_err(|e| e.to_string())
}

/// The virtualenv with `PYTHON_PACKAGES` (and the SDK's own dependencies, which the
/// generator brings: httpx, attrs).
pub fn python_tools() -> Result<PathBuf, String> {
    tools::python_tool(PYTHON_VENV, PYTHON_PACKAGES, "bin/python")?;
    Ok(tools_dir().join(PYTHON_VENV))
}
