//! `cargo xtask bench api`: POST /checkout/sessions (auth + idempotency + insert) and
//! GET /checkout/sessions/:id against a release-built api, next to pgbench on the same
//! PostgreSQL (an equivalent 3-statement write transaction, and select-only), plus the
//! api's idle RSS (DESIGN §10). Load comes from 32 keep-alive connections on loopback.
//! Each share is taken in paired rounds, api and pgbench back to back
//! (`STABLEPAY_BENCH_ROUNDS`, 3 by default), and the median round is held to the bars.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use tokio::net::TcpStream;

use crate::bench::{env_number, BenchSetup};
use crate::bench_api_report::print_api_table;
use crate::bench_pgbench::{get_statements_ceiling, pgbench_run, prepare, PgbenchRun};
use crate::cpu::{CpuMeter, CpuPerRequest};
use crate::load::{
    api_command, drive, drive_for, exchange, hold_for_profiling, load_runtime, metered,
    spawn_listening, Load, CONNECTIONS, SECONDS,
};
use crate::seed;
use crate::util::{output, root};

/// A migrated bench database with one merchant: the setup, the release api, the
/// merchant and its test key.
pub(crate) fn setup_with_merchant(
) -> Result<(BenchSetup, PathBuf, seed::DemoMerchant, &'static str), String> {
    let setup = BenchSetup::start(&["stablepay-api"], "bench", "", "bench_api")?;
    let bin = root().join("target/release/stablepay-api");
    output(
        Command::new(&bin)
            .arg("migrate")
            .env("DATABASE_URL", &setup.db),
    )?;
    let m = seed::create_merchants(&bin, &setup.db)?
        .into_iter()
        .next()
        .ok_or("no merchant")?;
    let key: &'static str = Box::leak(m.test_key.clone().into_boxed_str());
    Ok((setup, bin, m, key))
}

/// `cargo xtask bench lists`: the list half of `bench api` alone.
pub fn run_lists(_args: &[String]) -> Result<(), String> {
    let (setup, bin, _, key) = setup_with_merchant()?;
    crate::bench_lists::run(&setup.pg, &setup.db, &bin, key)
}

