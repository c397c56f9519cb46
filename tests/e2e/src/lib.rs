//! Harness for end-to-end tests: a fresh database, the real `stablepay-api` and
//! `stablepay-worker` processes wired to the anvil chains `cargo xtask test` started, and
//! buyers that act on-chain exactly as in production (approve + router.pay).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod process;
pub use process::{poll, spawn_reporting, Proc};
use process::{LISTENING, OPERATOR};
mod chain_client;
pub use chain_client::*;
pub mod browser;
mod fault_proxy;
pub mod one_signature;
pub mod price_feeds;
mod private_chain;
pub mod receiver;
pub mod relaying;
pub mod screening;
pub mod subscriptions;
pub mod x402;

pub use fault_proxy::{FaultCounts, FaultProxy, Faults};
pub use private_chain::PrivateChain;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use ethers::middleware::SignerMiddleware;
use ethers::providers::{Http, Provider};
use ethers::signers::LocalWallet;
use serde_json::{json, Value};
use stablepay_domain::rules::eip191;
use stablepay_domain::{FeeTier, MerchantId, Mode};
use stablepay_postgres::testing::fresh_store;
use stablepay_postgres::PgStore;

pub type Client = SignerMiddleware<Provider<Http>, LocalWallet>;

pub const SECRETS_KEY: [u8; 32] = [3u8; 32];

#[derive(Debug, Clone)]
pub struct ChainInfo {
    pub chain_id: u64,
    pub rpc: String,
    pub usdc: String,
    pub usdt: String,
    pub eurc: String,
    /// The dev price feeds by pair.
    pub price_feeds: Vec<(stablepay_domain::FeedPair, String)>,
    pub router: String,
    pub treasury: String,
    pub subscription_manager: String,
    pub deposit_factory: String,
    pub operator_key: String,
    pub keeper_key: String,
}

/// What `cargo xtask test` wrote to `target/test/chains.json`.
pub fn test_env() -> Value {
    let path = std::env::var("STABLEPAY_TEST_CHAINS")
        .expect("STABLEPAY_TEST_CHAINS is not set: run the tests through `cargo xtask test`");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The ERC-1271 test wallet deployed and funded on `chain_id`: its address and its owner's
/// private key.
pub fn smart_wallet(chain_id: u64) -> (String, [u8; 32]) {
    let env = test_env();
    let wallet = &env["chains"][chain_id.to_string()]["smart_wallet"];
    let owner_key = hex::decode(
        wallet["owner_private_key"]
            .as_str()
            .unwrap()
            .trim_start_matches("0x"),
    )
    .unwrap()
    .try_into()
    .unwrap();
    (wallet["address"].as_str().unwrap().to_owned(), owner_key)
}

pub fn chain_info() -> ChainInfo {
    chain_info_of(84532)
}

/// The live chain (8453): subscriptions are live-mode only.
pub fn live_chain_info() -> ChainInfo {
    chain_info_of(8453)
}

pub fn chain_info_of(chain_id: u64) -> ChainInfo {
    let env = test_env();
    let c = &env["chains"][chain_id.to_string()];
    let s = |v: &Value| v.as_str().unwrap().to_owned();
    ChainInfo {
        chain_id,
        rpc: s(&c["rpc_url"]),
        usdc: s(&c["usdc"]),
        usdt: s(&c["usdt"]),
        eurc: s(&c["eurc"]),
        price_feeds: c["price_feeds"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (stablepay_domain::FeedPair::parse(k).expect("a pair"), s(v)))
                    .collect()
            })
            .unwrap_or_default(),
        router: s(&c["checkout_router"]),
        treasury: s(&c["treasury"]),
        subscription_manager: s(&c["subscription_manager"]),
        deposit_factory: s(&c["deposit_factory"]),
        operator_key: s(&env["operator_private_key"]),
        keeper_key: s(&env["keeper_private_key"]),
    }
}

fn binary(name: &str) -> PathBuf {
    // target/debug/deps/<test> → target/debug/<name>
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|d| d.parent()).unwrap();
    let bin = dir.join(name);
    assert!(
        bin.exists(),
        "{} is missing: `cargo xtask test` builds it (cargo build -p {name})",
        bin.display()
    );
    bin
}

