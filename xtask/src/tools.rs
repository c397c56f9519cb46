//! Node-packaged tools under `target/tools`: anvil and forge (npm `@foundry-rs/anvil` and
//! `@foundry-rs/forge`, which ship the platform's binaries) and solc (npm `solc`, solcjs).
//! Installed on first use.

use std::path::PathBuf;
use std::process::Command;

use crate::util::{output, root, run};

pub const ANVIL_PACKAGE: &str = "@foundry-rs/anvil@1.7.1";
pub const SOLC_PACKAGE: &str = "solc@0.8.30";
pub const FORGE_PACKAGE: &str = "@foundry-rs/forge@1.7.1";

/// forge asks `solc --version` and compiles through `--standard-json`; npm's solc is
/// solcjs (WebAssembly), so this face answers the one and passes the other to it. Only the
/// npm and Debian registries are reachable here, and Debian has no solc.
const SOLC_FACE: &str = r#"#!/bin/sh
for a in "$@"; do
  if [ "$a" = "--version" ]; then
    echo "solc, the solidity compiler commandline interface"
    echo "Version: 0.8.30+commit.73712a01.Linux.g++"
    exit 0
  fi
done
exec node -e '
const solc = require(process.argv[1]);
const fs = require("fs");
let input = "";
process.stdin.on("data", d => input += d).on("end", () => {
  const findImports = p => {
    try { return { contents: fs.readFileSync(p, "utf8") }; } catch (e) { return { error: "not found: " + p }; }
  };
  process.stdout.write(solc.compile(input, { import: findImports }));
});' "$(dirname "$0")/node_modules/solc"
"#;

pub fn tools_dir() -> PathBuf {
    root().join("target/tools")
}

/// The platform binary inside the npm package (spawned directly so it can be killed).
fn anvil_binary() -> Option<PathBuf> {
    let scope = tools_dir().join("node_modules/@foundry-rs");
    let entries = std::fs::read_dir(&scope).ok()?;
    entries
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin/anvil"))
        .find(|p| p.is_file())
        .or_else(|| Some(tools_dir().join("node_modules/.bin/anvil")).filter(|p| p.exists()))
}

fn npm_install(packages: &[&str]) -> Result<(), String> {
    let dir = tools_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    if !dir.join("package.json").exists() {
        std::fs::write(
            dir.join("package.json"),
            "{\"name\":\"stablepay-tools\",\"private\":true}\n",
        )
        .map_err(|e| e.to_string())?;
    }
    println!(
        "xtask: npm install {} (into target/tools)",
        packages.join(" ")
    );
    run(Command::new("npm")
        .arg("install")
        .arg("--prefix")
        .arg(&dir)
        .args(["--no-audit", "--no-fund", "--loglevel=error"])
        .args(packages))
    .map_err(|e| format!("{e}\n(Node.js and npm are required: they install anvil and solc)"))
}

pub fn anvil() -> Result<PathBuf, String> {
    if let Some(bin) = anvil_binary() {
        return Ok(bin);
    }
    npm_install(&[ANVIL_PACKAGE, SOLC_PACKAGE])?;
    let bin = anvil_binary()
        .ok_or("the @foundry-rs/anvil package installed no binary for this platform")?;
    let version = output(Command::new(&bin).arg("--version"))?;
    println!("xtask: {}", version.lines().next().unwrap_or("anvil"));
    Ok(bin)
}

/// forge's platform binary, and the solc face it compiles with.
pub fn forge() -> Result<(PathBuf, PathBuf), String> {
    let find = || {
        let scope = tools_dir().join("node_modules/@foundry-rs");
        std::fs::read_dir(scope)
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("bin/forge"))
            .find(|p| p.is_file())
    };
    let forge = match find() {
        Some(bin) => bin,
        None => {
            npm_install(&[ANVIL_PACKAGE, SOLC_PACKAGE, FORGE_PACKAGE])?;
            find().ok_or("the @foundry-rs/forge package installed no binary for this platform")?
        }
    };
    solc_ready()?;
    let face = tools_dir().join("solc-face");
    std::fs::write(&face, SOLC_FACE).map_err(|e| format!("{}: {e}", face.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&face, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| e.to_string())?;
    }
    Ok((forge, face))
}

/// The Solidity tests in contracts/test (unit, fuzz and invariant; contracts/foundry.toml
/// fixes the fuzz seed and keeps the output under target/forge).
pub fn forge_test() -> Result<(), String> {
    let (forge, solc) = forge()?;
    println!("xtask: forge test (contracts/test)");
    // From contracts/, where forge resolves the fuzz failure files (relative to the
    // working directory, unlike the rest of foundry.toml) under target/ too.
    run(Command::new(forge)
        .current_dir(root().join("contracts"))
        .arg("test")
        .arg("--root")
        .arg(root().join("contracts"))
        .arg("--use")
        .arg(solc))
}

