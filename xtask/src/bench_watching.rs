//! `cargo xtask bench settlement --deposits`, last part (DESIGN §10, watching): what one
//! chain-watcher tick costs with 1,000 and then 100,000 open deposit sessions beside the
//! paid ones. The open sessions are copies of a paid one (new ids, new deposit addresses,
//! open for a day), written straight into the database; a release worker with no keys
//! (the watcher alone makes RPC calls) runs while buyers make plain USDC transfers, and
//! its `/metrics` give the tick's mean time (`stablepay_chain_watcher_tick_seconds`) and
//! RPC calls per tick (`stablepay_rpc_request_seconds_count` over ticks).

use std::net::TcpListener;
use std::time::{Duration, Instant};

use stablepay_domain::Address;

use crate::bench::{env_number, ChainBench};
use crate::chain;

/// The open-session counts compared.
const OPEN: [usize; 2] = [1_000, 100_000];

/// What one measured window saw.
struct WatchCost {
    ticks: f64,
    tick_ms: f64,
    rpc_per_tick: f64,
    transfers: usize,
    /// The watcher's head − cursor at the end, in blocks.
    lag: f64,
}

pub(crate) async fn watching(rig: &ChainBench, secrets_key: &[u8; 32]) -> Result<(), String> {
    let window = Duration::from_secs(env_number("BENCH_WATCH_SECS", 20u64));
    let mut open = 0;
    let mut costs = Vec::new();
    for n in OPEN {
        add_open_sessions(rig, open, n)?;
        open = n;
        costs.push((n, measure(rig, secrets_key, window).await?));
    }
    println!();
    println!(
        "| watcher tick (poll 500 ms, 1 s blocks, plain USDC transfers meanwhile) | ticks | mean tick | RPC calls per tick | transfers sent | lag at the end |"
    );
    println!("|---|---|---|---|---|---|");
    for (n, c) in &costs {
        println!(
            "| {n} open deposit sessions | {:.0} | {:.1} ms | {:.2} | {} | {:.0} blocks |",
            c.ticks, c.tick_ms, c.rpc_per_tick, c.transfers, c.lag
        );
    }
    if let [(_, small), (_, large)] = costs.as_slice() {
        println!(
            "| 100,000 against 1,000 | | {:+.0} % | {:+.0} % | | |",
            (large.tick_ms / small.tick_ms.max(0.001) - 1.0) * 100.0,
            (large.rpc_per_tick / small.rpc_per_tick.max(0.001) - 1.0) * 100.0
        );
    }
    Ok(())
}

/// Brings the open deposit sessions from `have` to `want`: copies of a session with a
/// deposit address, each with its own id and address.
fn add_open_sessions(rig: &ChainBench, have: usize, want: usize) -> Result<(), String> {
    let (from, to) = (have + 1, want);
    let sql = format!(
        "DO $$ DECLARE cols text; BEGIN \
         SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) INTO cols \
         FROM information_schema.columns WHERE table_schema = 'public' \
         AND table_name = 'checkout_sessions' AND column_name NOT IN ('id', 'deposit_address', \
         'status', 'expires_at', 'completed_at', 'tx_hash', 'wallet_address', 'ref', \
         'amount_received_micros'); \
         EXECUTE format('INSERT INTO checkout_sessions (id, deposit_address, status, expires_at, \
         amount_received_micros, %1$s) SELECT gen_random_uuid(), ''0x'' || \
         substr(md5(g::text || ''watch-a''), 1, 20) || substr(md5(g::text || ''watch-b''), 1, 20), \
         ''open'', now() + interval ''1 day'', 0, %1$s FROM (SELECT * FROM checkout_sessions \
         WHERE deposit_address IS NOT NULL LIMIT 1) t, generate_series({from}, {to}) g', cols); \
         END $$; ANALYZE checkout_sessions;"
    );
    rig.setup.pg.psql(&rig.setup.db, &sql)?;
    let open = rig.setup.pg.psql(
        &rig.setup.db,
        "SELECT count(*) FROM checkout_sessions WHERE status = 'open' AND deposit_address IS NOT NULL",
    )?;
    println!("xtask: {open} open deposit sessions");
    Ok(())
}

