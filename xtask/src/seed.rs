//! Demo data for `cargo xtask dev`: two merchants with test and live keys and one
//! verified settlement wallet each (verified through the public API, by signing the
//! challenge exactly as a merchant's wallet would).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use stablepay_domain::rules::eip191;

use crate::util::output;

/// anvil's well-known development accounts #1 and #2 (never use them for real money).
pub const MERCHANT_WALLET_KEYS: [&str; 2] = [
    "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
];

/// Requests a minute of each merchant's `limited_test_key` (a minute's worth is its burst).
pub const LIMITED_KEY_PER_MIN: u32 = 30;

pub struct DemoMerchant {
    pub id: String,
    pub name: String,
    pub test_key: String,
    pub live_key: String,
    /// A second test key held to `LIMITED_KEY_PER_MIN`: for trying 429s and retries
    /// without waiting out the default budget (the SDKs' tests use it).
    pub limited_test_key: String,
    pub wallet_address: String,
    pub wallet_key: String,
}

fn cli_json(bin: &Path, db: &str, args: &[&str]) -> Result<Value, String> {
    let out = output(
        Command::new(bin)
            .args(args)
            .arg("--json")
            .env("DATABASE_URL", db),
    )?;
    serde_json::from_str(out.trim())
        .map_err(|e| format!("unexpected output from stablepay-api {args:?}: {e}"))
}

/// Creates the merchants and their keys with the operator CLI.
pub fn create_merchants(bin: &Path, db: &str) -> Result<Vec<DemoMerchant>, String> {
    let specs = [
        ("Demo Coffee Roasters", "standard"),
        ("Demo Games Studio", "growth"),
    ];
    let mut merchants = Vec::new();
    for ((name, tier), wallet_key) in specs.into_iter().zip(MERCHANT_WALLET_KEYS) {
        let m = cli_json(
            bin,
            db,
            &["merchants", "create", "--name", name, "--fee-tier", tier],
        )?;
        let id = m["id"].as_str().ok_or("merchant id missing")?.to_owned();
        let key = |mode: &str, limit: Option<u32>| -> Result<String, String> {
            let limit = limit.map(|n| n.to_string());
            let mut args = vec!["keys", "create", "--merchant", &id, "--mode", mode];
            if let Some(limit) = &limit {
                args.extend(["--rate-limit", limit.as_str()]);
            }
            let k = cli_json(bin, db, &args)?;
            k["secret"]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| "key secret missing".to_owned())
        };
        let mut raw = [0u8; 32];
        hex::decode_to_slice(wallet_key, &mut raw).map_err(|e| e.to_string())?;
        let address = eip191::address_of_private_key(&raw)
            .ok_or("bad demo key")?
            .to_string();
        merchants.push(DemoMerchant {
            test_key: key("test", None)?,
            live_key: key("live", None)?,
            limited_test_key: key("test", Some(LIMITED_KEY_PER_MIN))?,
            id,
            name: name.to_owned(),
            wallet_address: address,
            wallet_key: format!("0x{wallet_key}"),
        });
    }
    Ok(merchants)
}

pub fn wait_healthy(api: &str, timeout: Duration) -> Result<(), String> {
    let started = Instant::now();
    loop {
        if ureq::get(&format!("{api}/healthz")).call().is_ok() {
            return Ok(());
        }
        if started.elapsed() > timeout {
            return Err(format!(
                "the api did not become healthy at {api} within {timeout:?}"
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Registers the merchant's wallet and verifies it with an EIP-191 signature.
pub fn verify_wallet(api: &str, m: &DemoMerchant) -> Result<(), String> {
    let auth = format!("Bearer {}", m.live_key);
    let registered: Value = ureq::post(&format!("{api}/api/v1/wallets"))
        .set("Authorization", &auth)
        .send_json(json!({ "address": m.wallet_address }))
        .map_err(|e| format!("register wallet: {e}"))?
        .into_json()
        .map_err(|e| e.to_string())?;
    let id = registered["id"].as_str().ok_or("wallet id missing")?;
    let message = registered["verification"]["message"]
        .as_str()
        .ok_or("challenge missing")?;
    let mut key = [0u8; 32];
    hex::decode_to_slice(m.wallet_key.trim_start_matches("0x"), &mut key)
        .map_err(|e| e.to_string())?;
    let signature = eip191::sign(message.as_bytes(), &key).ok_or("signing failed")?;
    ureq::post(&format!("{api}/api/v1/wallets/{id}/verify"))
        .set("Authorization", &auth)
        .send_json(json!({ "signature": signature.to_hex() }))
        .map_err(|e| format!("verify wallet: {e}"))?;
    Ok(())
}

/// A dashboard login of a demo merchant (env.json's `dashboard`).
pub struct DashboardLogin {
    pub email: String,
    pub password: String,
}

/// Creates a dashboard user with the operator CLI and completes its setup link through
/// the real setup page, as the invited person would.
pub fn dashboard_user(
    bin: &Path,
    db: &str,
    api: &str,
    merchant: &DemoMerchant,
    n: usize,
) -> Result<DashboardLogin, String> {
    let email = format!("owner{n}@demo.example");
    let created = output(
        Command::new(bin)
            .args([
                "users",
                "create",
                "--merchant",
                &merchant.id,
                "--email",
                &email,
                "--json",
            ])
            .env("DATABASE_URL", db)
            .env("STABLEPAY_PUBLIC_URL", api),
    )?;
    let created: Value = serde_json::from_str(created.trim()).map_err(|e| e.to_string())?;
    let link = created["setup_url"].as_str().ok_or("setup_url missing")?;
    let page = ureq::get(link)
        .call()
        .map_err(|e| format!("setup page: {e}"))?;
    let cookie = page
        .header("set-cookie")
        .and_then(|c| c.split(';').next())
        .ok_or("the setup page set no cookie")?
        .to_owned();
    let html = page.into_string().map_err(|e| e.to_string())?;
    let marker = "name=\"csrf\" value=\"";
    let start = html.find(marker).ok_or("no csrf on the setup page")? + marker.len();
    let csrf = &html[start..start + 64];
    let mut bytes = [0u8; 12];
    rand::RngCore::fill_bytes(&mut rand::thread_rng(), &mut bytes);
    let password = format!("demo-{}", hex::encode(bytes));
    ureq::post(link)
        .set("Cookie", &cookie)
        .send_form(&[
            ("csrf", csrf),
            ("password", &password),
            ("confirm", &password),
        ])
        .map_err(|e| format!("setup: {e}"))?;
    Ok(DashboardLogin { email, password })
}