pub fn run(_args: &[String]) -> Result<(), String> {
    let (setup, bin, m, key) = setup_with_merchant()?;
    let m = &m;
    let (pg, db) = (&setup.pg, &setup.db);
    let bin_dir = pg
        .bin_dir()
        .ok_or("pgbench needs the throwaway cluster's binaries")?;
    let write_script = prepare(&bin_dir, db)?;
    let rounds = env_number("STABLEPAY_BENCH_ROUNDS", 3usize).max(1);

    // Contracts on the test key's chain, as a deployment has them: every session gets a
    // deposit address, and a GET of an open one reads its recipient's wallet (D30). No
    // RPC is set, and creating or reading a session never calls the chain.
    let mut api_cmd = api_command(&bin, db);
    for (name, address) in [
        (
            "STABLEPAY_CHECKOUT_ROUTER_84532",
            "0x00000000000000000000000000000000000c0de1",
        ),
        (
            "STABLEPAY_TREASURY_84532",
            "0x00000000000000000000000000000000000c0de2",
        ),
        (
            "STABLEPAY_DEPOSIT_FACTORY_84532",
            "0x00000000000000000000000000000000000c0de3",
        ),
    ] {
        api_cmd.env(name, address);
    }
    let (mut child, api) = spawn_listening(&mut api_cmd)?;
    let meter = CpuMeter::new(pg.data_dir(), Some(child.id()));
    let result = (|| {
        seed::wait_healthy(&format!("http://{api}"), Duration::from_secs(20))?;
        seed::verify_wallet(&format!("http://{api}"), m)?;
        std::thread::sleep(Duration::from_secs(1));
        let rss_kib = rss_kib(child.id());
        let runtime = &load_runtime()?;
        let host: &'static str = Box::leak(api.clone().into_boxed_str());
        let create = move |c: usize, i: u64| {
            let body = r#"{"mode":"payment","title":"Bench","amount":"12.50"}"#;
            format!(
                "POST /api/v1/checkout/sessions HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\nIdempotency-Key: bench-{c}-{i}\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .into_bytes()
        };
        // Warm-up, not measured: the pool opens its connections on first use, and a new
        // PostgreSQL backend starts with empty catalog caches.
        runtime.block_on(drive_for(&api, 2, None, create));
        let creates = paired_rounds(
            rounds,
            |round| {
                // Each round its own idempotency keys (the warm-up's and the held load's
                // are 0 and 1): every request is a new create.
                let offset = (round + 2) * CONNECTIONS;
                metered(&meter, || {
                    runtime.block_on(drive(&api, move |c, i| create(c + offset, i)))
                })
            },
            || pgbench_run(&bin_dir, db, Some(&write_script), &meter),
        )?;
        // The bar as DESIGN §10 words it: that share of pgbench sustained, at what p99.
        let creates_held = runtime.block_on(drive_for(
            &api,
            SECONDS,
            Some(median(&creates).pgbench.tps * WRITE_BAR),
            move |c, i| create(c + CONNECTIONS, i),
        ));
        // One session to read back.
        let id = runtime.block_on(async {
            let mut sock = TcpStream::connect(&api).await.ok()?;
            let mut buf = Vec::new();
            let (_, body) = exchange(&mut sock, format!("GET /api/v1/checkout/sessions?limit=1 HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n\r\n").as_bytes(), &mut buf).await?;
            let v: serde_json::Value = serde_json::from_str(&body).ok()?;
            let session = &v["data"][0];
            Some((
                session["id"].as_str()?.to_owned(),
                session["deposit_address"].is_string(),
            ))
        });
        let (id, has_deposit_address) = id.ok_or("no session to read")?;
        if !has_deposit_address {
            return Err("the session read back has no deposit address: its GET would not read the recipient's wallet".into());
        }
        let id: &'static str = Box::leak(id.into_boxed_str());
        let read = move |_: usize, _: u64| {
            format!("GET /api/v1/checkout/sessions/{id} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n\r\n").into_bytes()
        };
        // pgbench's select-only tables were vacuumed (`pgbench -i` ends with VACUUM); the
        // reads' are too, instead of sharing the cores with the autovacuum the creates'
        // rows set off. Then an unmeasured warm-up, as for the creates.
        pg.psql(db, "VACUUM (ANALYZE)")?;
        runtime.block_on(drive_for(&api, 2, None, read));
        let reads = paired_rounds(
            rounds,
            |_| metered(&meter, || runtime.block_on(drive(&api, read))),
            || pgbench_run(&bin_dir, db, None, &meter),
        )?;
        let reads_held = runtime.block_on(drive_for(
            &api,
            SECONDS,
            Some(median(&reads).pgbench.tps * READ_BAR),
            read,
        ));
        // The api's floor: a request through the same server and middleware that touches
        // no database (the smallest static asset), bounding what any GET can reach here.
        let asset = move |_: usize, _: u64| {
            format!("GET /assets/checkout.css HTTP/1.1\r\nHost: {host}\r\n\r\n").into_bytes()
        };
        let (floor, floor_cpu) = metered(&meter, || runtime.block_on(drive(&api, asset)));
        hold_for_profiling(db, &api, key, id);
        Ok::<_, String>(ApiRuns {
            rss_kib,
            creates,
            creates_held,
            reads,
            reads_held,
            floor,
            floor_cpu,
        })
    })();
    let _ = child.kill();
    let _ = child.wait();
    let runs = result?;
    // What PostgreSQL alone allows for the GET's own statements (no HTTP, pgbench's
    // client): the ceiling any api on this box stays under.
    let get_ceilings = get_statements_ceiling(&bin_dir, db, key)?;
    print_api_table(&runs, get_ceilings);
    if std::env::var("STABLEPAY_BENCH_SKIP_LISTS").is_err() {
        crate::bench_lists::run(pg, db, &bin, key)?;
    }
    Ok(())
}

/// DESIGN §10's shares of pgbench: creates ≥ 40 % of the write transaction, reads ≥ 60 %
/// of select-only.
pub(crate) const WRITE_BAR: f64 = 0.40;
pub(crate) const READ_BAR: f64 = 0.60;

/// One round of a pair: the api's load and pgbench's, run back to back.
pub(crate) struct Paired {
    pub api: Load,
    pub api_cpu: CpuPerRequest,
    pub pgbench: PgbenchRun,
}

impl Paired {
    /// The api's rate as a share of pgbench's.
    pub fn share(&self) -> f64 {
        self.api.rate() / self.pgbench.tps
    }
}

/// `rounds` paired rounds; `api` is given the round's index. These shared machines speed
/// up and slow down by tens of per cent over minutes (pgbench alone moved 4,394–6,930 tps
/// between runs), so a share is only taken between two loads run back to back, and which
/// of the two goes first alternates, so that a drift over the run favours neither.
fn paired_rounds(
    rounds: usize,
    mut api: impl FnMut(usize) -> (Load, CpuPerRequest),
    mut pgbench: impl FnMut() -> Result<PgbenchRun, String>,
) -> Result<Vec<Paired>, String> {
    let mut paired = Vec::with_capacity(rounds);
    for r in 0..rounds {
        let (pgbench, (api, api_cpu)) = if r % 2 == 0 {
            let p = pgbench()?;
            (p, api(r))
        } else {
            let a = api(r);
            (pgbench()?, a)
        };
        paired.push(Paired {
            api,
            api_cpu,
            pgbench,
        });
    }
    Ok(paired)
}

/// The round with the median share (the lower of the middle two for an even count).
pub(crate) fn median(rounds: &[Paired]) -> &Paired {
    let mut by_share: Vec<&Paired> = rounds.iter().collect();
    by_share.sort_by(|a, b| a.share().total_cmp(&b.share()));
    by_share[(by_share.len() - 1) / 2]
}

pub(crate) struct ApiRuns {
    pub rss_kib: u64,
    pub creates: Vec<Paired>,
    pub creates_held: Load,
    pub reads: Vec<Paired>,
    pub reads_held: Load,
    pub floor: Load,
    pub floor_cpu: CpuPerRequest,
}

pub(crate) fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("VmRSS:")
                    .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
            })
        })
        .unwrap_or(0)
}
