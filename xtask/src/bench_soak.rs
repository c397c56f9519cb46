//! `cargo xtask bench soak`: 100,000 deliveries drained by two release workers while one
//! of them is killed with SIGKILL every few seconds and restarted. Counts what arrives:
//! nothing may be lost; duplicates stay within the leased batches of the killed workers.

use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use stablepay_domain::ports::SystemClock;
use stablepay_domain::services::{create_webhook_endpoint, NewEndpoint};
use stablepay_domain::{FeeTier, Mode, WebhookUrl};
use stablepay_postgres::testing::execute_sql;
use stablepay_postgres::{run_migrations, PgStore, PoolConfig, SecretCipher};

use crate::bench::BenchSetup;
use crate::bench_receiver::start_receiver;
use crate::util::root;

const SECRETS_KEY: [u8; 32] = [9u8; 32];
/// Lanes × batch per worker: the most one killed worker can have leased.
const LANES: u32 = 4;
const BATCH: u32 = 50;
/// Delivered records older than this are deleted by the workers' retention.
const RETENTION: Duration = Duration::from_secs(5);
/// Events arrive in waves of this many, one wave a second (below the delivery rate even
/// with the kills, so the queue stays short and what grows is only what retention misses).
const WAVE: u64 = 2_000;

fn worker(db: &str) -> Result<Child, String> {
    Command::new(root().join("target/release/stablepay-worker"))
        .env("DATABASE_URL", db)
        .env(
            "STABLEPAY_SECRETS_KEY",
            base64::engine::general_purpose::STANDARD.encode(SECRETS_KEY),
        )
        .env("STABLEPAY_ALLOW_PRIVATE_WEBHOOK_TARGETS", "true")
        .env("STABLEPAY_DELIVERY_LANES", LANES.to_string())
        .env("STABLEPAY_DELIVERY_BATCH", BATCH.to_string())
        .env("STABLEPAY_WEBHOOK_TIMEOUT", "2s")
        .env("STABLEPAY_DELIVERY_LEASE", "3s")
        .env("STABLEPAY_RETENTION", format!("{}s", RETENTION.as_secs()))
        .env("STABLEPAY_RETENTION_INTERVAL", "1s")
        .env("STABLEPAY_LOG", "error")
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start the worker: {e}"))
}

