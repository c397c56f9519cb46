//! A fault-injecting JSON-RPC proxy in front of anvil: the load-balanced, lagging, flaky
//! provider the service must survive. Receipts and blocks come back `null` (a node that
//! lags), calls fail with JSON-RPC errors or answer late (past the service's timeout),
//! and `eth_getLogs` over a wide range is refused as too large. It can also be down
//! (HTTP 503 with a load balancer's text body) or stuck at a block (a node that stopped
//! syncing: its head, blocks, receipts and logs end there).

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::net::TcpListener;

/// Fault rates in percent, per call.
#[derive(Debug, Clone, Copy, Default)]
pub struct Faults {
    /// `eth_getTransactionReceipt` and `eth_getBlockByNumber` answer `null`.
    pub null_percent: u64,
    /// Any call answers a JSON-RPC error.
    pub error_percent: u64,
    /// Any call answers after `delay` (longer than the service's RPC timeout).
    pub delay_percent: u64,
    pub delay: Duration,
    /// `eth_getLogs` over more blocks than this is refused.
    pub max_log_range: u64,
    /// Every call answers HTTP 503 with a text body.
    pub down: bool,
    /// The node stopped syncing at this block: nothing above it exists for it.
    pub stuck_at: Option<u64>,
    /// `eth_call`s to this contract answer a JSON-RPC error (one dependency's outage, the
    /// rest of the chain answering).
    pub fail_calls_to: Option<[u8; 20]>,
}

/// What the proxy did, for the test's report.
#[derive(Debug, Default)]
pub struct FaultCounts {
    pub calls: AtomicU64,
    pub nulls: AtomicU64,
    pub errors: AtomicU64,
    pub delays: AtomicU64,
    pub refused_ranges: AtomicU64,
    /// Calls answered 503 while down.
    pub downs: AtomicU64,
    /// Answers cut at the stuck block (a head, a block, a receipt or logs withheld).
    pub stuck_answers: AtomicU64,
}

