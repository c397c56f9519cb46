//! `cargo xtask dev`: the whole service on this machine, and `target/dev/env.json`.

use std::process::{Child, Command};
use std::sync::mpsc;
use std::time::Duration;

use base64::Engine;
use rand::RngCore;
use serde_json::json;

use crate::chain::{self, DevChain};
use crate::pg::Postgres;
use crate::seed::{self, DemoMerchant};
use crate::tools;
use crate::util::{cargo, output, root, run as run_cmd, spawn_reporting};

struct Processes(Vec<(String, Child)>);

impl Drop for Processes {
    fn drop(&mut self) {
        for (name, child) in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
            println!("xtask: stopped {name}");
        }
    }
}

fn env_or(name: &str, default: impl FnOnce() -> String) -> String {
    std::env::var(name)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(default)
}

/// A running stack: PostgreSQL, both chains, api and worker, seeded merchants.
pub struct Stack {
    // Field order is drop order: the processes stop before their chains and database.
    processes: Processes,
    pub chains: Vec<DevChain>,
    pg: Postgres,
    pub api: String,
    pub public_url: String,
    pub merchants: Vec<DemoMerchant>,
    pub logins: Vec<seed::DashboardLogin>,
    pub rate_limit: u32,
    pub backoff_secs: u64,
    /// What `stablepay-api doctor` needs to check this stack (dev secrets only):
    /// `DATABASE_URL` and the chain variables both processes get.
    pub service_env: Vec<(String, String)>,
}

impl Stack {
    pub fn throwaway_db(&self) -> bool {
        self.pg.data_dir().is_some()
    }

    /// Fails when the api or the worker has exited.
    pub fn check_alive(&mut self) -> Result<(), String> {
        for (name, child) in &mut self.processes.0 {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("{name} exited unexpectedly ({status})"));
            }
        }
        Ok(())
    }
}

/// What differs between `dev` and `fuzz`: the cluster's name under `target/`, and the
/// defaults for the rate limit and the metrics binds (the environment still wins).
pub struct StackOptions {
    pub name: &'static str,
    /// `STABLEPAY_LOG` for the api and worker unless the environment sets it.
    pub log: &'static str,
    pub rate_limit: &'static str,
    pub api_metrics: &'static str,
    pub worker_metrics: &'static str,
    /// The cargo command that builds the two binaries. `fuzz` runs inside `cargo xtask
    /// test`, so it builds them as the tests do (same selection, same features): nothing is
    /// compiled again, where a `build -p …` would compile every dependency a second time.
    pub build: &'static [&'static str],
}

pub const DEV: StackOptions = StackOptions {
    name: "dev",
    log: "info",
    rate_limit: "120",
    api_metrics: "127.0.0.1:9464",
    worker_metrics: "127.0.0.1:9465",
    build: &[
        "build",
        "--quiet",
        "-p",
        "stablepay-api",
        "-p",
        "stablepay-worker",
    ],
};

/// How `cargo xtask test` builds everything, the api and worker binaries included.
pub const TEST_BUILD: &[&str] = &["test", "--workspace", "--all-features", "--no-run"];

pub fn run() -> Result<(), String> {
    let mut stack = start(&DEV)?;
    write_env_json(&stack, &root().join("target/dev"))?;
    print_banner(&stack);

    let (tx, rx) = mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = tx.send(());
    })
    .map_err(|e| format!("cannot install the Ctrl-C handler: {e}"))?;
    loop {
        if rx.recv_timeout(Duration::from_millis(500)).is_ok() {
            println!("\nxtask: stopping");
            break;
        }
        stack.check_alive()?;
    }
    Ok(())
}

