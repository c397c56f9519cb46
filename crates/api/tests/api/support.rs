//! `spawn_app`: the real API on 127.0.0.1:0 over a fresh, migrated database.

use std::net::TcpListener;

use reqwest::{Client, Response};
use serde_json::Value;
use stablepay_api::state_from_store;
use stablepay_domain::deployment::TokenDirectory;
use stablepay_domain::ports::AdjustableClock;
use stablepay_domain::rules::eip191;
use stablepay_domain::{Address, ChainId, Currency, FeeTier, MerchantId, Mode};
use stablepay_postgres::testing::fresh_store;
use stablepay_postgres::PgStore;

pub struct Merchant {
    pub id: MerchantId,
    pub test_key: String,
    pub live_key: String,
}

pub struct TestApp {
    pub base: String,
    pub client: Client,
    pub store: PgStore,
    /// The api's clock: `advance` it to expire sessions and challenges.
    pub clock: std::sync::Arc<AdjustableClock>,
    pub a: Merchant,
    pub b: Merchant,
}

pub const WALLET_KEY: [u8; 32] = [0x11; 32];
pub const WALLET_KEY_2: [u8; 32] = [0x22; 32];

pub fn usdt_test() -> Address {
    Address::from_bytes([0x77; 20])
}

async fn merchant(store: &PgStore, name: &str, tier: FeeTier) -> Merchant {
    let m = store.create_merchant(name, tier).await.expect("merchant");
    let test_key = store
        .create_api_key(m.id, Mode::Test, None)
        .await
        .expect("test key")
        .secret;
    let live_key = store
        .create_api_key(m.id, Mode::Live, None)
        .await
        .expect("live key")
        .secret;
    Merchant {
        id: m.id,
        test_key,
        live_key,
    }
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with_rate_limit(10_000).await
}

pub async fn spawn_app_with_rate_limit(per_min: u32) -> TestApp {
    spawn_app_with_limits(stablepay_api::Limits {
        per_key_per_min: per_min,
        trusted_proxies: Default::default(),
    })
    .await
}

