//! `cargo xtask bench settlement`: router payments on a local anvil chain (1 s blocks,
//! depth 2, `BENCH_DEPTH` to change) settled by a release-built `stablepay-worker` through
//! its chain watcher alone (no fast path): the time from a payment's block reaching depth
//! (first seen by this bench) to its session completing, and payments verified per minute
//! (DESIGN §10). `--relayed` pays every session with one EIP-3009 signature instead, sent
//! by the api's relayer (one key, nonces in PostgreSQL): relayed payments per minute, each
//! session settled exactly once. `--deposits` pays every session by a plain transfer to its
//! deposit address (D24): deposits completed per minute, at-depth to completed, then the
//! worker's sweeps (`sweepMany` batches) until every deposit is forwarded: sweeps per minute;
//! then a watcher tick's cost with 1,000 and 100,000 open deposit sessions (`bench_watching.rs`).
//! `--x402`: agents paying over x402 through the api (`bench_x402.rs`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::json;
use stablepay_domain::ports::{PaymentRelayer, SessionRepository, SystemClock};
use stablepay_domain::*;
use stablepay_postgres::{run_migrations, PgStore, PoolConfig, SecretCipher};

use crate::bench::{env_number, percentile, ChainBench};
use crate::bench_settlement_sessions::sessions_to_pay;
use crate::chain::{self, rpc};

const SECRETS_KEY: [u8; 32] = [9u8; 32];

/// A payment's transaction from an unlocked dev account, with a 200k gas limit so hundreds
/// of payments fit one block.
pub(crate) fn send(url: &str, from: &str, to: &str, data: &[u8]) -> Result<String, String> {
    chain::send_with_gas(
        url,
        from,
        Some(to),
        format!("0x{}", hex::encode(data)),
        200_000,
    )
}

/// How the bench's buyers pay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Paying {
    /// Their own `pay` transactions.
    Router,
    /// One EIP-3009 signature each, sent by the api's relayer.
    Relayed,
    /// A plain USDC transfer to the session's deposit address.
    Deposits,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let paying = match args {
        [] => Paying::Router,
        [flag] if flag == "--relayed" => Paying::Relayed,
        [flag] if flag == "--deposits" => Paying::Deposits,
        [flag] if flag == "--x402" => return crate::bench_x402::run(),
        _ => {
            return Err(
                "usage: cargo xtask bench settlement [--relayed | --deposits | --x402]".into(),
            )
        }
    };
    let total: usize = env_number(
        "BENCH_PAYMENTS",
        if paying == Paying::Router { 300 } else { 1000 },
    );
    let depth: u64 = env_number("BENCH_DEPTH", 2u64).max(1);
    let rig = ChainBench::start(84532, "bench_settlement")?;
    rig.setup
        .runtime
        .block_on(bench(&rig, total, depth, paying))
}