/// Builds the binaries and starts everything; dropping the stack stops it.
pub fn start(options: &StackOptions) -> Result<Stack, String> {
    println!("xtask: building stablepay-api and stablepay-worker");
    run_cmd(cargo().args(options.build))?;
    let bin = root().join("target/debug/stablepay-api");
    let worker_bin = root().join("target/debug/stablepay-worker");

    let anvil = tools::anvil()?;
    let pg = Postgres::provision(options.name)?;
    let chains = vec![chain::start(&anvil, 84532)?, chain::start(&anvil, 8453)?];
    for c in &chains {
        println!(
            "xtask: chain {} at {} (router {}, USDC {})",
            c.chain_id, c.rpc_url, c.checkout_router, c.usdc
        );
    }
    let chain_env: Vec<(String, String)> = chains
        .iter()
        .flat_map(|c| c.service_env())
        .chain(service_keys())
        .collect();
    let db = pg.database("stablepay")?;
    output(Command::new(&bin).arg("migrate").env("DATABASE_URL", &db))?;
    let merchants = seed::create_merchants(&bin, &db)?;

    // 8080 for `dev` when it is free; otherwise port 0, and the api says what it got.
    let bind = env_or("STABLEPAY_BIND", || {
        let free = options.name == "dev" && std::net::TcpListener::bind("127.0.0.1:8080").is_ok();
        if free {
            "127.0.0.1:8080"
        } else {
            "127.0.0.1:0"
        }
        .to_owned()
    });
    let secrets_key = env_or("STABLEPAY_SECRETS_KEY", || {
        let mut key = [0u8; 32];
        rand::thread_rng().fill_bytes(&mut key);
        base64::engine::general_purpose::STANDARD.encode(key)
    });
    let rate_limit: u32 = env_or("STABLEPAY_RATE_LIMIT_PER_MIN", || options.rate_limit.into())
        .parse()
        .map_err(|_| "STABLEPAY_RATE_LIMIT_PER_MIN must be a number")?;

    // Other STABLEPAY_* variables reach the processes through the inherited environment;
    // unset, the public URL is the address the api bound.
    let mut api_cmd = Command::new(&bin);
    api_cmd
        .envs(chain_env.iter().cloned())
        .arg("serve")
        .env(
            "STABLEPAY_LOG",
            env_or("STABLEPAY_LOG", || options.log.into()),
        )
        .env("DATABASE_URL", &db)
        .env("STABLEPAY_BIND", &bind)
        .env("STABLEPAY_SECRETS_KEY", &secrets_key)
        .env("STABLEPAY_RATE_LIMIT_PER_MIN", rate_limit.to_string())
        .env(
            "STABLEPAY_METRICS_BIND",
            env_or("STABLEPAY_API_METRICS_BIND", || options.api_metrics.into()),
        )
        .env(
            "STABLEPAY_ALLOW_PRIVATE_WEBHOOK_TARGETS",
            env_or("STABLEPAY_ALLOW_PRIVATE_WEBHOOK_TARGETS", || "true".into()),
        );
    let (child, api) = spawn_reporting(&mut api_cmd, "listening on ", true)?;
    let public_url = env_or("STABLEPAY_PUBLIC_URL", || api.clone());
    let mut processes = Processes(vec![("stablepay-api".into(), child)]);
    let backoff = env_or("STABLEPAY_WEBHOOK_BACKOFF_BASE", || "30s".into());
    let backoff_secs = stablepay_worker::config::parse_duration(&backoff)
        .ok_or("STABLEPAY_WEBHOOK_BACKOFF_BASE must be a duration such as 30s")?
        .as_secs();
    let worker = Command::new(&worker_bin)
        .envs(chain_env.iter().cloned())
        .env(
            "STABLEPAY_LOG",
            env_or("STABLEPAY_LOG", || options.log.into()),
        )
        .env("DATABASE_URL", &db)
        .env("STABLEPAY_SECRETS_KEY", &secrets_key)
        .env("STABLEPAY_WEBHOOK_BACKOFF_BASE", &backoff)
        .env(
            "STABLEPAY_METRICS_BIND",
            env_or("STABLEPAY_WORKER_METRICS_BIND", || {
                options.worker_metrics.into()
            }),
        )
        .env(
            "STABLEPAY_ALLOW_PRIVATE_WEBHOOK_TARGETS",
            env_or("STABLEPAY_ALLOW_PRIVATE_WEBHOOK_TARGETS", || "true".into()),
        )
        .spawn()
        .map_err(|e| format!("cannot start stablepay-worker: {e}"))?;
    processes.0.push(("stablepay-worker".into(), worker));

    seed::wait_healthy(&api, Duration::from_secs(30))?;
    let mut logins = Vec::new();
    for (i, m) in merchants.iter().enumerate() {
        seed::verify_wallet(&api, m)?;
        logins.push(seed::dashboard_user(&bin, &db, &public_url, m, i + 1)?);
    }
    Ok(Stack {
        processes,
        chains,
        pg,
        api,
        public_url,
        merchants,
        logins,
        rate_limit,
        backoff_secs,
        service_env: std::iter::once(("DATABASE_URL".to_owned(), db.clone()))
            .chain(chain_env)
            .collect(),
    })
}