pub async fn spawn_app_with_limits(limits: stablepay_api::Limits) -> TestApp {
    let (store, _url) = fresh_store().await;
    let a = merchant(&store, "Merchant A", FeeTier::Standard).await;
    let b = merchant(&store, "Merchant B", FeeTier::Growth).await;
    let tokens = TokenDirectory::new()
        .with(
            ChainId::Base,
            Currency::Usdc,
            Address::parse("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913").expect("addr"),
        )
        .with(
            ChainId::BaseSepolia,
            Currency::Usdc,
            Address::parse("0x036CbD53842c5426634e7929541eC2318f3dCF7e").expect("addr"),
        )
        .with(ChainId::BaseSepolia, Currency::Usdt, usdt_test());
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let chain = stablepay_evm::EvmChain::new(&test_chain_rpc(), std::time::Duration::from_secs(2))
        .expect("chain");
    let chain = stablepay_api::ChainSettings {
        reader: std::sync::Arc::new(chain),
        contracts: Default::default(),
        operator_key: None,
        relayer: None,
        intent_ttl_secs: stablepay_domain::services::DEFAULT_INTENT_TTL_SECS,
        plan_min_interval_secs: 86_400,
        screening: stablepay_domain::services::PayerScreening::none(),
        price_feeds: Default::default(),
    };
    let clock = std::sync::Arc::new(AdjustableClock::default());
    let state = state_from_store(
        store.clone(),
        chain,
        tokens,
        "https://pay.example".into(),
        limits,
        stablepay_domain::rules::dashboard_auth::SessionPolicy::default(),
        clock.clone(),
    );
    let server = stablepay_api::app::serve(listener, state, 1).expect("serve");
    tokio::spawn(server);
    TestApp {
        base,
        client: Client::new(),
        store,
        clock,
        a,
        b,
    }
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}/api/v1{path}", self.base)
    }

    pub async fn post(&self, key: &str, path: &str, body: Value) -> Response {
        self.client
            .post(self.url(path))
            .bearer_auth(key)
            .json(&body)
            .send()
            .await
            .expect("request")
    }

    pub async fn get(&self, key: &str, path: &str) -> Response {
        self.client
            .get(self.url(path))
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    pub async fn delete(&self, key: &str, path: &str) -> Response {
        self.client
            .delete(self.url(path))
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    /// Registers the wallet of `private_key` for the key's merchant; returns the wallet
    /// resource with its verification challenge.
    pub async fn registered_wallet(&self, key: &str, private_key: &[u8; 32]) -> Value {
        let address = eip191::address_of_private_key(private_key)
            .expect("key")
            .to_string();
        self.post(key, "/wallets", serde_json::json!({ "address": address }))
            .await
            .json()
            .await
            .expect("json")
    }

    /// Registers and verifies a wallet for the key's merchant; returns its address.
    pub async fn verified_wallet(&self, key: &str, private_key: &[u8; 32]) -> String {
        let reg = self.registered_wallet(key, private_key).await;
        let address = eip191::address_of_private_key(private_key)
            .expect("key")
            .to_string();
        let message = reg["verification"]["message"].as_str().expect("challenge");
        let sig = eip191::sign(message.as_bytes(), private_key)
            .expect("sign")
            .to_hex();
        let id = reg["id"].as_str().expect("id");
        let res = self
            .post(
                key,
                &format!("/wallets/{id}/verify"),
                serde_json::json!({ "signature": sig }),
            )
            .await;
        assert_eq!(
            res.status(),
            200,
            "verify: {}",
            res.text().await.unwrap_or_default()
        );
        address
    }

    /// A webhook endpoint for `https://m.example/h`: its resource and its id.
    pub async fn webhook_endpoint(
        &self,
        key: &str,
    ) -> (Value, stablepay_domain::WebhookEndpointId) {
        let ep: Value = self
            .post(
                key,
                "/webhook_endpoints",
                serde_json::json!({ "url": "https://m.example/h" }),
            )
            .await
            .json()
            .await
            .expect("json");
        let id = stablepay_domain::WebhookEndpointId::parse(ep["id"].as_str().expect("id"))
            .expect("endpoint id");
        (ep, id)
    }

    pub async fn create_session(&self, key: &str, body: Value) -> Value {
        let res = self.post(key, "/checkout/sessions", body).await;
        assert_eq!(res.status(), 201);
        res.json().await.expect("json")
    }
}

/// Asserts the spec's error envelope and returns it.
pub async fn assert_error(res: Response, status: u16, code: &str) -> Value {
    assert_eq!(res.status().as_u16(), status, "unexpected status");
    assert!(
        res.headers().get("request-id").is_some(),
        "every response carries Request-Id"
    );
    let body: Value = res.json().await.expect("error bodies are JSON");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(
        body["error"]["type"], code,
        "type is the deprecated alias of code"
    );
    assert!(body["error"]["message"]
        .as_str()
        .is_some_and(|m| !m.is_empty()));
    body
}

/// The fields named in an error's details.
pub fn detail_fields(body: &Value) -> Vec<String> {
    body["error"]["details"]
        .as_array()
        .map(|d| {
            d.iter()
                .filter_map(|x| x["field"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The dev chain `cargo xtask test` started, if any (for ERC-1271 checks).
pub fn test_chains() -> Option<serde_json::Value> {
    let path = std::env::var("STABLEPAY_TEST_CHAINS").ok()?;
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

fn test_chain_rpc() -> Vec<(ChainId, String)> {
    test_chains()
        .and_then(|env| {
            env["chains"]["8453"]["rpc_url"]
                .as_str()
                .map(|u| vec![(ChainId::Base, u.to_owned())])
        })
        .unwrap_or_default()
}
