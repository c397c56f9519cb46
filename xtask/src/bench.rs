//! `cargo xtask bench webhooks`: signed deliveries per second from release-built
//! `stablepay-worker` processes to a local receiver, and enqueue-to-receipt latency at
//! half of that rate (DESIGN §10). Everything runs on this machine against a throwaway
//! PostgreSQL; numbers are printed as a table.

use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use stablepay_domain::ports::{EventDraft, Outbox, SystemClock};
use stablepay_domain::services::{create_webhook_endpoint, NewEndpoint};
use stablepay_domain::{EventType, FeeTier, Mode, Timestamp, WebhookUrl};
use stablepay_postgres::testing::execute_sql;
use stablepay_postgres::{run_migrations, PgStore, PoolConfig, SecretCipher};

use crate::bench_receiver::{start_receiver, Receiver};
use crate::pg::Postgres;
use crate::util::{cargo, root, run as run_cmd};

const SECRETS_KEY: [u8; 32] = [9u8; 32];

/// Child processes, killed when dropped.
pub(crate) struct Workers(pub(crate) Vec<Child>);

impl Drop for Workers {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub(crate) fn start_workers(n: usize, db: &str, secrets_key: &[u8; 32]) -> Result<Workers, String> {
    let key = base64::engine::general_purpose::STANDARD.encode(secrets_key);
    let bin = root().join("target/release/stablepay-worker");
    let mut children = Vec::new();
    for _ in 0..n {
        let child = Command::new(&bin)
            .env("DATABASE_URL", db)
            .env("STABLEPAY_SECRETS_KEY", &key)
            .env("STABLEPAY_ALLOW_PRIVATE_WEBHOOK_TARGETS", "true")
            .env(
                "STABLEPAY_LOG",
                std::env::var("BENCH_WORKER_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
        children.push(child);
    }
    Ok(Workers(children))
}

/// Microseconds as milliseconds for the tables.
pub(crate) fn ms(us: u64) -> String {
    format!("{:.2} ms", us as f64 / 1000.0)
}

/// The `p` quantile of sorted values (nearest rank).
pub fn percentile<T: Copy + Default>(sorted: &[T], p: f64) -> T {
    if sorted.is_empty() {
        return T::default();
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

/// `bench_v7(ts)`: a UUIDv7 for a timestamp (PostgreSQL 15 has no uuidv7()): the 48-bit
/// millisecond time over a random v4, with the version nibble turned from 4 into 7.
pub const V7_FUNCTION: &str = "
CREATE OR REPLACE FUNCTION bench_v7(ts timestamptz) RETURNS uuid LANGUAGE sql AS $$
  SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
    PLACING substring(int8send((extract(epoch FROM ts) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
    52, 1), 53, 1), 'hex')::uuid
$$";

/// A number from the environment variable `name`, or `default`.
pub fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What every bench starts from: release binaries, a PostgreSQL (throwaway, or
/// `DATABASE_URL`'s) with one database, and a runtime. The runtime drops first.
pub struct BenchSetup {
    pub runtime: tokio::runtime::Runtime,
    pub db: String,
    pub pg: Postgres,
}

impl BenchSetup {
    /// Builds `packages` in release, provisions the cluster `cluster` with extra server
    /// `pg_options` (`-c name=value ...`, plus `STABLEPAY_PG_OPTIONS`) and creates `database`.
    pub fn start(
        packages: &[&str],
        cluster: &str,
        pg_options: &str,
        database: &str,
    ) -> Result<Self, String> {
        if !packages.is_empty() {
            println!("xtask: building {} (release)", packages.join(" and "));
            let mut build = cargo();
            build.args(["build", "--release", "--quiet"]);
            for p in packages {
                build.args(["-p", p]);
            }
            run_cmd(&mut build)?;
        }
        let pg = Postgres::provision_with(cluster, pg_options)?;
        let db = pg.database(database)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self { runtime, db, pg })
    }
}

/// What the chain benches run on: the common setup with a release worker, and one dev
/// chain. Fields drop in order: the chain, then the rest.
pub struct ChainBench {
    pub dev: crate::chain::DevChain,
    pub setup: BenchSetup,
}

impl ChainBench {
    pub fn start(chain_id: u64, database: &str) -> Result<Self, String> {
        Self::start_building(&["stablepay-worker"], chain_id, database)
    }

    /// Like `start`, building `packages` in release.
    pub fn start_building(
        packages: &[&str],
        chain_id: u64,
        database: &str,
    ) -> Result<Self, String> {
        let setup = BenchSetup::start(packages, "bench", "", database)?;
        let anvil = crate::tools::anvil()?;
        let dev = crate::chain::start(&anvil, chain_id)?;
        Ok(Self { dev, setup })
    }

    /// The release worker, pointed at this bench's database and chain.
    pub fn worker(&self, secrets_key: &[u8; 32]) -> Command {
        let mut cmd = Command::new(root().join("target/release/stablepay-worker"));
        cmd.env("DATABASE_URL", &self.setup.db)
            .env(
                "STABLEPAY_SECRETS_KEY",
                base64::engine::general_purpose::STANDARD.encode(secrets_key),
            )
            .env("STABLEPAY_LOG", "error")
            .envs(self.dev.service_env())
            .stdout(Stdio::null());
        cmd
    }
}

pub fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        None | Some("webhooks") => {}
        Some(other) => return Err(format!("unknown benchmark `{other}` (available: webhooks)")),
    }
    let total: u64 = std::env::var("BENCH_DELIVERIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let workers: usize = std::env::var("BENCH_WORKERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let setup = BenchSetup::start(&["stablepay-worker", "stablepay-api"], "bench", "", "bench")?;
    let fairness_db = setup.pg.database("bench_fairness")?;
    let BenchSetup { runtime, db, pg } = setup;
    // BENCH_ONLY=throughput|fairness|latency runs one part.
    let only = std::env::var("BENCH_ONLY").ok();
    let part = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if part("throughput") {
        runtime.block_on(bench(&db, total, workers))?;
    }
    if part("fairness") {
        runtime.block_on(crate::bench_fairness::fairness(&fairness_db))?;
    }
    drop(runtime);
    drop(pg);
    if part("latency") {
        crate::bench_latency::latency()?;
    }
    Ok(())
}

async fn bench(db: &str, total: u64, workers: usize) -> Result<(), String> {
    run_migrations(db).await?;
    let cipher = SecretCipher::new(&SECRETS_KEY).map_err(|e| e.to_string())?;
    let store = PgStore::connect(
        db,
        &PoolConfig {
            max_connections: 16,
            ..PoolConfig::default()
        },
        cipher,
    )
    .map_err(|e| e.to_string())?;
    let merchant = store
        .create_merchant("Bench", FeeTier::Standard)
        .await
        .map_err(|e| e.to_string())?;
    let ctx = stablepay_postgres::testing::api_key_context(merchant.id, Mode::Test);
    let rx = start_receiver().await?;
    let url = WebhookUrl::parse(&rx.url).map_err(|e| e.to_string())?;
    let (endpoint, _) = create_webhook_endpoint(
        &ctx,
        NewEndpoint {
            url,
            enabled_events: vec![],
            description: None,
        },
        &stablepay_domain::Changer::OPERATOR,
        &store,
        &SystemClock,
    )
    .await
    .map_err(|e| e.to_string())?;

    // Phase 1: a backlog of `total` due deliveries, drained as fast as the workers can.
    let payload = r#"{"id":"evt_bench","object":"event","type":"payment.succeeded","livemode":false,"created_at":"2026-01-01T00:00:00.000Z","data":{"object":{"id":"pay_bench","object":"payment","amount":"25"}}}"#;
    execute_sql(
        &store,
        &format!(
            "INSERT INTO webhook_events (id, merchant_id, livemode, type, endpoint_id, status, attempts, next_attempt_at, payload, created_at) \
             SELECT gen_random_uuid(), '{}', false, 'payment.succeeded', '{}', 'pending', 0, now(), '{payload}', now() FROM generate_series(1, {total})",
            merchant.id.uuid(),
            endpoint.id.uuid()
        ),
    )
    .await?;
    rx.arrivals
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clear();
    let procs = start_workers(workers, db, &SECRETS_KEY)?;
    let started = Instant::now();
    while rx.count.load(Ordering::Relaxed) < total {
        if started.elapsed() > Duration::from_secs(300) {
            return Err(format!(
                "only {} of {total} deliveries arrived in 300 s",
                rx.count.load(Ordering::Relaxed)
            ));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let first = rx
        .first
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .unwrap_or(started);
    let last = rx
        .last
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .unwrap_or(started);
    let drain_secs = last.duration_since(first).as_secs_f64().max(0.001);
    let peak = (total - 1) as f64 / drain_secs;

    // Phase 2: steady enqueueing at half the peak through the outbox (one transaction per
    // event, as real state changes do), measuring commit-to-receipt latency.
    let rate = (peak / 2.0).max(1.0);
    let store = Arc::new(store);
    let steady = steady_outbox_load(&store, &[merchant.id], rate, 10, &rx).await;
    drop(procs);
    let lat = steady.latencies_us;
    let (sent, enqueue_errors, achieved, enqueue_secs) =
        (steady.sent, steady.errors, steady.achieved, steady.seconds);

    println!();
    println!(
        "| webhooks benchmark ({workers} worker process(es), {} cores) | value |",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!("|---|---|");
    println!("| backlog drained | {total} deliveries in {drain_secs:.2} s |");
    println!("| peak signed deliveries/s | {peak:.0} |");
    println!("| steady enqueue (target half of peak: {rate:.0}/s) | {achieved:.0} events/s achieved over {enqueue_secs:.1} s, {enqueue_errors} errors |");
    println!("| delivered in steady phase | {} of {sent} |", lat.len());
    println!("| commit-to-receipt p50 | {} |", ms(percentile(&lat, 0.50)));
    println!("| commit-to-receipt p99 | {} |", ms(percentile(&lat, 0.99)));
    println!(
        "| commit-to-receipt max | {} |",
        ms(lat.last().copied().unwrap_or(0))
    );
    Ok(())
}

/// What a steady load produced: events committed, failures, the achieved rate, and each
/// delivery's commit-to-receipt latency in microseconds (sorted).
pub(crate) struct Steady {
    pub sent: u64,
    pub errors: u64,
    pub achieved: f64,
    pub seconds: f64,
    pub latencies_us: Vec<u64>,
}

/// Records events at `rate` per second for `seconds` through the outbox, one transaction
/// per event, round-robin over `merchants` (each routes to its own endpoints), from 32
/// producers on their own schedules; then waits for the deliveries to arrive at `rx`.
pub(crate) async fn steady_outbox_load(
    store: &Arc<PgStore>,
    merchants: &[stablepay_domain::MerchantId],
    rate: f64,
    seconds: u64,
    rx: &Receiver,
) -> Steady {
    let before = rx.count.load(Ordering::Relaxed);
    rx.arrivals
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clear();
    let producers = 32u32;
    let committed: Arc<Mutex<std::collections::HashMap<String, Instant>>> = Arc::default();
    let interval = Duration::from_secs_f64(f64::from(producers) / rate);
    let phase = Instant::now();
    let window = Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for p in 0..producers {
        let store = store.clone();
        let committed = committed.clone();
        let merchants = merchants.to_vec();
        tasks.push(tokio::spawn(async move {
            let (mut sent, mut errors) = (0u64, 0u64);
            let mut next = phase + interval.mul_f64(f64::from(p) / f64::from(producers));
            let mut i = p as usize;
            while next.duration_since(phase) < window {
                tokio::time::sleep_until(next.into()).await;
                let draft = EventDraft {
                    merchant_id: merchants[i % merchants.len()],
                    mode: Mode::Test,
                    event_type: EventType::PaymentSucceeded,
                    object_json: r#"{"id":"pay_bench","object":"payment","amount":"25"}"#.into(),
                    created_at: Timestamp::new(chrono::Utc::now()),
                };
                i += producers as usize;
                match store.record_event(&draft).await {
                    Ok(ids) => {
                        // Commit time: the moment record_event's transaction returned.
                        let at = Instant::now();
                        let mut map = committed.lock().unwrap_or_else(|p| p.into_inner());
                        for id in ids {
                            map.insert(id.to_string(), at);
                        }
                        sent += 1
                    }
                    Err(_) => errors += 1,
                }
                next += interval;
            }
            (sent, errors)
        }));
    }
    let (mut sent, mut errors) = (0u64, 0u64);
    for t in tasks {
        let (s, e) = t.await.unwrap_or((0, 0));
        sent += s;
        errors += e;
    }
    let seconds = phase.elapsed().as_secs_f64();
    let deadline = Instant::now() + Duration::from_secs(60);
    while rx.count.load(Ordering::Relaxed) < before + sent && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let committed = committed.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut latencies_us: Vec<u64> = rx
        .arrivals
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .filter_map(|(id, at)| {
            committed
                .get(id)
                .map(|c| at.saturating_duration_since(*c).as_micros() as u64)
        })
        .collect();
    latencies_us.sort_unstable();
    Steady {
        sent,
        errors,
        achieved: sent as f64 / seconds,
        seconds,
        latencies_us,
    }
}
