//! `cargo xtask bench api`: POST /checkout/sessions (auth + idempotency + insert) and
//! GET /checkout/sessions/:id against a release-built api, next to pgbench on the same
//! PostgreSQL (an equivalent 3-statement write transaction, and select-only), plus the
//! api's idle RSS (DESIGN §10). Load comes from 32 keep-alive connections on loopback.

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use base64::Engine;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::bench::{percentile, BenchSetup};
use crate::seed;
use crate::util::{output, root, spawn_reporting};

const CONNECTIONS: usize = 32;
/// The secrets key `spawn_api` gives the api (a worker beside it must be given the same).
pub(crate) const API_SECRETS_KEY: [u8; 32] = [1u8; 32];
const SECONDS: u64 = 10;

/// One keep-alive HTTP/1.1 exchange; returns the status and the body.
pub(crate) async fn exchange(
    sock: &mut TcpStream,
    request: &[u8],
    buf: &mut Vec<u8>,
) -> Option<(u16, String)> {
    sock.write_all(request).await.ok()?;
    buf.clear();
    let mut chunk = [0u8; 8192];
    loop {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(buf);
        if let Some(end) = text.find("\r\n\r\n") {
            let head = text[..end].to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| {
                    l.strip_prefix("content-length:")
                        .and_then(|v| v.trim().parse().ok())
                })
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                let status = head.get(9..12)?.parse().ok()?;
                return Some((status, text[end + 4..end + 4 + len].to_owned()));
            }
        }
    }
}

pub(crate) struct Load {
    pub ok: u64,
    pub errors: u64,
    pub latencies_ms: Vec<f64>,
    pub seconds: f64,
}

/// Drives `CONNECTIONS` connections for `SECONDS`; `make(conn, i)` builds request i.
async fn drive(
    addr: &str,
    make: impl Fn(usize, u64) -> Vec<u8> + Send + Sync + Copy + 'static,
) -> Load {
    drive_for(addr, SECONDS, None, make).await
}

/// Drives `CONNECTIONS` connections for `seconds`: each sends as fast as it is answered,
/// or, with `rate` (requests per second over all connections), on its own fixed schedule
/// (an open loop, so a slow answer does not lower the offered load).
pub(crate) async fn drive_for(
    addr: &str,
    seconds: u64,
    rate: Option<f64>,
    make: impl Fn(usize, u64) -> Vec<u8> + Send + Sync + Clone + 'static,
) -> Load {
    let started = Instant::now();
    let interval = rate.map(|r| Duration::from_secs_f64(CONNECTIONS as f64 / r));
    let mut tasks = Vec::new();
    for c in 0..CONNECTIONS {
        let (addr, make) = (addr.to_owned(), make.clone());
        tasks.push(tokio::spawn(async move {
            let (mut ok, mut errors, mut lat) = (0u64, 0u64, Vec::new());
            let Ok(mut sock) = TcpStream::connect(&addr).await else {
                return (0, 1, lat);
            };
            let _ = sock.set_nodelay(true);
            let mut buf = Vec::with_capacity(8192);
            let mut next = interval.map(|i| started + i.mul_f64(c as f64 / CONNECTIONS as f64));
            let mut i = 0u64;
            while started.elapsed() < Duration::from_secs(seconds) {
                if let (Some(at), Some(step)) = (next.as_mut(), interval) {
                    if at.duration_since(started) >= Duration::from_secs(seconds) {
                        break;
                    }
                    tokio::time::sleep_until((*at).into()).await;
                    *at += step;
                }
                let t = Instant::now();
                match exchange(&mut sock, &make(c, i), &mut buf).await {
                    Some((200 | 201, _)) => ok += 1,
                    _ => errors += 1,
                }
                lat.push(t.elapsed().as_secs_f64() * 1000.0);
                i += 1;
            }
            (ok, errors, lat)
        }));
    }
    let mut load = Load {
        ok: 0,
        errors: 0,
        latencies_ms: Vec::new(),
        seconds: 0.0,
    };
    for t in tasks {
        let (ok, errors, lat) = t.await.unwrap_or_default();
        load.ok += ok;
        load.errors += errors;
        load.latencies_ms.extend(lat);
    }
    load.seconds = started.elapsed().as_secs_f64();
    load.latencies_ms
        .sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    load
}

/// A release api for load: a 32-connection pool, a limit no bench reaches, errors-only
/// logs. It binds port 0; returns the process and its `host:port`.
pub(crate) fn spawn_api(bin: &Path, db: &str) -> Result<(Child, String), String> {
    let mut cmd = Command::new(bin);
    cmd.arg("serve")
        .env("DATABASE_URL", db)
        .env("STABLEPAY_BIND", "127.0.0.1:0")
        .env(
            "STABLEPAY_SECRETS_KEY",
            base64::engine::general_purpose::STANDARD.encode(API_SECRETS_KEY),
        )
        .env("STABLEPAY_RATE_LIMIT_PER_MIN", "100000000")
        .env("STABLEPAY_DB_POOL_SIZE", "32")
        .env("STABLEPAY_LOG", "error");
    let (child, url) = spawn_reporting(&mut cmd, "listening on ", false)?;
    Ok((child, url.trim_start_matches("http://").to_owned()))
}

