//! `cargo xtask bench settlement --x402`: agents paying checkout sessions over x402 (D29).
//! A release api (one relayer key) and worker on a local anvil chain (1 s blocks, depth
//! 2, `BENCH_DEPTH`): `BENCH_PAYMENTS` (1,000) sessions created over the API, what each
//! asks read from its 402, then each paid by one `GET /x402/{id}` carrying a
//! `PAYMENT-SIGNATURE`, `BENCH_CONCURRENCY` (64) agents at once. Every tenth session also
//! gets a rival signature from another payer, sent beside the first. An answer
//! `settlement_pending` (inclusion slower than the api waits) is sent again, as the SDK
//! does, its latency counted from the first send. Reports request-to-200 p50/p99 (the 200
//! waits for the transfer's inclusion), x402 payments per minute, and that each session was
//! settled exactly once: one 200, one authorization used on chain (the token's
//! `authorizationState` of every nonce sent), one relayed transfer, one transfer seen at its
//! deposit address, one payment, and the session completed by the worker. Any session paid
//! twice or not at all fails the bench.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{json, Value};
use stablepay_domain::rules::eip191;
use stablepay_domain::rules::x402::{PaymentPayload, Requirements};
use stablepay_domain::{Address, Timestamp};
use stablepay_postgres::{PgStore, PoolConfig, SecretCipher};
use tokio::net::TcpStream;

use crate::bench::{env_number, percentile, ChainBench, Workers};
use crate::bench_settlement::store_count;
use crate::chain::{self, rpc};
use crate::load::{api_command, exchange, spawn_listening, API_SECRETS_KEY};
use crate::seed;
use crate::util::{output, root};

/// One paying request: the session it pays (an index), the authorization it carries and
/// the request's bytes.
struct Paying {
    session: usize,
    rival: bool,
    payer: Address,
    nonce: [u8; 32],
    request: Vec<u8>,
}

/// FiatToken's `authorizationState(address,bytes32)`: whether a nonce was used.
const AUTHORIZATION_STATE: [u8; 4] = [0xe9, 0x4a, 0x01, 0x02];
/// How long a bench request may take before it counts as unanswered (the api waits 30 s
/// for inclusion).
const ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// What one paying request got: status, the 402's `error`, and its latency.
struct Answer {
    session: usize,
    rival: bool,
    status: u16,
    error: Option<String>,
    ms: f64,
}