pub fn run(_args: &[String]) -> Result<(), String> {
    let total: u64 = std::env::var("BENCH_DELIVERIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let kill_every = Duration::from_secs(3);
    let setup = BenchSetup::start(&["stablepay-worker"], "bench", "", "bench_soak")?;
    setup.runtime.block_on(soak(&setup.db, total, kill_every))
}

async fn soak(db: &str, total: u64, kill_every: Duration) -> Result<(), String> {
    run_migrations(db).await?;
    let store = PgStore::connect(
        db,
        &PoolConfig::default(),
        SecretCipher::new(&SECRETS_KEY).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let merchant = store
        .create_merchant("Soak", FeeTier::Standard)
        .await
        .map_err(|e| e.to_string())?;
    let ctx = stablepay_postgres::testing::api_key_context(merchant.id, Mode::Test);

    // Receiver: counts arrivals per envelope id.
    let rx = start_receiver().await?;
    let seen = rx.per_id.clone();
    let (endpoint, _) = create_webhook_endpoint(
        &ctx,
        NewEndpoint {
            url: WebhookUrl::parse(&rx.url).map_err(|e| e.to_string())?,
            enabled_events: vec![],
            description: None,
        },
        &stablepay_domain::Changer::OPERATOR,
        &store,
        &SystemClock,
    )
    .await
    .map_err(|e| e.to_string())?;
    // Each payload starts with its own id, so the receiver can count per event. Events
    // arrive in waves while the workers run, so retention deletes as delivery goes on.
    execute_sql(&store, crate::bench::V7_FUNCTION).await?;
    let wave = format!(
        "INSERT INTO webhook_events (id, merchant_id, livemode, type, endpoint_id, status, attempts, next_attempt_at, payload, created_at) \
         SELECT u, '{}', false, 'payment.succeeded', '{}', 'pending', 0, now(), '{{\"id\":\"' || u || '\",\"type\":\"payment.succeeded\"}}', now() \
         FROM (SELECT bench_v7(clock_timestamp()) AS u FROM generate_series(1, {})) g",
        merchant.id.uuid(),
        endpoint.id.uuid(),
        WAVE
    );
    let producer = store.clone();
    let inserting = tokio::spawn(async move {
        let waves = (total / WAVE).max(1);
        let began = Instant::now();
        for i in 0..waves {
            execute_sql(&producer, &wave).await?;
            // Paced from the start, so a slow insert does not stretch the schedule.
            let next = Duration::from_secs(i + 1).saturating_sub(began.elapsed());
            tokio::time::sleep(next).await;
        }
        Ok::<_, String>(())
    });
    let total = (total / WAVE).max(1) * WAVE;
    // Table size and rows, sampled every second.
    let sampler_store = store.clone();
    let samples: Arc<Mutex<Vec<(f64, usize, usize)>>> = Arc::default();
    let sampled = samples.clone();
    let sampling_started = Instant::now();
    let sampler = tokio::spawn(async move {
        loop {
            let rows = execute_sql(&sampler_store, "SELECT 1 FROM webhook_events").await;
            let pages = execute_sql(
                &sampler_store,
                "SELECT generate_series(1, (pg_total_relation_size('webhook_events') / 8192)::int)",
            )
            .await;
            if let (Ok(rows), Ok(pages)) = (rows, pages) {
                sampled.lock().unwrap_or_else(|p| p.into_inner()).push((
                    sampling_started.elapsed().as_secs_f64(),
                    rows,
                    pages * 8192,
                ));
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });

    let mut a = worker(db)?;
    let mut b = worker(db)?;
    let started = Instant::now();
    let mut kills = 0u32;
    let mut last_kill = Instant::now();
    loop {
        let delivered = seen.lock().unwrap_or_else(|p| p.into_inner()).len() as u64;
        if delivered >= total || started.elapsed() > Duration::from_secs(600) {
            break;
        }
        if last_kill.elapsed() >= kill_every {
            // SIGKILL: the batch in flight is never recorded.
            let victim = if kills.is_multiple_of(2) {
                &mut a
            } else {
                &mut b
            };
            let _ = victim.kill();
            let _ = victim.wait();
            *victim = worker(db)?;
            kills += 1;
            last_kill = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    inserting.await.map_err(|e| e.to_string())??;
    // Let retention catch up: every delivered record goes once older than the window.
    let drained = Instant::now();
    while drained.elapsed() < RETENTION * 4 {
        let rows = execute_sql(&store, "SELECT 1 FROM webhook_events").await?;
        if rows == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    tokio::time::sleep(Duration::from_millis(1100)).await;
    sampler.abort();
    let samples = samples.lock().unwrap_or_else(|p| p.into_inner()).clone();
    for w in [&mut a, &mut b] {
        let _ = w.kill();
        let _ = w.wait();
    }
    let seen = seen.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let unique = seen.len() as u64;
    let duplicates: u64 = seen.values().map(|n| u64::from(n - 1)).sum();
    let bound = u64::from(LANES * BATCH) * u64::from(kills);
    println!();
    println!(
        "| soak: {total} deliveries, 2 workers, SIGKILL every {}s | value |",
        kill_every.as_secs()
    );
    println!("|---|---|");
    println!("| workers killed | {kills} |");
    println!(
        "| distinct events received | {unique} of {total} (lost: {}) |",
        total.saturating_sub(unique)
    );
    println!(
        "| duplicate receipts | {duplicates} (bound: {} per kill × {kills} = {bound}) |",
        LANES * BATCH
    );
    println!("| wall time | {elapsed:.1} s |");
    let mib = |b: usize| b as f64 / 1_048_576.0;
    let peak = samples.iter().map(|s| s.1).max().unwrap_or(0);
    let biggest = samples.iter().map(|s| s.2).max().unwrap_or(0);
    if let (Some(first), Some(last)) = (samples.first(), samples.last()) {
        println!(
            "| webhook_events rows (retention {} s) | peak {peak}, {} at the end ({} inserted in all) |",
            RETENTION.as_secs(),
            last.1,
            total
        );
        // A table that is not rotting stops growing once deletes keep pace with inserts.
        let at = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
        let quarters: Vec<String> = [0.25, 0.5, 0.75, 1.0]
            .iter()
            .map(|q| format!("{:.1} MiB at {:.0} s", mib(at(*q).2), at(*q).0))
            .collect();
        println!(
            "| webhook_events size with indexes | {:.1} MiB at {:.0} s; {}; peak {:.1} MiB |",
            mib(first.2),
            first.0,
            quarters.join(", "),
            mib(biggest)
        );
    }
    if unique < total {
        return Err(format!("{} deliveries were lost", total - unique));
    }
    if duplicates > bound {
        return Err(format!("{duplicates} duplicates exceed the bound {bound}"));
    }
    Ok(())
}