/// `STABLEPAY_BENCH_HOLD=<file>`: keep the database and the api up after the loads, with
/// what a profiler needs printed, until that file exists.
fn hold_for_profiling(db: &str, api: &str, key: &str, session: &str) {
    let Ok(release) = std::env::var("STABLEPAY_BENCH_HOLD") else {
        return;
    };
    println!("holding: DATABASE_URL={db} API=http://{api} KEY={key} SESSION={session}; touch {release} to go on");
    while !Path::new(&release).exists() {
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn key_of(merchants: &[seed::DemoMerchant]) -> Result<&str, String> {
    merchants
        .first()
        .map(|m| m.test_key.as_str())
        .ok_or_else(|| "no merchant".to_owned())
}

/// pgbench running the two statements a GET /checkout/sessions/:id sends (authentication,
/// then the scoped read of the newest session), prepared, as the api sends them.
fn get_statements_ceiling(bin_dir: &Path, db: &str, key: &str) -> Result<f64, String> {
    let key_hex = hex::encode(stablepay_domain::rules::api_keys::hash(key));
    let row = output(Command::new(bin_dir.join("psql")).arg(db).args([
        "-Atc",
        "SELECT id, merchant_id FROM checkout_sessions WHERE NOT livemode ORDER BY id DESC LIMIT 1",
    ]))?;
    let (id, merchant) = row
        .trim()
        .split_once('|')
        .ok_or("no session for the GET ceiling")?;
    let script = root().join("target/bench/get_statements.sql");
    std::fs::write(
        &script,
        format!(
            "SELECT k.id, k.merchant_id, k.livemode, k.rate_limit_per_min, k.last_used_at, m.fee_tier, m.fee_bps \
             FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.key_sha256 = '\\x{key_hex}' AND k.revoked_at IS NULL;\n\
             SELECT * FROM checkout_sessions WHERE id = '{id}' AND merchant_id = '{merchant}' AND livemode = false LIMIT 1;\n"
        ),
    )
    .map_err(|e| e.to_string())?;
    pgbench_tps_with(bin_dir, db, Some(&script), &["-M", "prepared"])
}

fn pgbench_tps(
    bin_dir: &std::path::Path,
    url: &str,
    script: Option<&std::path::Path>,
) -> Result<f64, String> {
    pgbench_tps_with(bin_dir, url, script, &[])
}

fn pgbench_tps_with(
    bin_dir: &std::path::Path,
    url: &str,
    script: Option<&std::path::Path>,
    extra: &[&str],
) -> Result<f64, String> {
    let mut cmd = Command::new(bin_dir.join("pgbench"));
    cmd.args(extra);
    cmd.args([
        "-n",
        "-c",
        &CONNECTIONS.to_string(),
        "-j",
        "2",
        "-T",
        &SECONDS.to_string(),
    ]);
    match script {
        Some(s) => cmd.arg("-f").arg(s),
        None => cmd.arg("-S"),
    };
    let out = output(cmd.arg(url))?;
    out.lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("tps = ")
                .and_then(|r| r.split_whitespace().next())
                .and_then(|v| v.parse().ok())
        })
        .ok_or_else(|| format!("no tps in pgbench output: {out}"))
}