/// Writes `env.json` (what the walk-through and a merchant's scripts read) and
/// `stablepay.env` into `dir`.
pub fn write_env_json(stack: &Stack, dir: &std::path::Path) -> Result<(), String> {
    let Stack {
        api,
        public_url,
        merchants,
        logins,
        chains,
        rate_limit,
        backoff_secs,
        service_env,
        ..
    } = stack;
    let database_url = service_env
        .iter()
        .find(|(k, _)| k == "DATABASE_URL")
        .map(|(_, v)| v.clone());
    let env = json!({
        "api_base": api,
        "database_url": database_url,
        "merchants": merchants.iter().zip(logins).map(|(m, login)| json!({
            "id": m.id,
            "name": m.name,
            "test_key": m.test_key,
            "live_key": m.live_key,
            "limited_test_key": m.limited_test_key,
            "wallet": { "address": m.wallet_address, "private_key": m.wallet_key },
            "dashboard": {
                "url": format!("{public_url}/dashboard"),
                "email": login.email,
                "password": login.password,
            },
        })).collect::<Vec<_>>(),
        "chains": chains.iter().map(|c| (c.chain_id.to_string(), c.to_json())).collect::<serde_json::Map<_, _>>(),
        "buyers": chain::BUYERS.iter().map(|i| json!({ "address": chain::address(*i), "private_key": chain::key(*i) })).collect::<Vec<_>>(),
        "config": {
            "webhook_backoff_base_seconds": backoff_secs,
            "confirmations": { "84532": confirmations(84532), "8453": confirmations(8453) },
            "intent_ttl_seconds": intent_ttl_seconds(),
            "plan_min_interval_seconds": duration_secs(&plan_min_interval()),
            "dunning_delays_seconds": dunning_delays()
                .split(',')
                .map(duration_secs)
                .collect::<Vec<_>>(),
            "rate_limit_per_min": rate_limit,
            "limited_test_key_per_min": seed::LIMITED_KEY_PER_MIN,
        },
    });
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let text = serde_json::to_string_pretty(&env).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("env.json"), text)
        .map_err(|e| format!("cannot write {}/env.json: {e}", dir.display()))?;
    // For `set -a; . target/dev/stablepay.env; set +a; stablepay-api doctor`.
    let lines: String = service_env
        .iter()
        .map(|(k, v)| format!("{k}={v}\n"))
        .collect();
    std::fs::write(dir.join("stablepay.env"), lines)
        .map_err(|e| format!("cannot write {}/stablepay.env: {e}", dir.display()))
}