pub fn run() -> Result<(), String> {
    let total: usize = env_number("BENCH_PAYMENTS", 1000);
    let agents: usize = env_number("BENCH_CONCURRENCY", 64usize).max(1);
    let depth: u64 = env_number("BENCH_DEPTH", 2u64).max(1);
    let rig =
        ChainBench::start_building(&["stablepay-api", "stablepay-worker"], 84532, "bench_x402")?;
    let bin = root().join("target/release/stablepay-api");
    output(
        std::process::Command::new(&bin)
            .arg("migrate")
            .env("DATABASE_URL", &rig.setup.db),
    )?;
    let merchant = seed::create_merchants(&bin, &rig.setup.db)?
        .into_iter()
        .next()
        .ok_or("no merchant")?;
    // The api and worker as `xtask dev` runs them: the relayer shares the keeper's key.
    let mut services = vec![
        (
            "STABLEPAY_OPERATOR_KEY".to_owned(),
            chain::key(chain::OPERATOR),
        ),
        ("STABLEPAY_KEEPER_KEY".to_owned(), chain::key(chain::KEEPER)),
        (
            "STABLEPAY_RELAYER_KEY".to_owned(),
            chain::key(chain::KEEPER),
        ),
        (
            "STABLEPAY_CONFIRMATIONS_84532".to_owned(),
            depth.to_string(),
        ),
    ];
    services.extend(rig.dev.service_env());
    let (api_proc, api) = spawn_listening(api_command(&bin, &rig.setup.db).envs(services.clone()))?;
    let mut processes = Workers(vec![api_proc]);
    let worker = rig
        .worker(&API_SECRETS_KEY)
        .envs(services)
        .spawn()
        .map_err(|e| format!("cannot start the worker: {e}"))?;
    processes.0.push(worker);
    let base = format!("http://{api}");
    seed::wait_healthy(&base, Duration::from_secs(20))?;
    seed::verify_wallet(&base, &merchant)?;

    println!("xtask: creating {total} sessions and reading their 402s");
    let mut offers = Vec::with_capacity(total);
    for i in 0..total {
        offers.push(open_session(&base, &merchant.test_key, i)?);
    }
    let payers: Vec<[u8; 32]> = chain::BUYERS.iter().map(|b| chain::key_bytes(*b)).collect();
    let mut requests = Vec::new();
    for (i, (id, asked)) in offers.iter().enumerate() {
        let signed = |payer: &[u8; 32], rival: bool| -> Result<Paying, String> {
            let (header, nonce) = payment_header(asked, payer)?;
            Ok(Paying {
                session: i,
                rival,
                payer: eip191::address_of_private_key(payer).ok_or("payer key")?,
                nonce,
                request: format!(
                    "GET /x402/{id} HTTP/1.1\r\nHost: {api}\r\nPAYMENT-SIGNATURE: {header}\r\n\r\n"
                )
                .into_bytes(),
            })
        };
        requests.push(signed(&payers[i % payers.len()], false)?);
        if i % 10 == 0 {
            requests.push(signed(&payers[(i + 1) % payers.len()], true)?);
        }
    }

    println!("xtask: {agents} agents paying");
    let started = Instant::now();
    let requests = Arc::new(requests);
    let answers = rig
        .setup
        .runtime
        .block_on(pay_all(&api, requests.clone(), agents));
    let paying_secs = started.elapsed().as_secs_f64();
    let store = rig.setup.runtime.block_on(async {
        PgStore::connect(
            &rig.setup.db,
            &PoolConfig::default(),
            SecretCipher::new(&API_SECRETS_KEY).map_err(|e| e.to_string())?,
        )
        .map_err(|e| e.to_string())
    })?;
    let count = |sql: &str| -> Result<u64, String> {
        let value = rig.setup.runtime.block_on(store_count(&store, sql))?;
        value.parse().map_err(|_| format!("{sql} counted {value}"))
    };
    // The worker completes each session once its transfer is `depth` blocks deep.
    let completed_sql =
        "SELECT count(*)::text AS value FROM checkout_sessions WHERE status = 'completed'";
    let mut completed = count(completed_sql)?;
    while completed < total as u64 && started.elapsed() < Duration::from_secs(600) {
        std::thread::sleep(Duration::from_millis(100));
        completed = count(completed_sql)?;
    }
    let completing_secs = started.elapsed().as_secs_f64();

    let mut ok_per_session: HashMap<usize, u32> = HashMap::new();
    let mut refused: BTreeMap<String, u64> = BTreeMap::new();
    let (mut latencies, mut failures, mut rivals_paid) = (Vec::new(), 0u64, 0u64);
    for a in &answers {
        match a.status {
            200 => {
                *ok_per_session.entry(a.session).or_default() += 1;
                latencies.push(a.ms);
                rivals_paid += u64::from(a.rival);
            }
            402 => {
                *refused
                    .entry(a.error.clone().unwrap_or_else(|| "(none)".into()))
                    .or_default() += 1
            }
            _ => failures += 1,
        }
    }
    latencies.sort_by(f64::total_cmp);
    let paid_once = ok_per_session.values().filter(|n| **n == 1).count();
    let paid_twice = ok_per_session.values().filter(|n| **n > 1).count();
    let relayed =
        count("SELECT count(*)::text AS value FROM relayed_transactions WHERE status = 'mined'")?;
    let transfers = count("SELECT count(*)::text AS value FROM deposit_transfers")?;
    let sessions_with_transfers =
        count("SELECT count(DISTINCT checkout_session_id)::text AS value FROM deposit_transfers")?;
    let payments = count("SELECT count(*)::text AS value FROM payments")?;
    let paid_sessions =
        count("SELECT count(DISTINCT checkout_session_id)::text AS value FROM payments")?;
    // On chain: how many of each session's authorizations were used.
    let mut used_per_session: HashMap<usize, u32> = HashMap::new();
    for paying in requests.iter() {
        if authorization_used(
            &rig.dev.rpc_url,
            &rig.dev.usdc,
            &paying.payer,
            &paying.nonce,
        )? {
            *used_per_session.entry(paying.session).or_default() += 1;
        }
    }
    let used_once = used_per_session.values().filter(|n| **n == 1).count();
    let used_twice = used_per_session.values().filter(|n| **n > 1).count();

    println!();
    println!(
        "| x402 benchmark (one relayer key, {agents} agents, 1 s blocks, depth {depth}) | value |"
    );
    println!("|---|---|");
    println!(
        "| paying requests sent (every tenth session also by a rival payer) | {} |",
        answers.len()
    );
    println!("| answered 200 | {} |", latencies.len());
    let refusals: Vec<String> = refused.iter().map(|(k, v)| format!("{k} {v}")).collect();
    println!("| answered 402 (error) | {} |", refusals.join(", "));
    println!("| other answers or no answer | {failures} |");
    println!("| sessions paid by exactly one 200 | {paid_once} of {total} |");
    println!("| sessions with two 200s | {paid_twice} |");
    println!("| rival signatures that won | {rivals_paid} |");
    println!(
        "| sessions with exactly one authorization used on chain (two or more) | {used_once} of {total} ({used_twice}) |"
    );
    println!("| relayed transfers mined | {relayed} |");
    println!("| transfers seen at deposit addresses (sessions) | {transfers} ({sessions_with_transfers}) |");
    println!("| payments recorded (sessions) | {payments} ({paid_sessions}) |");
    println!("| sessions completed by the worker | {completed} of {total} |");
    println!(
        "| request-to-200 p50 / p99 / max | {:.0} / {:.0} / {:.0} ms |",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.last().copied().unwrap_or(0.0)
    );
    println!(
        "| x402 payments per minute (200s over {paying_secs:.1} s) | {:.0} |",
        latencies.len() as f64 / paying_secs.max(0.001) * 60.0
    );
    println!(
        "| sessions completed per minute (first request to last completed, {completing_secs:.1} s) | {:.0} |",
        completed as f64 / completing_secs.max(0.001) * 60.0
    );
    let expected = total as u64;
    if paid_once != total
        || used_once != total
        || paid_sessions != expected
        || failures > 0
        || relayed != expected
        || transfers != expected
        || sessions_with_transfers != expected
        || payments != expected
        || completed != expected
    {
        return Err("x402 bench: a session was not settled exactly once (see the table)".into());
    }
    Ok(())
}