pub fn run(_args: &[String]) -> Result<(), String> {
    let setup = BenchSetup::start(&["stablepay-api"], "bench", "", "bench_api")?;
    let (pg, db) = (&setup.pg, &setup.db);
    let bin = root().join("target/release/stablepay-api");
    output(Command::new(&bin).arg("migrate").env("DATABASE_URL", db))?;
    let merchants = seed::create_merchants(&bin, db)?;
    let m = merchants.first().ok_or("no merchant")?;
    let (mut child, api) = spawn_api(&bin, db)?;
    let result = (|| {
        seed::wait_healthy(&format!("http://{api}"), Duration::from_secs(20))?;
        seed::verify_wallet(&format!("http://{api}"), m)?;
        std::thread::sleep(Duration::from_secs(1));
        let rss_kib = std::fs::read_to_string(format!("/proc/{}/status", child.id()))
            .ok()
            .and_then(|s| {
                s.lines().find_map(|l| {
                    l.strip_prefix("VmRSS:").map(|v| {
                        v.trim()
                            .trim_end_matches(" kB")
                            .trim()
                            .parse::<u64>()
                            .unwrap_or(0)
                    })
                })
            })
            .unwrap_or(0);
        let runtime = &setup.runtime;
        let key: &'static str = Box::leak(m.test_key.clone().into_boxed_str());
        let host: &'static str = Box::leak(api.clone().into_boxed_str());
        let creates = runtime.block_on(drive(&api, move |c, i| {
            let body = r#"{"mode":"payment","title":"Bench","amount":"12.50"}"#;
            format!(
                "POST /api/v1/checkout/sessions HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\nIdempotency-Key: bench-{c}-{i}\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .into_bytes()
        }));
        // One session to read back.
        let id = runtime.block_on(async {
            let mut sock = TcpStream::connect(&api).await.ok()?;
            let mut buf = Vec::new();
            let (_, body) = exchange(&mut sock, format!("GET /api/v1/checkout/sessions?limit=1 HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n\r\n").as_bytes(), &mut buf).await?;
            let v: serde_json::Value = serde_json::from_str(&body).ok()?;
            v["data"][0]["id"].as_str().map(str::to_owned)
        });
        let id: &'static str = Box::leak(id.ok_or("no session to read")?.into_boxed_str());
        let reads = runtime.block_on(drive(&api, move |_, _| {
            format!("GET /api/v1/checkout/sessions/{id} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n\r\n").into_bytes()
        }));
        hold_for_profiling(db, &api, key, id);
        Ok::<_, String>((rss_kib, creates, reads))
    })();
    let _ = child.kill();
    let _ = child.wait();
    let (rss_kib, creates, reads) = result?;

    // pgbench on the same server: the create's 3 statements, and select-only.
    let bin_dir = pg
        .bin_dir()
        .ok_or("pgbench needs the throwaway cluster's binaries")?;
    let script = root().join("target/bench/create_equivalent.sql");
    std::fs::write(
        &script,
        "\\set n random(1, 1000000000)\n\
         BEGIN;\n\
         INSERT INTO pgbench_idem (k, h) VALUES ('k' || :n || '-' || :client_id, 'x') ON CONFLICT DO NOTHING;\n\
         INSERT INTO pgbench_sessions (id, merchant, title, amount, expires_at, created_at) VALUES (gen_random_uuid(), :client_id, 'Bench', 12500000, now() + interval '1 day', now());\n\
         INSERT INTO pgbench_outbox (id, data) VALUES (gen_random_uuid(), '{}');\n\
         END;\n",
    )
    .map_err(|e| e.to_string())?;
    output(
        Command::new(bin_dir.join("psql"))
            .arg(db)
            .args(["-q", "-c", "CREATE TABLE pgbench_idem (k text PRIMARY KEY, h text); CREATE TABLE pgbench_sessions (id uuid PRIMARY KEY, merchant int, title text, amount bigint, expires_at timestamptz, created_at timestamptz); CREATE TABLE pgbench_outbox (id uuid PRIMARY KEY, data text);"]),
    )?;
    let write_tps = pgbench_tps(&bin_dir, db, Some(&script))?;
    output(
        Command::new(bin_dir.join("pgbench"))
            .args(["-i", "-q", "-s", "1"])
            .arg(db),
    )?;
    let read_tps = pgbench_tps(&bin_dir, db, None)?;
    // What PostgreSQL alone allows for the GET's own statements (no HTTP, pgbench's
    // client): the ceiling any api on this box stays under.
    let get_statements_tps = get_statements_ceiling(&bin_dir, db, key_of(&merchants)?)?;
    let create_tps = creates.ok as f64 / creates.seconds;
    let get_tps = reads.ok as f64 / reads.seconds;
    println!();
    println!("| api benchmark ({CONNECTIONS} connections, {SECONDS} s each, 2 cores, load generator on the same box) | value |");
    println!("|---|---|");
    println!("| POST /checkout/sessions | {create_tps:.0} req/s, {} errors, p50 {:.1} ms, p99 {:.1} ms |", creates.errors, percentile(&creates.latencies_ms, 0.5), percentile(&creates.latencies_ms, 0.99));
    println!(
        "| pgbench, equivalent 3-statement transaction | {write_tps:.0} tps → api at {:.0} % |",
        create_tps / write_tps * 100.0
    );
    println!("| GET /checkout/sessions/:id | {get_tps:.0} req/s, {} errors, p50 {:.1} ms, p99 {:.1} ms |", reads.errors, percentile(&reads.latencies_ms, 0.5), percentile(&reads.latencies_ms, 0.99));
    println!(
        "| pgbench select-only | {read_tps:.0} tps → api at {:.0} % |",
        get_tps / read_tps * 100.0
    );
    println!(
        "| pgbench, the GET's own auth + read statements, prepared, no HTTP | {get_statements_tps:.0} tps = {:.0} % of select-only (the ceiling for the GET ratio) |",
        get_statements_tps / read_tps * 100.0
    );
    println!(
        "| api RSS after start-up | {:.1} MiB |",
        rss_kib as f64 / 1024.0
    );
    if std::env::var("STABLEPAY_BENCH_SKIP_LISTS").is_err() {
        let key: &'static str = Box::leak(m.test_key.clone().into_boxed_str());
        crate::bench_lists::run(pg, db, &bin, key)?;
    }
    Ok(())
}
