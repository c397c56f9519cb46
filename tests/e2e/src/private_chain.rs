//! An anvil node of a test's own, loaded with the test chain's deployed state (same
//! contracts at the same addresses), for what would disturb the shared chain: reorgs
//! (`anvil_reorg`, `anvil_rollback`), a paused node (SIGSTOP), manual mining.

use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::{chain_info_of, test_env, ChainInfo, Proc};

pub struct PrivateChain {
    pub rpc: String,
    pub chain_id: u64,
    proc: Proc,
    http: reqwest::Client,
}

impl PrivateChain {
    /// Starts anvil (chain 84532) on a port it picks itself. `block_time`: `None` mines a
    /// block per transaction (automine), `Some(s)` one block every `s` seconds.
    pub async fn start(block_time: Option<u64>) -> Self {
        Self::start_on(84532, block_time).await
    }

    /// The same for the live chain (8453), where subscriptions run.
    pub async fn start_live(block_time: Option<u64>) -> Self {
        Self::start_on(8453, block_time).await
    }

    async fn start_on(chain_id: u64, block_time: Option<u64>) -> Self {
        let env = test_env();
        let anvil = env["anvil"].as_str().expect("chains.json names anvil");
        let mut cmd = Command::new(anvil);
        cmd.args(["--chain-id", &chain_id.to_string(), "--port", "0"]);
        if let Some(secs) = block_time {
            cmd.args(["--block-time", &secs.to_string()]);
        }
        let (proc, mut reported) =
            crate::spawn_reporting(cmd.stderr(Stdio::null()), &["Listening on "]);
        let addr = reported.remove(0);
        let chain = Self {
            rpc: format!("http://{addr}"),
            chain_id,
            proc,
            http: reqwest::Client::new(),
        };
        let state_path = env[format!("state_{chain_id}")]
            .as_str()
            .expect("chains.json has state");
        let state = std::fs::read_to_string(state_path).expect("read anvil state");
        chain.call("anvil_loadState", json!([state.trim()])).await;
        chain
    }

    /// The shared chain's addresses with this node's RPC URL.
    pub fn info(&self) -> ChainInfo {
        ChainInfo {
            rpc: self.rpc.clone(),
            ..chain_info_of(self.chain_id)
        }
    }

    /// A JSON-RPC call that must succeed; returns `result`.
    pub async fn call(&self, method: &str, params: Value) -> Value {
        let response: Value = self
            .http
            .post(&self.rpc)
            .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{method}: {e}"))
            .json()
            .await
            .unwrap_or_else(|e| panic!("{method}: {e}"));
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    pub async fn head(&self) -> u64 {
        let hex = self.call("eth_blockNumber", json!([])).await;
        u64::from_str_radix(hex.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
    }

    /// Mines `blocks` empty blocks now.
    pub async fn mine(&self, blocks: u64) {
        self.call("anvil_mine", json!([format!("0x{blocks:x}")]))
            .await;
    }

    /// The signed bytes of a mined transaction (to mine the same transaction again).
    pub async fn raw_transaction(&self, tx: &str) -> String {
        self.call("eth_getRawTransactionByHash", json!([tx]))
            .await
            .as_str()
            .expect("raw transaction")
            .to_owned()
    }

    /// SIGSTOP: the node stops answering (connections hang) until `resume`.
    pub fn pause(&self) {
        signal(self.proc.0.id(), "-STOP");
    }

    pub fn resume(&self) {
        signal(self.proc.0.id(), "-CONT");
    }
}

fn signal(pid: u32, sig: &str) {
    let status = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill {sig} {pid}");
}