/// Creates payment session `i` (1.000000 + i µUSDC) and reads what its x402 resource asks.
fn open_session(base: &str, key: &str, i: usize) -> Result<(String, Requirements), String> {
    let amount = format!("1.{:06}", i % 1_000_000);
    let session: Value = ureq::post(&format!("{base}/api/v1/checkout/sessions"))
        .set("Authorization", &format!("Bearer {key}"))
        .set("Idempotency-Key", &format!("bench-x402-{i}"))
        .send_json(json!({ "mode": "payment", "title": format!("Agent {i}"), "amount": amount }))
        .map_err(|e| format!("create session: {e}"))?
        .into_json()
        .map_err(|e| e.to_string())?;
    let id = session["id"].as_str().ok_or("no session id")?.to_owned();
    if session["x402_url"].is_null() {
        return Err(format!("session {id} offers no x402 payment"));
    }
    let asked: Value = match ureq::get(&format!("{base}/x402/{id}")).call() {
        Err(ureq::Error::Status(402, reply)) => reply.into_json().map_err(|e| e.to_string())?,
        other => {
            return Err(format!(
                "x402 resource of {id}: expected 402, got {other:?}"
            ))
        }
    };
    let accepts = serde_json::from_value::<Vec<Requirements>>(asked["accepts"].clone())
        .map_err(|e| format!("requirements of {id}: {e}"))?;
    let first = accepts.into_iter().next().ok_or("no requirements")?;
    Ok((id, first))
}