/// How a stack is wired to its chain.
#[derive(Debug, Clone)]
pub struct StackOptions {
    /// The chain the test's buyers use (the shared test chain by default).
    pub chain: ChainInfo,
    /// Where the service's RPC calls go, when not to `chain.rpc` (a fault proxy).
    pub service_rpc: Option<String>,
    /// Confirmation depth of the test chain: at least 2 wherever depth matters.
    pub confirmations: u64,
    /// Extra `STABLEPAY_*` variables for both processes.
    pub env: Vec<(String, String)>,
}

impl Default for StackOptions {
    fn default() -> Self {
        Self {
            chain: chain_info(),
            service_rpc: None,
            confirmations: 2,
            env: Vec::new(),
        }
    }
}

impl StackOptions {
    pub fn on(chain: &PrivateChain) -> Self {
        Self {
            chain: chain.info(),
            ..Self::default()
        }
    }
}

pub struct Stack {
    pub api: String,
    pub store: PgStore,
    pub db_url: String,
    pub merchant: MerchantId,
    pub key: String,
    pub chain: ChainInfo,
    pub http: reqwest::Client,
    options: StackOptions,
    api_proc: Option<Proc>,
    pub worker: Option<Proc>,
}

impl Stack {
    fn env(&self) -> Vec<(String, String)> {
        let c = &self.chain;
        let rpc = self
            .options
            .service_rpc
            .clone()
            .unwrap_or_else(|| c.rpc.clone());
        let id = c.chain_id;
        let mut env = vec![
            ("DATABASE_URL".into(), self.db_url.clone()),
            (
                "STABLEPAY_SECRETS_KEY".into(),
                base64::engine::general_purpose::STANDARD.encode(SECRETS_KEY),
            ),
            (format!("STABLEPAY_RPC_URL_{id}"), rpc),
            (format!("STABLEPAY_TOKEN_USDC_{id}"), c.usdc.clone()),
            (format!("STABLEPAY_CHECKOUT_ROUTER_{id}"), c.router.clone()),
            (format!("STABLEPAY_TREASURY_{id}"), c.treasury.clone()),
            (
                format!("STABLEPAY_SUBSCRIPTION_MANAGER_{id}"),
                c.subscription_manager.clone(),
            ),
            (
                format!("STABLEPAY_CONFIRMATIONS_{id}"),
                self.options.confirmations.to_string(),
            ),
            ("STABLEPAY_OPERATOR_KEY".into(), c.operator_key.clone()),
            ("STABLEPAY_KEEPER_KEY".into(), c.keeper_key.clone()),
            // The relayer shares the keeper's key, and so its nonce sequence (D26).
            ("STABLEPAY_RELAYER_KEY".into(), c.keeper_key.clone()),
            (format!("STABLEPAY_TOKEN_USDT_{id}"), c.usdt.clone()),
            (format!("STABLEPAY_TOKEN_EURC_{id}"), c.eurc.clone()),
            // The shared dev feeds were set when the chains started: a day, not the
            // published hour, before EUR/USD counts as stale here.
            ("STABLEPAY_PRICE_FEED_HEARTBEAT_EUR_USD".into(), "1d".into()),
            (
                format!("STABLEPAY_DEPOSIT_FACTORY_{id}"),
                c.deposit_factory.clone(),
            ),
            (
                "STABLEPAY_ALLOW_PRIVATE_WEBHOOK_TARGETS".into(),
                "true".into(),
            ),
            ("STABLEPAY_CHAIN_POLL".into(), "300ms".into()),
            ("STABLEPAY_RATE_LIMIT_PER_MIN".into(), "100000".into()),
            ("STABLEPAY_LOG".into(), "error".into()),
        ];
        env.extend(
            c.price_feeds
                .iter()
                .map(|(pair, feed)| (pair.feed_variable(id), feed.clone())),
        );
        env.extend(self.options.env.iter().cloned());
        env
    }

    /// The service on the shared test chain at a depth of 2, with a funded relayer (and
    /// sweeper) key nobody else uses: stacks running at once (tests, and test binaries, in
    /// parallel) that sent with one shared key would race for its nonces.
    pub async fn start() -> Self {
        let key: [u8; 32] = rand::random();
        client_for(&chain_info(), &key).await;
        Self::start_with(StackOptions {
            env: vec![(
                "STABLEPAY_RELAYER_KEY".into(),
                format!("0x{}", hex::encode(key)),
            )],
            ..StackOptions::default()
        })
        .await
    }