/// Runs a key-less worker for `window` while buyers transfer USDC among themselves, and
/// reads its tick metrics before and after.
async fn measure(
    rig: &ChainBench,
    secrets_key: &[u8; 32],
    window: Duration,
) -> Result<WatchCost, String> {
    let bind = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?;
    let metrics_url = format!("http://{bind}/metrics");
    let mut cmd = rig.worker(secrets_key);
    cmd.env("STABLEPAY_METRICS_BIND", bind.to_string());
    let mut worker = cmd
        .spawn()
        .map_err(|e| format!("cannot start the worker: {e}"))?;
    let measured = async {
        // Warm-up, not measured: the first ticks catch up on what the earlier part left
        // (blocks, receipts, re-checks); 20 ticks are 10 s at the bench's poll.
        let started = Instant::now();
        let before = loop {
            if let Ok(m) = scrape(&metrics_url) {
                if m.ticks >= 20.0 {
                    break m;
                }
            }
            if started.elapsed() > Duration::from_secs(60) {
                return Err("the worker's watcher did not tick within 60 s".to_string());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let url = rig.dev.rpc_url.clone();
        let usdc = rig.dev.usdc.clone();
        let transfers = tokio::task::spawn_blocking(move || send_transfers(&url, &usdc, window))
            .await
            .map_err(|e| e.to_string())??;
        let after = scrape(&metrics_url)?;
        let ticks = after.ticks - before.ticks;
        Ok(WatchCost {
            ticks,
            tick_ms: (after.tick_seconds - before.tick_seconds) / ticks.max(1.0) * 1000.0,
            rpc_per_tick: (after.rpc_calls - before.rpc_calls) / ticks.max(1.0),
            transfers,
            lag: after.lag,
        })
    }
    .await;
    let _ = worker.kill();
    let _ = worker.wait();
    measured
}

/// 1 USDC from one buyer to the next, five a second, for `window`.
fn send_transfers(url: &str, usdc: &str, window: Duration) -> Result<usize, String> {
    let buyers: Vec<String> = chain::BUYERS.iter().map(|i| chain::address(*i)).collect();
    let started = Instant::now();
    let mut sent = 0;
    while started.elapsed() < window {
        let from = &buyers[sent % buyers.len()];
        let to = Address::parse(&buyers[(sent + 1) % buyers.len()].to_lowercase())
            .map_err(|e| e.to_string())?;
        let data = crate::bench_settlement_sessions::transfer_calldata(&to, 1_000_000);
        crate::bench_settlement::send(url, from, usdc, &data)?;
        sent += 1;
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(sent)
}

/// The watcher's counters, summed over labels.
struct Scraped {
    /// Head − cursor of the watcher, in blocks.
    lag: f64,
    ticks: f64,
    tick_seconds: f64,
    rpc_calls: f64,
}

fn scrape(url: &str) -> Result<Scraped, String> {
    let body = ureq::get(url)
        .timeout(Duration::from_secs(5))
        .call()
        .map_err(|e| e.to_string())?
        .into_string()
        .map_err(|e| e.to_string())?;
    let sum = |name: &str| -> f64 {
        body.lines()
            .filter(|l| {
                l.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(['{', ' ']))
            })
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    };
    Ok(Scraped {
        lag: sum("stablepay_chain_watcher_lag_blocks"),
        ticks: sum("stablepay_chain_watcher_tick_seconds_count"),
        tick_seconds: sum("stablepay_chain_watcher_tick_seconds_sum"),
        rpc_calls: sum("stablepay_rpc_request_seconds_count"),
    })
}
