//! The benches' HTTP load: keep-alive exchanges parsed in place, loads of `CONNECTIONS`
//! connections as fast as answered or on a fixed schedule, their CPU, and the release api
//! they run against (`bench api`, `bench lists`, `bench webhooks`' latency, `bench
//! settlement --x402`).

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use base64::Engine;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::bench::percentile;
use crate::cpu::{CpuMeter, CpuPerRequest};
use crate::util::spawn_reporting;

pub(crate) const CONNECTIONS: usize = 32;
/// The secrets key `spawn_api` gives the api (a worker beside it must be given the same).
pub(crate) const API_SECRETS_KEY: [u8; 32] = [1u8; 32];
/// How long each load runs.
pub(crate) const SECONDS: u64 = 10;
/// How long a load on a schedule that fell behind is followed after its end.
const OVERRUN_SECONDS: u64 = 10;

/// One keep-alive HTTP/1.1 exchange; returns the status and the body, read into `buf` and
/// borrowed from it. Parses bytes in place and copies no body: the load generator shares
/// the api's two cores, so it must stay cheap.
pub(crate) async fn exchange<'b>(
    sock: &mut TcpStream,
    request: &[u8],
    buf: &'b mut Vec<u8>,
) -> Option<(u16, std::borrow::Cow<'b, str>)> {
    sock.write_all(request).await.ok()?;
    buf.clear();
    let mut chunk = [0u8; 8192];
    let mut head_end = None;
    let mut length = 0usize;
    loop {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if head_end.is_none() {
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                head_end = Some(end);
                length = content_length(&buf[..end]);
            }
        }
        if let Some(end) = head_end {
            if buf.len() >= end + 4 + length {
                let status = std::str::from_utf8(buf.get(9..12)?).ok()?.parse().ok()?;
                let body = String::from_utf8_lossy(&buf[end + 4..end + 4 + length]);
                return Some((status, body));
            }
        }
    }
}

fn content_length(head: &[u8]) -> usize {
    const NAME: &[u8] = b"content-length:";
    head.split(|&b| b == b'\n')
        .find(|line| line.len() > NAME.len() && line[..NAME.len()].eq_ignore_ascii_case(NAME))
        .and_then(|line| std::str::from_utf8(&line[NAME.len()..]).ok())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

pub(crate) struct Load {
    pub ok: u64,
    pub errors: u64,
    pub latencies_ms: Vec<f64>,
    pub seconds: f64,
    /// Answers completed in each second of the run: a stall shows as a slow second.
    pub per_second: Vec<u64>,
}

impl Load {
    /// Successful requests per second.
    pub fn rate(&self) -> f64 {
        self.ok as f64 / self.seconds
    }

    /// The fewest answers completed in one whole second of the run.
    pub fn slowest_second(&self) -> u64 {
        let whole = (self.seconds.floor() as usize).min(self.per_second.len());
        self.per_second[..whole].iter().copied().min().unwrap_or(0)
    }

    /// The latency at quantile `q`, in ms.
    pub fn ms(&self, q: f64) -> f64 {
        percentile(&self.latencies_ms, q)
    }
}

/// Where the loads run: one thread, as each of pgbench's. On a multi-thread runtime the
/// workers woke each other for every answer: the generator took 17 µs of CPU per GET
/// against pgbench's 10 µs per select-only transaction, and both share the api's cores.
pub(crate) fn load_runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
}

/// Runs a load and meters it: the load and its CPU per request.
pub(crate) fn metered(meter: &CpuMeter, run: impl FnOnce() -> Load) -> (Load, CpuPerRequest) {
    let before = meter.sample();
    let load = run();
    let cpu = meter.per_request(before, meter.sample(), load.ok + load.errors);
    (load, cpu)
}

/// Drives `CONNECTIONS` connections for `SECONDS`; `make(conn, i)` builds request i.
pub(crate) async fn drive(
    addr: &str,
    make: impl Fn(usize, u64) -> Vec<u8> + Send + Sync + Copy + 'static,
) -> Load {
    drive_for(addr, SECONDS, None, make).await
}