    pub async fn start_with(options: StackOptions) -> Self {
        let (store, db_url) = fresh_store().await;
        let merchant = store
            .create_merchant("E2E", FeeTier::Standard)
            .await
            .unwrap()
            .id;
        // Keys of the stack's chain: live on Base (8453), test on Base Sepolia.
        let mode = if options.chain.chain_id == 8453 {
            Mode::Live
        } else {
            Mode::Test
        };
        let key = store
            .create_api_key(merchant, mode, None)
            .await
            .unwrap()
            .secret;
        let mut stack = Stack {
            api: String::new(),
            store,
            db_url,
            merchant,
            key,
            chain: options.chain.clone(),
            // Idle connections are dropped before the api's keep-alive (5 s) closes them: a
            // request sent on one the server is closing fails with IncompleteMessage (seen
            // after a browser test's pause).
            http: reqwest::Client::builder()
                .pool_idle_timeout(Duration::from_secs(2))
                .build()
                .unwrap(),
            options,
            api_proc: None,
            worker: None,
        };
        let (proc, mut reported) = stack.api_process(&[], &[LISTENING]).await;
        stack.api_proc = Some(proc);
        stack.api = reported.remove(0);
        stack.start_worker();
        stack
    }

    pub fn start_worker(&mut self) {
        let proc = Command::new(binary("stablepay-worker"))
            .envs(self.env())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        self.worker = Some(Proc(proc));
    }

    /// One more worker process on the same database and chain (killed when dropped).
    pub fn spawn_worker(&self) -> Proc {
        let proc = Command::new(binary("stablepay-worker"))
            .envs(self.env())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        Proc(proc)
    }

