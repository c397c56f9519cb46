//! One chain's RPC providers behind one JSON-RPC client (D27): `STABLEPAY_RPC_URL_<chain>`
//! may list several, in the operator's order of preference. A call goes to the first
//! provider that is usable and moves on to the next on a transport error, a timeout, an
//! unreadable answer, or a JSON-RPC error that is not an answer about the call itself (a
//! revert is an answer). A provider that failed rests for a while (doubling, at most
//! [`MAX_REST`]) before it is tried first again.
//!
//! A provider whose head lags the best head seen in the last [`HEAD_FRESHNESS`] by more
//! than the chain's confirmation depth is not used at all: a stuck node answers
//! `eth_getLogs` with nothing and receipts with `null`, and the watcher must never take
//! that for the chain's word. Heads are learned from `eth_blockNumber`: the answering
//! provider's at once, the others' by a probe sent alongside (never awaited). When no
//! provider is usable the call fails: unknown, never a verdict.
//!
//! Messages name providers by their position in the list ("provider 2 of 3"), never by
//! URL, which often carries an API key. Metrics per provider, labelled `chain` and
//! `provider` (the position): `stablepay_rpc_provider_calls_total{outcome}`,
//! `stablepay_rpc_provider_head`, `stablepay_rpc_provider_excluded` (1 while resting or
//! lagging), and `stablepay_rpc_failovers_total`.

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use ethers::providers::{Http, JsonRpcClient, JsonRpcError, ProviderError, RpcError};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::redact_urls;

/// How long a head reading counts towards the best head (a provider gone silent stops
/// holding the others to its last height).
pub const HEAD_FRESHNESS: Duration = Duration::from_secs(60);
/// The first rest after a failure; each further failure in a row doubles it.
pub const FIRST_REST: Duration = Duration::from_millis(500);
pub const MAX_REST: Duration = Duration::from_secs(30);
/// Other providers' heads are probed at most this often.
const PROBE_EVERY: Duration = Duration::from_millis(500);

/// The JSON-RPC client over one chain's providers. Cheap to clone (shared state).
#[derive(Clone)]
pub struct Failover {
    shared: Arc<Shared>,
}

struct Shared {
    chain: u64,
    endpoints: Vec<Endpoint>,
    /// Per attempt; a call may try every provider.
    timeout: Duration,
    lag_limit: std::sync::atomic::AtomicU64,
}

struct Endpoint {
    /// 1-based position in the configured list: the label in messages and metrics.
    position: usize,
    http: Http,
    health: Mutex<Health>,
}

#[derive(Default)]
struct Health {
    head: Option<(u64, Instant)>,
    resting_until: Option<Instant>,
    failures_in_a_row: u32,
    probed_at: Option<Instant>,
}

/// Why a call failed.
#[derive(Debug)]
pub enum FailoverError {
    /// A provider answered the call with a JSON-RPC error about the call (a revert).
    Answer(JsonRpcError),
    /// No usable provider answered; the text says what each did (URLs redacted).
    NoAnswer(String),
    /// The answer did not have the expected shape.
    Malformed(serde_json::Error),
}

impl fmt::Display for FailoverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Answer(e) => write!(f, "{e}"),
            Self::NoAnswer(why) => write!(f, "{why}"),
            Self::Malformed(e) => write!(f, "malformed answer: {e}"),
        }
    }
}

impl std::error::Error for FailoverError {}

impl RpcError for FailoverError {
    fn as_error_response(&self) -> Option<&JsonRpcError> {
        match self {
            Self::Answer(e) => Some(e),
            _ => None,
        }
    }

    fn as_serde_error(&self) -> Option<&serde_json::Error> {
        match self {
            Self::Malformed(e) => Some(e),
            _ => None,
        }
    }
}

impl From<FailoverError> for ProviderError {
    fn from(e: FailoverError) -> Self {
        ProviderError::JsonRpcClientError(Box::new(e))
    }
}

impl fmt::Debug for Failover {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // No URLs: they carry API keys.
        f.debug_struct("Failover")
            .field("chain", &self.shared.chain)
            .field("providers", &self.shared.endpoints.len())
            .finish_non_exhaustive()
    }
}

/// What one attempt at one provider came to.
enum Attempt {
    Answered(Value),
    /// An answer that is an error about the call itself: final, the provider is fine.
    Refused(JsonRpcError),
    /// The provider answered, but with an error about itself: try the next one.
    Declined(String),
    /// Transport error, timeout or unreadable answer: try the next one, rest this one.
    Failed(String),
}

impl Failover {
    /// `urls` is the configured list: comma-separated http(s) URLs, in order of preference.
    pub fn new(chain: u64, urls: &str, timeout: Duration) -> Result<Self, String> {
        let mut endpoints = Vec::new();
        for (i, url) in urls.split(',').map(str::trim).enumerate() {
            let http = Http::from_str(url)
                .map_err(|e| redact_urls(&format!("RPC URL {} for chain {chain}: {e}", i + 1)))?;
            endpoints.push(Endpoint {
                position: i + 1,
                http,
                health: Mutex::new(Health::default()),
            });
        }
        Ok(Self {
            shared: Arc::new(Shared {
                chain,
                endpoints,
                timeout,
                lag_limit: std::sync::atomic::AtomicU64::new(u64::MAX),
            }),
        })
    }

