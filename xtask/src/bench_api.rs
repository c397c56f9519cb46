//! `cargo xtask bench api`: POST /checkout/sessions (auth + idempotency + insert) and
//! GET /checkout/sessions/:id against a release-built api, next to pgbench on the same
//! PostgreSQL (an equivalent 3-statement write transaction, and select-only), plus the
//! api's idle RSS (DESIGN §10). Load comes from 32 keep-alive connections on loopback.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use tokio::net::TcpStream;

use crate::bench::{percentile, BenchSetup};
use crate::bench_pgbench::{get_statements_ceiling, pgbench_tps_with, pgbench_write, PgbenchWrite};
use crate::cpu::{CpuMeter, CpuPerRequest};
use crate::load::{
    drive, drive_for, exchange, hold_for_profiling, load_runtime, metered, spawn_api, Load,
    CONNECTIONS, SECONDS,
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

    // pgbench first (nothing else running): the rates the api is then held to.
    let bin_dir = pg
        .bin_dir()
        .ok_or("pgbench needs the throwaway cluster's binaries")?;
    let idle_meter = CpuMeter::new(pg.data_dir(), None);
    let pgbench = pgbench_write(&bin_dir, db, &idle_meter)?;
    let write_tps = pgbench.tps;
    output(
        Command::new(bin_dir.join("pgbench"))
            .args(["-i", "-q", "-s", "1"])
            .arg(db),
    )?;
    let before = idle_meter.sample();
    let read_tps = pgbench_tps_with(&bin_dir, db, None, &[])?;
    let read_cpu = idle_meter.per_request(
        before,
        idle_meter.sample(),
        (read_tps * SECONDS as f64) as u64,
    );

    let (mut child, api) = spawn_api(&bin, db)?;
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
        runtime.block_on(drive_for(&api, 2, None, move |c, i| {
            create(c + 2 * CONNECTIONS, i)
        }));
        let (creates, create_cpu) = metered(&meter, || runtime.block_on(drive(&api, create)));
        // The bar as DESIGN §10 words it: that share of pgbench sustained, at what p99.
        let creates_held = runtime.block_on(drive_for(
            &api,
            SECONDS,
            Some(write_tps * WRITE_BAR),
            move |c, i| create(c + CONNECTIONS, i),
        ));
        // One session to read back.
        let id = runtime.block_on(async {
            let mut sock = TcpStream::connect(&api).await.ok()?;
            let mut buf = Vec::new();
            let (_, body) = exchange(&mut sock, format!("GET /api/v1/checkout/sessions?limit=1 HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n\r\n").as_bytes(), &mut buf).await?;
            let v: serde_json::Value = serde_json::from_str(&body).ok()?;
            v["data"][0]["id"].as_str().map(str::to_owned)
        });
        let id: &'static str = Box::leak(id.ok_or("no session to read")?.into_boxed_str());
        let read = move |_: usize, _: u64| {
            format!("GET /api/v1/checkout/sessions/{id} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n\r\n").into_bytes()
        };
        // pgbench's select-only ran on a vacuumed database (`pgbench -i` ends with VACUUM);
        // the reads do too, instead of sharing the cores with the autovacuum the creates'
        // rows set off. Then an unmeasured warm-up, as for the creates.
        pg.psql(db, "VACUUM (ANALYZE)")?;
        runtime.block_on(drive_for(&api, 2, None, read));
        let (reads, read_api_cpu) = metered(&meter, || runtime.block_on(drive(&api, read)));
        let reads_held =
            runtime.block_on(drive_for(&api, SECONDS, Some(read_tps * READ_BAR), read));
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
            create_cpu,
            creates_held,
            reads,
            read_cpu: read_api_cpu,
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
    print_api_table(&runs, &pgbench, read_tps, get_ceilings, &read_cpu);
    if std::env::var("STABLEPAY_BENCH_SKIP_LISTS").is_err() {
        crate::bench_lists::run(pg, db, &bin, key)?;
    }
    Ok(())
}

/// DESIGN §10's shares of pgbench: creates ≥ 40 % of the write transaction, reads ≥ 60 %
/// of select-only.
const WRITE_BAR: f64 = 0.40;
const READ_BAR: f64 = 0.60;