/// `PAYMENT-SIGNATURE` for what `asked` says, signed by `payer` with a fresh random nonce,
/// as the SDK's "exact" client builds it; and that nonce.
fn payment_header(asked: &Requirements, payer: &[u8; 32]) -> Result<(String, [u8; 32]), String> {
    let domain = asked.token_domain()?;
    let from = eip191::address_of_private_key(payer).ok_or("payer key")?;
    let now = Timestamp::new(chrono::Utc::now());
    let authorization = asked.authorization(from, now, rand::random())?;
    let signature =
        eip191::sign_hash(&authorization.digest(&domain), payer).ok_or("signing failed")?;
    let payment = PaymentPayload::exact(asked.clone(), &authorization, &signature);
    let json = serde_json::to_vec(&payment).map_err(|e| e.to_string())?;
    Ok((
        base64::engine::general_purpose::STANDARD.encode(json),
        authorization.nonce,
    ))
}

/// The token's `authorizationState(payer, nonce)`, read from the node.
fn authorization_used(
    rpc_url: &str,
    token: &str,
    payer: &Address,
    nonce: &[u8; 32],
) -> Result<bool, String> {
    let mut data = AUTHORIZATION_STATE.to_vec();
    data.extend_from_slice(&[0u8; 12]);
    data.extend_from_slice(payer.as_bytes());
    data.extend_from_slice(nonce);
    let call = json!([{ "to": token, "data": format!("0x{}", hex::encode(data)) }, "latest"]);
    let word = rpc(rpc_url, "eth_call", call)?;
    match word.as_str().map(|w| w.trim_start_matches("0x")) {
        Some(w) if w.len() == 64 => Ok(w.ends_with('1')),
        _ => Err(format!("authorizationState answered {word}")),
    }
}

/// `agents` keep-alive connections, each sending the next unsent request when its last
/// is answered (a session's rival is next to it in the queue, so the two race).
async fn pay_all(api: &str, requests: Arc<Vec<Paying>>, agents: usize) -> Vec<Answer> {
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for _ in 0..agents {
        let (api, requests, next) = (api.to_owned(), requests.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut answers = Vec::new();
            let mut sock = None;
            let mut buf = Vec::with_capacity(8192);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(paying) = requests.get(i) else { break };
                let t = Instant::now();
                let (mut status, mut error) = (0, None);
                // The SDK sends a payment answered `settlement_pending` again.
                for _ in 0..5 {
                    if sock.is_none() {
                        sock = TcpStream::connect(&api).await.ok();
                    }
                    let reply = match sock.as_mut() {
                        Some(s) => tokio::time::timeout(
                            ANSWER_WITHIN,
                            exchange(s, &paying.request, &mut buf),
                        )
                        .await
                        .ok()
                        .flatten(),
                        None => None,
                    };
                    if reply.is_none() {
                        sock = None;
                    }
                    let (got, body) = reply.unwrap_or((0, "".into()));
                    status = got;
                    error = (status == 402)
                        .then(|| serde_json::from_str::<Value>(&body).ok())
                        .flatten()
                        .and_then(|v| v["error"].as_str().map(str::to_owned));
                    if error.as_deref() != Some("settlement_pending") {
                        break;
                    }
                }
                answers.push(Answer {
                    session: paying.session,
                    rival: paying.rival,
                    status,
                    error,
                    ms: t.elapsed().as_secs_f64() * 1000.0,
                });
            }
            answers
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap_or_default());
    }
    all
}