    /// Runs `stablepay-api <args>` (or the worker, for `worker`) on this stack's
    /// configuration with `extra` variables on top, and waits (20 s at most) for it to
    /// exit: (success, stdout, stderr).
    pub fn run_to_exit(
        &self,
        bin: &str,
        args: &[&str],
        extra: &[(&str, String)],
    ) -> (bool, String, String) {
        let mut child = Command::new(binary(bin))
            .args(args)
            .envs(self.env())
            .envs(extra.iter().map(|(k, v)| (k.to_string(), v.clone())))
            .env("STABLEPAY_BIND", "127.0.0.1:0")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > Duration::from_secs(20) {
                child.kill().ok();
                panic!("{bin} {args:?} did not exit within 20 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let output = child.wait_with_output().unwrap();
        (
            status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// One more api process on the same database (killed when dropped), with extra
    /// variables; returns it and its base URL.
    pub async fn spawn_api(&self, extra: &[(&str, String)]) -> (Proc, String) {
        let (proc, mut reported) = self.api_process(extra, &[LISTENING]).await;
        (proc, reported.remove(0))
    }

    /// Like `spawn_api`, with operator endpoints too: returns their address (host:port).
    pub async fn spawn_api_with_metrics(&self, extra: &[(&str, String)]) -> (Proc, String, String) {
        let mut extra = extra.to_vec();
        extra.push(("STABLEPAY_METRICS_BIND", "127.0.0.1:0".into()));
        let (proc, mut reported) = self.api_process(&extra, &[LISTENING, OPERATOR]).await;
        let metrics = reported.remove(1);
        (
            proc,
            reported.remove(0),
            metrics.trim_start_matches("http://").to_owned(),
        )
    }

    /// An api on this stack's database and chain, healthy; what it reported for `labels`.
    async fn api_process(&self, extra: &[(&str, String)], labels: &[&str]) -> (Proc, Vec<String>) {
        let (proc, reported) = spawn_reporting(
            Command::new(binary("stablepay-api"))
                .arg("serve")
                .envs(self.env())
                .envs(extra.iter().map(|(k, v)| (k.to_string(), v.clone())))
                .env("STABLEPAY_BIND", "127.0.0.1:0"),
            labels,
        );
        let url = reported[0].clone();
        let http = &self.http;
        let healthy = poll(Duration::from_secs(20), || async {
            http.get(format!("{url}/healthz")).send().await.ok()
        })
        .await;
        assert!(healthy.is_some(), "the api at {url} did not start");
        (proc, reported)
    }

    /// One more worker with operator endpoints (killed when dropped) and their address.
    pub fn spawn_worker_with_metrics(&self) -> (Proc, String) {
        let (proc, mut reported) = spawn_reporting(
            Command::new(binary("stablepay-worker"))
                .envs(self.env())
                .env("STABLEPAY_METRICS_BIND", "127.0.0.1:0"),
            &[OPERATOR],
        );
        (
            proc,
            reported.remove(0).trim_start_matches("http://").to_owned(),
        )
    }

    pub fn kill_worker(&mut self) {
        self.worker = None;
    }

    /// Stops the api and the worker and starts both again on the stack's configuration as
    /// it is now (after a test changed `chain`, as an operator changes variables).
    pub async fn restart(&mut self) {
        self.worker = None;
        self.api_proc = None;
        let (proc, mut reported) = self.api_process(&[], &[LISTENING]).await;
        self.api_proc = Some(proc);
        self.api = reported.remove(0);
        self.start_worker();
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}{path}", self.api))
            .bearer_auth(&self.key)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str) -> Value {
        self.get_raw(path).await.json().await.unwrap()
    }

    /// GET with the stack's key, the response as it came (a non-JSON body, headers).
    pub async fn get_raw(&self, path: &str) -> reqwest::Response {
        self.http
            .get(format!("{}{path}", self.api))
            .bearer_auth(&self.key)
            .send()
            .await
            .unwrap()
    }

    /// Registers and verifies a fresh settlement wallet; returns (address, key).
    pub async fn fresh_verified_wallet(&self) -> (String, [u8; 32]) {
        let key: [u8; 32] = rand::random();
        let address = eip191::address_of_private_key(&key).unwrap().to_string();
        let (_, w) = self
            .post("/api/v1/wallets", json!({ "address": address }))
            .await;
        let sig = eip191::sign(
            w["verification"]["message"].as_str().unwrap().as_bytes(),
            &key,
        )
        .unwrap()
        .to_hex();
        let (status, _) = self
            .post(
                &format!("/api/v1/wallets/{}/verify", w["id"].as_str().unwrap()),
                json!({ "signature": sig }),
            )
            .await;
        assert_eq!(status, 200);
        (address, key)
    }

    /// Polls GET session until `status` or the timeout.
    pub async fn wait_for_session(&self, id: &str, status: &str, timeout: Duration) -> Value {
        let started = Instant::now();
        loop {
            let s = self.get(&format!("/api/v1/checkout/sessions/{id}")).await;
            if s["status"] == status || started.elapsed() > timeout {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

impl Stack {
    /// The payments recorded for a session.
    pub async fn payments_of(&self, session: &str) -> Vec<Value> {
        self.get(&format!(
            "/api/v1/payments?checkout_session={session}&limit=100"
        ))
        .await["data"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Every webhook event record of `event_type` (all pages).
    pub async fn events_of_type(&self, event_type: &str) -> Vec<Value> {
        let mut all = Vec::new();
        let mut after = String::new();
        loop {
            let page = self
                .get(&format!(
                    "/api/v1/webhook_events?type={event_type}&limit=100{after}"
                ))
                .await;
            let data = page["data"].as_array().cloned().unwrap_or_default();
            if let Some(last) = data.last() {
                after = format!("&starting_after={}", last["id"].as_str().unwrap());
            }
            all.extend(data);
            if page["has_more"] != true {
                return all;
            }
        }
    }

    /// A webhook endpoint, so every event is recorded (its deliveries never succeed).
    pub async fn record_events(&self) {
        let (status, _) = self
            .post(
                "/api/v1/webhook_endpoints",
                json!({ "url": "http://localhost:9/unused" }),
            )
            .await;
        assert_eq!(status, 201);
    }

    /// A new payment session of `amount`; returns its id.
    pub async fn open_session(&self, amount: &str) -> String {
        let (status, session) = self
            .post(
                "/api/v1/checkout/sessions",
                json!({ "mode": "payment", "title": "Order", "amount": amount }),
            )
            .await;
        assert_eq!(status, 201, "{session}");
        session["id"].as_str().unwrap().to_owned()
    }

    /// GET /pay/:id/intent: (status, body).
    pub async fn intent(&self, session: &str) -> (u16, Value) {
        let r = self
            .http
            .get(format!("{}/pay/{session}/intent", self.api))
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }

    /// POST /pay/:id/confirm: (status, Retry-After, body).
    pub async fn confirm(&self, session: &str, tx: &str) -> (u16, Option<String>, Value) {
        let r = self
            .http
            .post(format!("{}/pay/{session}/confirm", self.api))
            .json(&json!({ "tx_hash": tx }))
            .send()
            .await
            .unwrap();
        let retry = r
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        (
            r.status().as_u16(),
            retry,
            r.json().await.unwrap_or(Value::Null),
        )
    }
}