struct ApiRuns {
    rss_kib: u64,
    creates: Load,
    create_cpu: CpuPerRequest,
    creates_held: Load,
    reads: Load,
    read_cpu: CpuPerRequest,
    reads_held: Load,
    floor: Load,
    floor_cpu: CpuPerRequest,
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

fn load_row(label: &str, load: &Load) -> String {
    format!(
        "| {label} | {:.0} req/s, {} errors, p50 {:.1} ms, p99 {:.1} ms |",
        load.rate(),
        load.errors,
        load.ms(0.5),
        load.ms(0.99)
    )
}

fn cpu_row(label: &str, cpu: &CpuPerRequest, client: &str, client_us: f64) -> String {
    format!(
        "| CPU per request, {label} | api {:.0} µs, PostgreSQL {:.0} µs, {client} {client_us:.0} µs; machine {:.0} % busy |",
        cpu.api_us, cpu.postgres_us, cpu.busy_percent
    )
}

fn print_api_table(
    runs: &ApiRuns,
    pgbench: &PgbenchWrite,
    read_tps: f64,
    (get_statements_tps, get_one_statement_tps): (f64, f64),
    read_cpu: &CpuPerRequest,
) {
    let (write_tps, write_cpu) = (pgbench.tps, &pgbench.cpu);
    let (create_tps, get_tps) = (runs.creates.rate(), runs.reads.rate());
    println!();
    println!("| api benchmark ({CONNECTIONS} connections, {SECONDS} s each, 2 cores, load generator on the same box) | value |");
    println!("|---|---|");
    println!(
        "{}",
        load_row(
            "POST /checkout/sessions, as fast as answered",
            &runs.creates
        )
    );
    println!(
        "| pgbench, equivalent 3-statement transaction | {write_tps:.0} tps, p50 {:.1} ms, p99 {:.1} ms → api at {:.0} % |",
        percentile(&pgbench.latencies_ms, 0.5),
        percentile(&pgbench.latencies_ms, 0.99),
        create_tps / write_tps * 100.0
    );
    println!(
        "{}",
        load_row(
            &format!(
                "POST /checkout/sessions, offered {:.0}/s ({:.0} % of pgbench) on a fixed schedule",
                write_tps * WRITE_BAR,
                WRITE_BAR * 100.0
            ),
            &runs.creates_held
        )
    );
    println!(
        "{}",
        load_row(
            "GET /checkout/sessions/:id, as fast as answered",
            &runs.reads
        )
    );
    println!(
        "| pgbench select-only | {read_tps:.0} tps → api at {:.0} % |",
        get_tps / read_tps * 100.0
    );
    println!(
        "{}",
        load_row(
            &format!(
                "GET /checkout/sessions/:id, offered {:.0}/s ({:.0} % of select-only) on a fixed schedule",
                read_tps * READ_BAR,
                READ_BAR * 100.0
            ),
            &runs.reads_held
        )
    );
    println!(
        "| pgbench, the GET's own auth + read statements, prepared, no HTTP | {get_statements_tps:.0} tps = {:.0} % of select-only |",
        get_statements_tps / read_tps * 100.0
    );
    println!(
        "| pgbench, the same auth + read as one statement, prepared, no HTTP | {get_one_statement_tps:.0} tps = {:.0} % of select-only |",
        get_one_statement_tps / read_tps * 100.0
    );
    println!(
        "| GET /assets/checkout.css (2.5 KB, no database: the api's HTTP floor), as fast as answered | {:.0} req/s, {} errors, p99 {:.1} ms = {:.0} % of select-only |",
        runs.floor.rate(),
        runs.floor.errors,
        runs.floor.ms(0.99),
        runs.floor.rate() / read_tps * 100.0
    );
    let gen = "load generator";
    println!(
        "{}",
        cpu_row("POST", &runs.create_cpu, gen, runs.create_cpu.generator_us)
    );
    println!(
        "{}",
        cpu_row("pgbench write", write_cpu, "pgbench", write_cpu.children_us)
    );
    println!(
        "{}",
        cpu_row("GET", &runs.read_cpu, gen, runs.read_cpu.generator_us)
    );
    println!(
        "{}",
        cpu_row(
            "HTTP floor",
            &runs.floor_cpu,
            gen,
            runs.floor_cpu.generator_us
        )
    );
    println!(
        "{}",
        cpu_row(
            "pgbench select-only",
            read_cpu,
            "pgbench",
            read_cpu.children_us
        )
    );
    println!(
        "| api RSS after start-up | {:.1} MiB |",
        runs.rss_kib as f64 / 1024.0
    );
}