pub struct FaultProxy {
    pub url: String,
    pub counts: Arc<FaultCounts>,
    state: Arc<State>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FaultProxy {
    /// A proxy that forwards faithfully until `inject` is called.
    pub async fn start(upstream: &str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let counts = Arc::new(FaultCounts::default());
        let state = Arc::new(State {
            upstream: upstream.to_owned(),
            faults: std::sync::Mutex::new(Faults {
                max_log_range: u64::MAX,
                ..Faults::default()
            }),
            counts: counts.clone(),
            http: reqwest::Client::new(),
            seed: AtomicU64::new(0x5eed),
        });
        let state_handle = state.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let state = state.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req| {
                        let state = state.clone();
                        async move { Ok::<_, Infallible>(state.handle(req).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Self {
            url,
            counts,
            state: state_handle,
            task,
        }
    }

    /// From now on, misbehave like this.
    pub fn inject(&self, faults: Faults) {
        *self.state.faults.lock().unwrap() = faults;
    }
}

struct State {
    upstream: String,
    faults: std::sync::Mutex<Faults>,
    counts: Arc<FaultCounts>,
    http: reqwest::Client,
    seed: AtomicU64,
}

impl State {
    /// A deterministic sequence of percentages (splitmix64), so runs are comparable.
    fn roll(&self) -> u64 {
        let mut z = self
            .seed
            .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed)
            .wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % 100
    }

    async fn handle(&self, req: Request<hyper::body::Incoming>) -> Response<Full<Bytes>> {
        let body = match req.into_body().collect().await {
            Ok(b) => b.to_bytes(),
            Err(_) => {
                return reply(
                    json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "bad body"}}),
                )
            }
        };
        let call: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let id = call["id"].clone();
        let method = call["method"].as_str().unwrap_or_default().to_owned();
        let faults = *self.faults.lock().unwrap();
        let c = &self.counts;
        c.calls.fetch_add(1, Ordering::Relaxed);
        let error = |message: &str| json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": message}});
        if faults.down {
            c.downs.fetch_add(1, Ordering::Relaxed);
            return Response::builder()
                .status(503)
                .header("content-type", "text/plain")
                .body(Full::new(Bytes::from_static(b"no healthy upstream")))
                .unwrap();
        }
        if let Some(target) = faults.fail_calls_to {
            let to = call["params"][0]["to"]
                .as_str()
                .and_then(|t| hex::decode(t.trim_start_matches("0x")).ok());
            if method == "eth_call" && to.as_deref() == Some(&target[..]) {
                c.errors.fetch_add(1, Ordering::Relaxed);
                return reply(error("execution timeout"));
            }
        }
        if let Some(stuck) = faults.stuck_at {
            if method == "eth_blockNumber" {
                c.stuck_answers.fetch_add(1, Ordering::Relaxed);
                return reply(json!({"jsonrpc": "2.0", "id": id, "result": format!("{stuck:#x}")}));
            }
        }
        if self.roll() < faults.delay_percent {
            c.delays.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(faults.delay).await;
        }
        if self.roll() < faults.error_percent {
            c.errors.fetch_add(1, Ordering::Relaxed);
            return reply(error("upstream temporarily unavailable"));
        }
        if method == "eth_getLogs" {
            let param = &call["params"][0];
            let block = |k: &str| {
                param[k]
                    .as_str()
                    .and_then(|h| u64::from_str_radix(h.trim_start_matches("0x"), 16).ok())
            };
            if let (Some(from), Some(to)) = (block("fromBlock"), block("toBlock")) {
                if to.saturating_sub(from) + 1 > faults.max_log_range {
                    c.refused_ranges.fetch_add(1, Ordering::Relaxed);
                    return reply(error("query exceeds the maximum block range"));
                }
            }
        }
        let lagging = matches!(
            method.as_str(),
            "eth_getTransactionReceipt" | "eth_getBlockByNumber"
        );
        if lagging && self.roll() < faults.null_percent {
            c.nulls.fetch_add(1, Ordering::Relaxed);
            return reply(json!({"jsonrpc": "2.0", "id": id, "result": null}));
        }
        let body = match (faults.stuck_at, method.as_str()) {
            // "latest" is the stuck block for a stuck node.
            (Some(stuck), "eth_getBlockByNumber") if call["params"][0] == "latest" => {
                let mut call = call.clone();
                call["params"][0] = json!(format!("{stuck:#x}"));
                Bytes::from(call.to_string())
            }
            _ => body,
        };
        match self
            .http
            .post(&self.upstream)
            .body(body)
            .header("content-type", "application/json")
            .send()
            .await
        {
            Ok(r) => match r.bytes().await {
                Ok(bytes) => match faults.stuck_at {
                    Some(stuck) => reply(self.cut_at(stuck, &method, &bytes)),
                    None => Response::builder()
                        .header("content-type", "application/json")
                        .body(Full::new(bytes))
                        .unwrap(),
                },
                Err(_) => reply(error("upstream body")),
            },
            Err(_) => reply(error("upstream unreachable")),
        }
    }

    /// What a node stuck at `stuck` would answer: blocks and receipts above it are
    /// unknown (`null`) and logs above it missing.
    fn cut_at(&self, stuck: u64, method: &str, bytes: &[u8]) -> Value {
        let mut answer: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
        let number = |v: &Value, key: &str| {
            v[key]
                .as_str()
                .and_then(|h| u64::from_str_radix(h.trim_start_matches("0x"), 16).ok())
        };
        let result = &mut answer["result"];
        let cut = match method {
            "eth_getBlockByNumber" | "eth_getBlockByHash" => {
                number(result, "number").is_some_and(|n| n > stuck)
            }
            "eth_getTransactionReceipt" => number(result, "blockNumber").is_some_and(|n| n > stuck),
            "eth_getLogs" => {
                if let Some(logs) = result.as_array_mut() {
                    let before = logs.len();
                    logs.retain(|l| number(l, "blockNumber").is_some_and(|n| n <= stuck));
                    if logs.len() < before {
                        self.counts.stuck_answers.fetch_add(1, Ordering::Relaxed);
                    }
                }
                false
            }
            _ => false,
        };
        if cut {
            self.counts.stuck_answers.fetch_add(1, Ordering::Relaxed);
            *result = Value::Null;
        }
        answer
    }
}

fn reply(v: Value) -> Response<Full<Bytes>> {
    Response::builder()
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(v.to_string())))
        .unwrap()
}