/// The committed gas snapshot of the Solidity unit tests (fuzz and invariant tests left
/// out: their gas is an average over random inputs).
pub const GAS_SNAPSHOT: &str = "contracts/gas-snapshot";

/// `forge snapshot` over the unit tests: `write` refreshes the committed file (on
/// purpose, after a contract change); otherwise the run is compared with it (`--diff`)
/// and the output returned.
pub fn forge_snapshot(write: bool) -> Result<String, String> {
    let (forge, solc) = forge()?;
    let mut cmd = Command::new(forge);
    cmd.current_dir(root().join("contracts"))
        .arg("snapshot")
        .arg("--root")
        .arg(root().join("contracts"))
        .arg("--use")
        .arg(solc)
        .args(["--no-match-test", "testFuzz|invariant"]);
    let snapshot = root().join(GAS_SNAPSHOT);
    if write {
        cmd.arg("--snap").arg(&snapshot);
        run(&mut cmd)?;
        return Ok(format!("wrote {GAS_SNAPSHOT}"));
    }
    cmd.arg("--diff").arg(&snapshot);
    output(&mut cmd)
}

pub fn solc_ready() -> Result<(), String> {
    if tools_dir().join("node_modules/solc/package.json").exists() {
        return Ok(());
    }
    npm_install(&[ANVIL_PACKAGE, SOLC_PACKAGE])
}

/// `cargo xtask contracts`: compile contracts/src with solcjs into contracts/out.
pub fn compile_contracts() -> Result<(), String> {
    solc_ready()?;
    run(Command::new("node")
        .arg(root().join("contracts/compile.mjs"))
        .arg(tools_dir())
        .arg(root().join("contracts")))
}

/// Debian's Chromium and ChromeDriver for the browser tests: installed with apt when
/// missing and running as root (as CI does); otherwise a message naming the packages.
pub fn chromium() -> Result<(), String> {
    let present = |p: &str| std::path::Path::new(p).exists();
    if present("/usr/bin/chromium") && present("/usr/bin/chromedriver") {
        return Ok(());
    }
    let root = output(Command::new("id").arg("-u"))
        .map(|uid| uid.trim() == "0")
        .unwrap_or(false);
    if !root {
        return Err("the browser tests need Debian's `chromium` and `chromium-driver` packages \
                    (/usr/bin/chromium, /usr/bin/chromedriver): apt-get install chromium chromium-driver"
            .into());
    }
    println!("xtask: apt-get install chromium chromium-driver (browser tests)");
    run(Command::new("apt-get")
        .args(["update", "-q"])
        .env("DEBIAN_FRONTEND", "noninteractive"))?;
    run(Command::new("apt-get")
        .args([
            "install",
            "-y",
            "-q",
            "--no-install-recommends",
            "chromium",
            "chromium-driver",
        ])
        .env("DEBIAN_FRONTEND", "noninteractive"))
    .map_err(|e| format!("{e}\n(could not install Debian's chromium and chromium-driver)"))
}

/// Schemathesis from PyPI, in its own virtualenv under `target/tools` (for `xtask fuzz`).
pub const SCHEMATHESIS_PACKAGE: &str = "schemathesis==4.32.5";

pub fn schemathesis() -> Result<PathBuf, String> {
    python_tool("schemathesis", &[SCHEMATHESIS_PACKAGE], "bin/st")
}

/// The official x402 SDK (PyPI `x402`, EVM and httpx extras), pinned: its defaults (spend
/// caps, validity windows) change between releases. The e2e tests pay sessions with it.
pub const X402_PACKAGES: &[&str] = &["x402[evm,httpx]==2.25.0"];

/// The Python that has the x402 SDK.
pub fn x402_python() -> Result<PathBuf, String> {
    python_tool("x402", X402_PACKAGES, "bin/python")
}

/// A virtualenv `target/tools/<name>` with `packages` installed (once per pin); the path
/// of its `program`.
pub(crate) fn python_tool(name: &str, packages: &[&str], program: &str) -> Result<PathBuf, String> {
    let venv = tools_dir().join(name);
    let bin = venv.join(program);
    let pinned = venv.join(".installed");
    let wanted = packages.join(" ");
    let installed = std::fs::read_to_string(&pinned).unwrap_or_default();
    if bin.is_file() && installed.trim() == wanted {
        return Ok(bin);
    }
    println!("xtask: pip install {wanted} (into target/tools/{name})");
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv))
        .map_err(|e| format!("{e}\n(Python 3 with venv is required for {name})"))?;
    run(Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .args(packages))?;
    std::fs::write(&pinned, &wanted).map_err(|e| e.to_string())?;
    Ok(bin)
}
