//! Where a bench's CPU went: core time used by the api process, by the PostgreSQL cluster
//! (the postmaster, its live backends, and the backends it has already reaped), by this
//! process (the load generator), and by waited-for children (pgbench), read from /proc.
//! A ratio says how fast; this says what to make cheaper.

use std::path::Path;

/// Core time in clock ticks, per party, plus the whole machine's busy and total ticks.
#[derive(Clone, Copy, Default)]
pub struct Ticks {
    api: u64,
    postgres: u64,
    generator: u64,
    children: u64,
    busy: u64,
    total: u64,
}

/// Samples the parties of one bench run.
pub struct CpuMeter {
    api: Option<u32>,
    postmaster: Option<u32>,
    ticks_per_second: f64,
}

/// A measured interval, per request.
pub struct CpuPerRequest {
    pub api_us: f64,
    pub postgres_us: f64,
    pub generator_us: f64,
    pub children_us: f64,
    pub busy_percent: f64,
}

impl CpuMeter {
    /// `data_dir` is the cluster's; `api` the api's pid, if one runs.
    pub fn new(data_dir: Option<&Path>, api: Option<u32>) -> Self {
        let postmaster = data_dir
            .and_then(|d| std::fs::read_to_string(d.join("postmaster.pid")).ok())
            .and_then(|s| s.lines().next().and_then(|l| l.trim().parse().ok()));
        let ticks_per_second = std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
            .unwrap_or(100.0);
        Self {
            api,
            postmaster,
            ticks_per_second,
        }
    }

    pub fn sample(&self) -> Ticks {
        let (busy, total) = machine();
        let me = proc_stat("self");
        Ticks {
            api: self.api.map_or(0, |p| own(&proc_stat(p))),
            postgres: self.postmaster.map_or(0, cluster),
            generator: own(&me),
            children: reaped(&me),
            busy,
            total,
        }
    }

    /// Microseconds of core time per request between two samples.
    pub fn per_request(&self, before: Ticks, after: Ticks, requests: u64) -> CpuPerRequest {
        let us = |b: u64, a: u64| {
            a.saturating_sub(b) as f64 / self.ticks_per_second * 1e6 / requests.max(1) as f64
        };
        CpuPerRequest {
            api_us: us(before.api, after.api),
            postgres_us: us(before.postgres, after.postgres),
            generator_us: us(before.generator, after.generator),
            children_us: us(before.children, after.children),
            busy_percent: after.busy.saturating_sub(before.busy) as f64
                / after.total.saturating_sub(before.total).max(1) as f64
                * 100.0,
        }
    }
}

/// The fields of `/proc/<pid>/stat` (or `/proc/self/stat`) after the command name.
fn proc_stat(pid: impl std::fmt::Display) -> Vec<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The command name is in parentheses and may hold spaces: parse after the last ')'.
    let rest = text.rsplit_once(')').map_or("", |(_, r)| r);
    rest.split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect()
}

/// utime + stime (fields 14 and 15; index 11 and 12 after the name).
fn own(fields: &[u64]) -> u64 {
    fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0)
}

/// cutime + cstime: waited-for children.
fn reaped(fields: &[u64]) -> u64 {
    fields.get(13).copied().unwrap_or(0) + fields.get(14).copied().unwrap_or(0)
}

/// The postmaster's own and reaped time plus every live child's own time.
fn cluster(postmaster: u32) -> u64 {
    let root = proc_stat(postmaster);
    let mut sum = own(&root) + reaped(&root);
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return sum;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let fields = proc_stat(pid);
        // Field 4 (ppid) is index 1 after the name.
        if fields.get(1).copied() == Some(u64::from(postmaster)) {
            sum += own(&fields);
        }
    }
    sum
}

/// (busy, total) ticks of the whole machine from the first line of /proc/stat.
fn machine() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let fields: Vec<u64> = text
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let total: u64 = fields.iter().take(8).sum();
    // idle and iowait are the 4th and 5th.
    let idle = fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0);
    (total.saturating_sub(idle), total)
}