    /// Providers lagging the best head by more than `blocks` are not used (the chain's
    /// confirmation depth). Unset, no provider is excluded for lag.
    pub fn set_lag_limit(&self, blocks: u64) {
        self.shared
            .lag_limit
            .store(blocks, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn len(&self) -> usize {
        self.shared.endpoints.len()
    }

    pub fn is_empty(&self) -> bool {
        self.shared.endpoints.is_empty()
    }

    /// The provider at 1-based `position` alone, for checks of each one (doctor).
    pub fn only(&self, position: usize) -> Option<Http> {
        self.shared
            .endpoints
            .get(position.checked_sub(1)?)
            .map(|e| e.http.clone())
    }

    /// The order to try providers in now: usable ones in list order, then resting ones
    /// (a rest is a guess; better a late try than no answer). Lagging ones never.
    fn order(&self, now: Instant) -> Vec<usize> {
        let shared = &self.shared;
        let best = shared.best_head(now);
        let limit = shared.lag_limit.load(std::sync::atomic::Ordering::Relaxed);
        let mut usable = Vec::new();
        let mut resting = Vec::new();
        for (i, e) in shared.endpoints.iter().enumerate() {
            let health = e.health();
            let lagging = health.lags(best, limit, now);
            let rests = health.resting_until.is_some_and(|t| t > now);
            e.report_excluded(shared.chain, lagging || rests);
            match (lagging, rests) {
                (true, _) => {}
                (false, true) => resting.push(i),
                (false, false) => usable.push(i),
            }
        }
        usable.extend(resting);
        usable
    }

    async fn attempt(&self, i: usize, method: &str, params: &Value) -> Attempt {
        let e = &self.shared.endpoints[i];
        let call = JsonRpcClient::request::<&Value, Value>(&e.http, method, params);
        let outcome = match tokio::time::timeout(self.shared.timeout, call).await {
            Ok(Ok(value)) => Attempt::Answered(value),
            Ok(Err(err)) => match err.as_error_response() {
                Some(rpc) if is_about_the_call(rpc) => Attempt::Refused(rpc.clone()),
                Some(rpc) => Attempt::Declined(format!("{} {}", rpc.code, rpc.message)),
                None => Attempt::Failed(err.to_string()),
            },
            Err(_) => Attempt::Failed(format!("no answer within {:?}", self.shared.timeout)),
        };
        let chain = self.shared.chain;
        let outcome_label = match &outcome {
            Attempt::Answered(_) | Attempt::Refused(_) => "ok",
            Attempt::Declined(_) => "error",
            Attempt::Failed(_) => "failed",
        };
        metrics::counter!("stablepay_rpc_provider_calls_total",
            "chain" => chain.to_string(), "provider" => e.position.to_string(), "outcome" => outcome_label)
        .increment(1);
        let now = Instant::now();
        let mut health = e.health();
        match &outcome {
            Attempt::Failed(_) => health.failed(now),
            _ => health.answered(),
        }
        if let (Attempt::Answered(v), "eth_blockNumber") = (&outcome, method) {
            if let Some(head) = head_of(v) {
                health.head = Some((head, now));
                metrics::gauge!("stablepay_rpc_provider_head",
                    "chain" => chain.to_string(), "provider" => e.position.to_string())
                .set(head as f64);
            }
        }
        outcome
    }

    /// Reads the heads of the providers not asked this time, without waiting for them.
    fn probe_others(&self, asked: usize, now: Instant) {
        for (i, e) in self.shared.endpoints.iter().enumerate() {
            if i == asked {
                continue;
            }
            {
                let mut health = e.health();
                let recent = health
                    .probed_at
                    .is_some_and(|t| now.duration_since(t) < PROBE_EVERY);
                let rests = health.resting_until.is_some_and(|t| t > now);
                if recent || rests {
                    continue;
                }
                health.probed_at = Some(now);
            }
            let me = self.clone();
            tokio::spawn(async move {
                let _ = me
                    .attempt(i, "eth_blockNumber", &Value::Array(vec![]))
                    .await;
            });
        }
    }
}

impl Shared {
    fn best_head(&self, now: Instant) -> Option<u64> {
        self.endpoints
            .iter()
            .filter_map(|e| e.health().fresh_head(now))
            .max()
    }
}

impl Endpoint {
    fn health(&self) -> std::sync::MutexGuard<'_, Health> {
        self.health.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn report_excluded(&self, chain: u64, excluded: bool) {
        metrics::gauge!("stablepay_rpc_provider_excluded",
            "chain" => chain.to_string(), "provider" => self.position.to_string())
        .set(if excluded { 1.0 } else { 0.0 });
    }
}

impl Health {
    fn fresh_head(&self, now: Instant) -> Option<u64> {
        self.head
            .filter(|(_, at)| now.duration_since(*at) < HEAD_FRESHNESS)
            .map(|(h, _)| h)
    }

    fn lags(&self, best: Option<u64>, limit: u64, now: Instant) -> bool {
        match (self.fresh_head(now), best) {
            (Some(mine), Some(best)) => best.saturating_sub(mine) > limit,
            _ => false,
        }
    }

    fn failed(&mut self, now: Instant) {
        self.failures_in_a_row = self.failures_in_a_row.saturating_add(1);
        let doublings = self.failures_in_a_row.saturating_sub(1).min(16);
        let rest = FIRST_REST.saturating_mul(1 << doublings).min(MAX_REST);
        self.resting_until = Some(now + rest);
    }

    fn answered(&mut self) {
        self.failures_in_a_row = 0;
        self.resting_until = None;
    }
}

/// A JSON-RPC error that answers the call (the same from any provider): a revert, with
/// or without data. Anything else (rate limits, "header not found", internal errors) is
/// the provider's trouble, and the next one is asked.
fn is_about_the_call(e: &JsonRpcError) -> bool {
    e.code == 3 || e.as_revert_data().is_some() || e.message.to_lowercase().contains("revert")
}

fn head_of(v: &Value) -> Option<u64> {
    u64::from_str_radix(v.as_str()?.strip_prefix("0x")?, 16).ok()
}

#[async_trait]
impl JsonRpcClient for Failover {
    type Error = FailoverError;

    async fn request<T, R>(&self, method: &str, params: T) -> Result<R, Self::Error>
    where
        T: fmt::Debug + Serialize + Send + Sync,
        R: DeserializeOwned + Send,
    {
        let params = serde_json::to_value(params).map_err(FailoverError::Malformed)?;
        let now = Instant::now();
        let order = self.order(now);
        let total = self.shared.endpoints.len();
        let mut why = Vec::new();
        for (n, i) in order.iter().copied().enumerate() {
            if n > 0 {
                metrics::counter!("stablepay_rpc_failovers_total",
                    "chain" => self.shared.chain.to_string())
                .increment(1);
            }
            if method == "eth_blockNumber" {
                self.probe_others(i, now);
            }
            let position = self.shared.endpoints[i].position;
            match self.attempt(i, method, &params).await {
                Attempt::Answered(v) => {
                    return serde_json::from_value(v).map_err(FailoverError::Malformed)
                }
                Attempt::Refused(e) => return Err(FailoverError::Answer(e)),
                Attempt::Declined(w) | Attempt::Failed(w) => {
                    why.push(format!(
                        "provider {position} of {total}: {}",
                        redact_urls(&w)
                    ));
                }
            }
        }
        if why.is_empty() {
            why.push(format!(
                "all {total} providers lag the best head by more than the confirmation depth"
            ));
        }
        Err(FailoverError::NoAnswer(why.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn health(head: Option<u64>) -> Health {
        Health {
            head: head.map(|h| (h, Instant::now())),
            ..Health::default()
        }
    }

    #[test]
    fn a_provider_lags_only_beyond_the_limit_and_only_on_fresh_readings() {
        let now = Instant::now();
        assert!(!health(Some(98)).lags(Some(100), 2, now));
        assert!(health(Some(97)).lags(Some(100), 2, now));
        assert!(!health(None).lags(Some(100), 2, now));
        let stale = Health {
            head: Some((1, now - HEAD_FRESHNESS - Duration::from_secs(1))),
            ..Health::default()
        };
        assert!(!stale.lags(Some(100), 2, now));
    }

    #[test]
    fn rests_double_up_to_the_cap_and_end_on_an_answer() {
        let now = Instant::now();
        let mut h = Health::default();
        h.failed(now);
        assert_eq!(h.resting_until, Some(now + FIRST_REST));
        h.failed(now);
        assert_eq!(h.resting_until, Some(now + FIRST_REST * 2));
        for _ in 0..40 {
            h.failed(now);
        }
        assert_eq!(h.resting_until, Some(now + MAX_REST));
        h.answered();
        assert_eq!((h.resting_until, h.failures_in_a_row), (None, 0));
    }

    #[test]
    fn reverts_are_answers_and_provider_trouble_is_not() {
        let err = |code, message: &str| JsonRpcError {
            code,
            message: message.into(),
            data: None,
        };
        assert!(is_about_the_call(&err(3, "execution reverted")));
        assert!(is_about_the_call(&err(-32000, "execution reverted")));
        assert!(!is_about_the_call(&err(-32005, "rate limit exceeded")));
        assert!(!is_about_the_call(&err(-32000, "header not found")));
    }

    #[test]
    fn heads_are_read_from_hex_quantities_only() {
        assert_eq!(head_of(&Value::from("0x10")), Some(16));
        assert_eq!(head_of(&Value::from("16")), None);
        assert_eq!(head_of(&Value::Null), None);
    }
}