fn print_banner(stack: &Stack) {
    let Stack {
        api,
        merchants,
        logins,
        ..
    } = stack;
    let throwaway_db = stack.throwaway_db();
    let key = merchants
        .first()
        .map(|m| m.test_key.as_str())
        .unwrap_or_default();
    println!();
    println!("stablepay is running at {api}");
    if throwaway_db {
        println!("(throwaway PostgreSQL: everything is deleted when you press Ctrl-C)");
    }
    println!("demo merchants, keys and wallets: target/dev/env.json");
    println!("metrics (default binds): http://127.0.0.1:9464/metrics (api), :9465 (worker)");
    println!();
    println!("Try it:");
    println!();
    println!("  curl -s {api}/api/v1/checkout/sessions \\");
    println!("    -H 'Authorization: Bearer {key}' \\");
    println!("    -H 'Content-Type: application/json' \\");
    println!("    -d '{{\"mode\":\"payment\",\"title\":\"Espresso beans\",\"amount\":\"12.50\"}}'");
    println!();
    for (m, login) in merchants.iter().zip(logins) {
        println!(
            "Dashboard of {}: {api}/dashboard  (email {}, password {})",
            m.name, login.email, login.password
        );
    }
    println!();
    println!("Press Ctrl-C to stop.");
}

/// Confirmation depth per dev chain unless STABLEPAY_CONFIRMATIONS_<chain> is given: 2 on
/// the test chain, so `pending` is visible in the walk-through (DESIGN §8); 1 on live.
fn confirmations(chain_id: u64) -> u64 {
    let default = if chain_id == 84532 { "2" } else { "1" };
    env_or(&format!("STABLEPAY_CONFIRMATIONS_{chain_id}"), || {
        default.into()
    })
    .trim()
    .parse()
    .unwrap_or(1)
    .max(1)
}

/// Plans may bill every minute on the dev stack (production default: 1 day).
fn plan_min_interval() -> String {
    env_or("STABLEPAY_PLAN_MIN_INTERVAL", || "60s".into())
}

/// A few seconds per dunning retry on the dev stack (production default: 1d,3d,5d).
fn dunning_delays() -> String {
    env_or("STABLEPAY_DUNNING_DELAYS", || "5s,5s,5s".into())
}

fn duration_secs(v: &str) -> u64 {
    stablepay_domain::parse_duration(v).map_or(0, |d| d.as_secs())
}

/// What the api uses for STABLEPAY_INTENT_TTL (D18), as the service parses it.
fn intent_ttl_seconds() -> u64 {
    std::env::var("STABLEPAY_INTENT_TTL")
        .ok()
        .and_then(|v| stablepay_domain::parse_duration(&v))
        .map_or(stablepay_domain::services::DEFAULT_INTENT_TTL_SECS, |d| {
            d.as_secs()
        })
}

/// The operator (EIP-712 intent signer), keeper and relayer keys of the dev chains (the
/// relayer shares the keeper's key and nonce sequence), and the depths.
fn service_keys() -> Vec<(String, String)> {
    // The dev feeds answer what they were last set to: a dev session runs for days
    // without the updates Chainlink publishes (D34), so each heartbeat is 30 days.
    let heartbeats = stablepay_domain::FeedPair::ALL.map(|pair| {
        let name = pair.heartbeat_variable();
        let value = env_or(&name, || "30d".into());
        (name, value)
    });
    vec![
        ("STABLEPAY_OPERATOR_KEY".into(), chain::key(chain::OPERATOR)),
        ("STABLEPAY_KEEPER_KEY".into(), chain::key(chain::KEEPER)),
        ("STABLEPAY_RELAYER_KEY".into(), chain::key(chain::KEEPER)),
        ("STABLEPAY_PLAN_MIN_INTERVAL".into(), plan_min_interval()),
        ("STABLEPAY_DUNNING_DELAYS".into(), dunning_delays()),
        (
            "STABLEPAY_CONFIRMATIONS_84532".into(),
            confirmations(84532).to_string(),
        ),
        (
            "STABLEPAY_CONFIRMATIONS_8453".into(),
            confirmations(8453).to_string(),
        ),
    ]
    .into_iter()
    .chain(heartbeats)
    .collect()
}