/// Drives `CONNECTIONS` connections for `seconds`: each sends as fast as it is answered,
/// or, with `rate` (requests per second over all connections), on its own fixed schedule,
/// one request in flight per connection; a slow answer delays the next send but not its
/// due time, which latency counts from.
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
            let mut per_second = vec![0u64; (seconds + OVERRUN_SECONDS + 1) as usize];
            let Ok(mut sock) = TcpStream::connect(&addr).await else {
                return (0, 1, lat, per_second);
            };
            let _ = sock.set_nodelay(true);
            let mut buf = Vec::with_capacity(8192);
            let mut next = interval.map(|i| started + i.mul_f64(c as f64 / CONNECTIONS as f64));
            let mut i = 0u64;
            let end = Duration::from_secs(seconds);
            // A schedule that falls behind is followed to its end, up to this long after.
            let cap = end + Duration::from_secs(OVERRUN_SECONDS);
            loop {
                // On a schedule, latency counts from when the request was due, so a late
                // send (the previous answer was slow) is not left out (coordinated omission).
                let mut t = Instant::now();
                match (next.as_mut(), interval) {
                    (Some(at), Some(step)) => {
                        if at.duration_since(started) >= end {
                            break;
                        }
                        if started.elapsed() >= cap {
                            // Due but never sent: errors, each as late as the cut-off.
                            while at.duration_since(started) < end {
                                errors += 1;
                                lat.push(at.elapsed().as_secs_f64() * 1000.0);
                                *at += step;
                            }
                            break;
                        }
                        tokio::time::sleep_until((*at).into()).await;
                        t = *at;
                        *at += step;
                    }
                    _ if started.elapsed() >= end => break,
                    _ => {}
                }
                match exchange(&mut sock, &make(c, i), &mut buf).await {
                    Some((200 | 201, _)) => ok += 1,
                    _ => errors += 1,
                }
                // One clock read per answer: the generator shares the cores it measures.
                let answered = Instant::now();
                lat.push((answered - t).as_secs_f64() * 1000.0);
                if let Some(n) = per_second.get_mut((answered - started).as_secs() as usize) {
                    *n += 1;
                }
                i += 1;
            }
            (ok, errors, lat, per_second)
        }));
    }
    let mut load = Load {
        ok: 0,
        errors: 0,
        latencies_ms: Vec::new(),
        seconds: 0.0,
        per_second: vec![0; (seconds + OVERRUN_SECONDS + 1) as usize],
    };
    for t in tasks {
        let (ok, errors, lat, per_second) = t.await.unwrap_or_default();
        load.ok += ok;
        load.errors += errors;
        load.latencies_ms.extend(lat);
        for (all, n) in load.per_second.iter_mut().zip(per_second) {
            *all += n;
        }
    }
    load.seconds = started.elapsed().as_secs_f64();
    load.latencies_ms.sort_by(f64::total_cmp);
    load
}

/// A release api for load: its default pool (`STABLEPAY_DB_POOL_SIZE`, 6), a limit no
/// bench reaches, errors-only logs. It binds port 0; returns the process and its `host:port`.
pub(crate) fn spawn_api(bin: &Path, db: &str) -> Result<(Child, String), String> {
    spawn_listening(&mut api_command(bin, db))
}

/// `stablepay-api serve` as `spawn_api` runs it, for a bench to add to.
pub(crate) fn api_command(bin: &Path, db: &str) -> Command {
    let mut cmd = Command::new(bin);
    cmd.arg("serve")
        .env("DATABASE_URL", db)
        .env("STABLEPAY_BIND", "127.0.0.1:0")
        .env(
            "STABLEPAY_SECRETS_KEY",
            base64::engine::general_purpose::STANDARD.encode(API_SECRETS_KEY),
        )
        .env("STABLEPAY_RATE_LIMIT_PER_MIN", "100000000")
        .env("STABLEPAY_LOG", "error");
    cmd
}

/// Starts an api command; returns the process and the `host:port` it listens on.
pub(crate) fn spawn_listening(cmd: &mut Command) -> Result<(Child, String), String> {
    let (child, url) = spawn_reporting(cmd, "listening on ", false)?;
    Ok((child, url.trim_start_matches("http://").to_owned()))
}

/// `STABLEPAY_BENCH_HOLD=<file>`: keep the database and the api up after the loads, with
/// what a profiler needs printed, until that file exists.
pub(crate) fn hold_for_profiling(db: &str, api: &str, key: &str, session: &str) {
    let Ok(release) = std::env::var("STABLEPAY_BENCH_HOLD") else {
        return;
    };
    println!("holding: DATABASE_URL={db} API=http://{api} KEY={key} SESSION={session}; touch {release} to go on");
    while !Path::new(&release).exists() {
        std::thread::sleep(Duration::from_millis(200));
    }
}