async fn bench(rig: &ChainBench, total: usize, depth: u64, paying: Paying) -> Result<(), String> {
    let relayed = paying == Paying::Relayed;
    let (db, dev) = (rig.setup.db.as_str(), &rig.dev);
    run_migrations(db).await?;
    let store = PgStore::connect(
        db,
        &PoolConfig::default(),
        SecretCipher::new(&SECRETS_KEY).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let calls = sessions_to_pay(&store, dev, total, depth, paying).await?;
    let buyers: Vec<String> = chain::BUYERS.iter().map(|i| chain::address(*i)).collect();
    // The api's relayer, as `serve` builds it (the keeper's key, as under `xtask dev`).
    let relayer = {
        use stablepay_evm::sender::{EvmRelayer, EvmSender, SendingKey};
        let evm = std::sync::Arc::new(stablepay_evm::EvmChain::new(
            &[(ChainId::BaseSepolia, dev.rpc_url.clone())],
            Duration::from_secs(5),
        )?);
        let key = PrivateKey::parse_hex(chain::KEYS[chain::KEEPER]).map_err(|e| e.to_string())?;
        let store = std::sync::Arc::new(store.clone());
        let sender = EvmSender::new(
            evm,
            store.clone(),
            std::sync::Arc::new(SystemClock),
            SendingKey::new(key)?,
        );
        EvmRelayer::new(
            sender,
            store,
            0,
            stablepay_domain::rules::relay_budget::RevertBudget::DEFAULT,
        )
    };
    // Start the worker: chain watcher only (poll 500 ms).
    let mut cmd = rig.worker(&SECRETS_KEY);
    cmd.env("STABLEPAY_CONFIRMATIONS_84532", depth.to_string());
    if paying == Paying::Deposits {
        // The sweeps' sender.
        cmd.env("STABLEPAY_KEEPER_KEY", chain::key(chain::KEEPER));
    }
    let mut worker = cmd
        .spawn()
        .map_err(|e| format!("cannot start the worker: {e}"))?;
    tokio::time::sleep(Duration::from_secs(2)).await;

    // Send every payment (the buyers' own transactions, or relayed signatures), then watch
    // receipts and sessions.
    let mut pending: HashMap<String, CheckoutSessionId> = HashMap::new();
    let sending = Instant::now();
    for (i, (id, data, payment)) in calls.iter().enumerate() {
        let tx = if relayed {
            // Each payer is funded for all of its payments: the balance promise (D30) is
            // the tests' to check; the bench measures the send path.
            relayer
                .relay(ChainId::BaseSepolia, *id, payment, u128::MAX)
                .await
                .map_err(|e| e.to_string())?
                .tx_hash()
                .to_string()
        } else {
            let to = match paying {
                Paying::Deposits => &dev.usdc,
                _ => &dev.checkout_router,
            };
            send(&dev.rpc_url, &buyers[i % buyers.len()], to, data)?
        };
        pending.insert(tx, *id);
    }
    let send_secs = sending.elapsed().as_secs_f64();
    // Block of each mined payment; when that block reached depth.
    let mut mined_in: HashMap<CheckoutSessionId, u64> = HashMap::new();
    let mut mined_at: HashMap<CheckoutSessionId, Instant> = HashMap::new();
    let mut latencies = Vec::new();
    let started = Instant::now();
    let (mut first_mined, mut last_done) = (None, None);
    while latencies.len() < total && started.elapsed() < Duration::from_secs(300) {
        let unmined: Vec<String> = pending
            .keys()
            .filter(|tx| !mined_in.contains_key(&pending[*tx]))
            .cloned()
            .collect();
        for tx in unmined {
            let r = rpc(&dev.rpc_url, "eth_getTransactionReceipt", json!([tx]))?;
            if let Some(block) = r["blockNumber"].as_str() {
                let block = u64::from_str_radix(block.trim_start_matches("0x"), 16)
                    .map_err(|e| e.to_string())?;
                mined_in.insert(pending[&tx], block);
            }
        }
        let head = rpc(&dev.rpc_url, "eth_blockNumber", json!([]))?;
        let head = u64::from_str_radix(head.as_str().unwrap_or("0x0").trim_start_matches("0x"), 16)
            .map_err(|e| e.to_string())?;
        for (id, block) in &mined_in {
            if !mined_at.contains_key(id)
                && stablepay_domain::rules::confirmations::is_confirmed(head, *block, depth)
            {
                let now = Instant::now();
                first_mined.get_or_insert(now);
                mined_at.insert(*id, now);
            }
        }
        for (id, at) in mined_at.clone() {
            let s = store.get_public(id).await.map_err(|e| e.to_string())?;
            if s.is_some_and(|s| s.status == SessionStatus::Completed) {
                let now = Instant::now();
                latencies.push(now.duration_since(at).as_secs_f64() * 1000.0);
                last_done = Some(now);
                mined_at.remove(&id);
                mined_in.remove(&id);
                pending.retain(|_, v| *v != id);
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Deposits: then until every one is forwarded by a mined sweep.
    let swept = if paying == Paying::Deposits {
        let counting = Instant::now();
        let mut swept = String::new();
        while counting.elapsed() < Duration::from_secs(300) {
            swept = store_count(
                &store,
                "SELECT count(*)::text AS value FROM deposit_transfers WHERE sweep_tx_hash IN \
                 (SELECT tx_hash FROM deposit_sweeps WHERE status = 'mined')",
            )
            .await?;
            if swept == total.to_string() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let sweeps = store_count(
            &store,
            "SELECT count(*)::text || ' (' || coalesce(sum(gas_used), 0)::text || ' gas)' AS value \
             FROM deposit_sweeps WHERE status = 'mined'",
        )
        .await?;
        Some((
            swept,
            sweeps,
            first_mined.map(|a| a.elapsed().as_secs_f64()),
        ))
    } else {
        None
    };
    let _ = worker.kill();
    let _ = worker.wait();
    // Exactly once: one payment per settled session, none twice.
    let once = store_count(&store, "SELECT count(*)::text AS value FROM payments").await?;
    latencies.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let span = match (first_mined, last_done) {
        (Some(a), Some(b)) => b.duration_since(a).as_secs_f64().max(0.001),
        _ => 0.0,
    };
    println!();
    let how = match paying {
        Paying::Relayed => "one signature each, relayed by one key",
        Paying::Router => "the buyers' own pay transactions",
        Paying::Deposits => "plain transfers to deposit addresses",
    };
    println!(
        "| settlement benchmark ({how}; chain watcher only, poll 500 ms, 1 s blocks, depth {depth}) | value |"
    );
    println!("|---|---|");
    println!("| payments settled | {} of {total} |", latencies.len());
    println!("| payments recorded (one per session) | {once} |");
    println!(
        "| sent per minute ({}) | {:.0} |",
        if relayed {
            "relayer: nonce, sign, store, broadcast"
        } else {
            "eth_sendTransaction"
        },
        total as f64 / send_secs.max(0.001) * 60.0
    );
    println!(
        "| at-depth to session-completed p50 | {:.0} ms |",
        percentile(&latencies, 0.5)
    );
    println!(
        "| at-depth to session-completed p99 | {:.0} ms |",
        percentile(&latencies, 0.99)
    );
    println!(
        "| at-depth to session-completed max | {:.0} ms |",
        latencies.last().copied().unwrap_or(0.0)
    );
    println!("| first payment at depth to last completion | {span:.2} s |");
    println!(
        "| payments verified per minute | {:.0} |",
        latencies.len() as f64 / span * 60.0
    );
    if let Some((swept, sweeps, Some(secs))) = swept {
        let n: f64 = swept.parse().unwrap_or(0.0);
        println!("| deposits forwarded by mined sweeps | {swept} of {total} |");
        println!("| sweep transactions mined (gas) | {sweeps} |");
        println!("| first deposit at depth to last sweep mined | {secs:.2} s |");
        println!(
            "| deposits swept per minute | {:.0} |",
            n / secs.max(0.001) * 60.0
        );
    }
    if paying == Paying::Deposits {
        crate::bench_watching::watching(rig, &SECRETS_KEY).await?;
    }
    Ok(())
}

/// The one value `sql` selects (as `value`, text), such as a count.
pub(crate) async fn store_count(store: &PgStore, sql: &str) -> Result<String, String> {
    let rows = stablepay_postgres::testing::query_strings(store, sql).await?;
    rows.into_iter().next().ok_or_else(|| "no count".into())
}
