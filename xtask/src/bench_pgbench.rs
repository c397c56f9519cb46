//! pgbench's side of `cargo xtask bench api`: the same work as the api's requests, run by
//! pgbench on the same PostgreSQL, which the api's rates are measured against.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cpu::{CpuMeter, CpuPerRequest};
use crate::load::{CONNECTIONS, SECONDS};
use crate::util::{output, root};

/// Writes a pgbench script `target/bench/<name>.sql`; its path.
fn script(name: &str, text: &str) -> Result<PathBuf, String> {
    let path = root().join(format!("target/bench/{name}.sql"));
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// pgbench running a GET /checkout/sessions/:id's work as two statements (authentication,
/// then the scoped read of the newest session with its recipient's wallet), prepared; and
/// the same work as one statement (the key joined to the session and wallet), as the api
/// sends it to a key it has seen. Both in tps.
pub(crate) fn get_statements_ceiling(
    bin_dir: &Path,
    db: &str,
    key: &str,
) -> Result<(f64, f64), String> {
    let key_hex = hex::encode(stablepay_domain::rules::api_keys::hash(key));
    let row = output(Command::new(bin_dir.join("psql")).arg(db).args([
        "-Atc",
        "SELECT id, merchant_id FROM checkout_sessions WHERE NOT livemode ORDER BY id DESC LIMIT 1",
    ]))?;
    let (id, merchant) = row
        .trim()
        .split_once('|')
        .ok_or("no session for the GET ceiling")?;
    let auth = format!(
        "SELECT k.id, k.merchant_id, k.livemode, k.rate_limit_per_min, k.last_used_at, m.fee_tier, m.fee_bps \
         FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.key_sha256 = '\\x{key_hex}' AND k.revoked_at IS NULL"
    );
    let two = script(
        "get_statements",
        &format!(
            "{auth};\nSELECT s.*, w.* FROM checkout_sessions s LEFT JOIN wallets w ON w.merchant_id = s.merchant_id AND w.address = s.recipient_address WHERE s.id = '{id}' AND s.merchant_id = '{merchant}' AND s.livemode = false LIMIT 1;\n"
        ),
    )?;
    let one = script(
        "get_one_statement",
        &format!(
            "SELECT a.*, s.*, w.* FROM ({auth}) a LEFT JOIN checkout_sessions s ON s.id = '{id}' AND s.merchant_id = a.merchant_id AND s.livemode = a.livemode LEFT JOIN wallets w ON w.merchant_id = s.merchant_id AND w.address = s.recipient_address;\n"
        ),
    )?;
    Ok((
        pgbench_tps_with(bin_dir, db, Some(&two), &["-M", "prepared"])?,
        pgbench_tps_with(bin_dir, db, Some(&one), &["-M", "prepared"])?,
    ))
}

pub(crate) fn pgbench_tps_with(
    bin_dir: &Path,
    url: &str,
    script: Option<&Path>,
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

/// pgbench's equivalent of a create: the create's 3 statements in one transaction, on
/// tables made for it here. Also initialises select-only's tables (`pgbench -i`, which
/// ends with a VACUUM). Returns the write script.
pub(crate) fn prepare(bin_dir: &Path, db: &str) -> Result<PathBuf, String> {
    let script = script(
        "create_equivalent",
        "\\set n random(1, 1000000000)\n\
         BEGIN;\n\
         INSERT INTO pgbench_idem (k, h) VALUES ('k' || :n || '-' || :client_id, 'x') ON CONFLICT DO NOTHING;\n\
         INSERT INTO pgbench_sessions (id, merchant, title, amount, expires_at, created_at) VALUES (gen_random_uuid(), :client_id, 'Bench', 12500000, now() + interval '1 day', now());\n\
         INSERT INTO pgbench_outbox (id, data) VALUES (gen_random_uuid(), '{}');\n\
         END;\n",
    )?;
    output(
        Command::new(bin_dir.join("psql"))
            .arg(db)
            .args(["-q", "-c", "CREATE TABLE pgbench_idem (k text PRIMARY KEY, h text); CREATE TABLE pgbench_sessions (id uuid PRIMARY KEY, merchant int, title text, amount bigint, expires_at timestamptz, created_at timestamptz); CREATE TABLE pgbench_outbox (id uuid PRIMARY KEY, data text);"]),
    )?;
    output(
        Command::new(bin_dir.join("pgbench"))
            .args(["-i", "-q", "-s", "1"])
            .arg(db),
    )?;
    Ok(script)
}

/// One pgbench run of `script` (select-only when `None`): its tps, CPU per transaction and
/// per-transaction latencies, logged under `target/bench/pgbench_log`.
pub(crate) fn pgbench_run(
    bin_dir: &Path,
    db: &str,
    script: Option<&Path>,
    meter: &CpuMeter,
) -> Result<PgbenchRun, String> {
    let logs = root().join("target/bench/pgbench_log");
    let _ = std::fs::remove_dir_all(&logs);
    std::fs::create_dir_all(&logs).map_err(|e| e.to_string())?;
    let prefix = logs.join("tx");
    let prefix_arg = prefix.to_string_lossy().into_owned();
    let before = meter.sample();
    let tps = pgbench_tps_with(bin_dir, db, script, &["-l", "--log-prefix", &prefix_arg])?;
    let cpu = meter.per_request(before, meter.sample(), (tps * SECONDS as f64) as u64);
    let (latencies_ms, slowest_second) = logged(&logs);
    Ok(PgbenchRun {
        tps,
        cpu,
        latencies_ms,
        slowest_second,
    })
}

pub(crate) struct PgbenchRun {
    pub tps: f64,
    pub cpu: CpuPerRequest,
    pub latencies_ms: Vec<f64>,
    /// The fewest transactions finished in one whole second of the run.
    pub slowest_second: u64,
}

/// Latencies from pgbench's per-transaction logs (third field, µs), sorted, in ms; and the
/// fewest transactions finished in one whole second (fifth field, epoch seconds), the
/// first and last seconds, which the run covers only in part, left out.
fn logged(dir: &Path) -> (Vec<f64>, u64) {
    let mut latencies = Vec::new();
    let mut per_second = std::collections::BTreeMap::<u64, u64>::new();
    let texts = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok());
    for text in texts {
        for line in text.lines() {
            let mut fields = line.split_whitespace().skip(2);
            let (Some(us), Some(epoch)) = (fields.next(), fields.nth(1)) else {
                continue;
            };
            if let (Ok(us), Ok(epoch)) = (us.parse::<f64>(), epoch.parse::<u64>()) {
                latencies.push(us / 1000.0);
                *per_second.entry(epoch).or_default() += 1;
            }
        }
    }
    latencies.sort_by(f64::total_cmp);
    let counts: Vec<u64> = per_second.into_values().collect();
    let whole = counts
        .get(1..counts.len().saturating_sub(1))
        .unwrap_or_default();
    (latencies, whole.iter().copied().min().unwrap_or(0))
}
