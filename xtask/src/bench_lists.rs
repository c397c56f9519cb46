//! `cargo xtask bench api`, second half: every list endpoint and filter (page of 20) over
//! 1,000,000 sessions, 1,000,000 payments and 5,000,000 webhook delivery records of one
//! merchant, with the plans PostgreSQL used (auto_explain) and the sequential scans seen.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::cpu::CpuMeter;
use crate::load::{drive_for, exchange, metered, spawn_api};
use crate::pg::Postgres;
use crate::seed;

const SESSIONS: u64 = 1_000_000;
const PAYMENTS: u64 = 1_000_000;
const WEBHOOK_EVENTS: u64 = 5_000_000;
const SECONDS_EACH: u64 = 5;
/// A second merchant whose rows are all newer than the benchmarked one's, so a plan
/// that walks the primary key instead of the merchant's index shows up.
const OTHER: &str = "01a20000-0000-7000-8000-00000000beef";
const TABLES: [&str; 4] = [
    "checkout_sessions",
    "payments",
    "webhook_events",
    "api_keys",
];

fn seed_sql(merchant: &str) -> Vec<(&'static str, String)> {
    let addr = format!("0x{}", "ab".repeat(20));
    vec![
        ("function", crate::bench::V7_FUNCTION.to_owned()),
        ("1,000,000 checkout sessions", format!(
            "INSERT INTO checkout_sessions (id, merchant_id, livemode, mode, status, title, amount_micros,
               currency, fee_bps, fee_micros, net_micros, fee_tier, chain_id, token_address,
               recipient_address, customer_reference, expires_at, completed_at, created_at)
             SELECT bench_v7(ts), '{merchant}', false, 'payment',
               CASE WHEN i % 10 = 0 THEN 'open' WHEN i % 10 < 4 THEN 'expired' ELSE 'completed' END,
               'Seeded', 12500000, 'USDC', 100, 125000, 12375000, 'standard', 84532, '{addr}', '{addr}',
               CASE WHEN i % 10 = 1 THEN 'cust-' || (i % 1000) END,
               CASE WHEN i % 10 = 0 THEN now() + interval '1 day' ELSE ts + interval '1 hour' END,
               CASE WHEN i % 10 >= 4 THEN ts + interval '1 minute' END, ts
             FROM generate_series(1, {SESSIONS}) i,
                  LATERAL (SELECT now() - interval '3 hours' - ({SESSIONS} - i) * interval '1 second' AS ts) t")),
        // A busy merchant's newest sessions are open and payable: an expired page must not
        // walk them (it did, 200–290 ms a page, while `status=expired` was one OR).
        ("100,000 newer open sessions, still payable", format!(
            "INSERT INTO checkout_sessions (id, merchant_id, livemode, mode, status, title, amount_micros,
               currency, fee_bps, fee_micros, net_micros, fee_tier, chain_id, token_address,
               recipient_address, expires_at, created_at)
             SELECT bench_v7(ts), '{merchant}', false, 'payment', 'open', 'Seeded', 12500000, 'USDC',
               100, 125000, 12375000, 'standard', 84532, '{addr}', '{addr}', now() + interval '1 day', ts
             FROM generate_series(1, 100000) i,
                  LATERAL (SELECT now() - interval '2 hours' + i * interval '10 ms' AS ts) t")),
        ("1,000,000 payments", format!(
            "INSERT INTO payments (id, merchant_id, livemode, status, charge_type, amount_micros, currency,
               fee_micros, merchant_micros, wallet_address, chain_id, token_address, tx_hash, log_index,
               block_number, block_hash, created_at)
             SELECT bench_v7(ts), '{merchant}', false,
               CASE WHEN i % 20 = 0 THEN 'refunded' WHEN i % 50 = 1 THEN 'failed' ELSE 'confirmed' END,
               'one_time', 12500000, 'USDC', 125000, 12375000, '{addr}', 84532, '{addr}',
               '0x' || lpad(to_hex(i), 64, '0'), 0, i, '0x' || lpad(to_hex(i), 64, '0'), ts
             FROM generate_series(1, {PAYMENTS}) i,
                  LATERAL (SELECT now() - interval '3 hours' - ({PAYMENTS} - i) * interval '1 second' AS ts) t")),
        ("a payment for the newest session", format!(
            "UPDATE payments SET checkout_session_id = (SELECT id FROM checkout_sessions
               WHERE merchant_id = '{merchant}' ORDER BY id DESC LIMIT 1)
             WHERE id = (SELECT id FROM payments WHERE merchant_id = '{merchant}' ORDER BY id DESC LIMIT 1)")),
        ("5 webhook endpoints", format!(
            "INSERT INTO webhook_endpoints (id, merchant_id, livemode, url, status, secret_ciphertext, created_at)
             SELECT bench_v7(now() - interval '400 days' + i * interval '1 ms'), '{merchant}', false,
               'https://example.com/hook' || i, 'enabled', '\\x00', now() - interval '400 days'
             FROM generate_series(1, 5) i")),
        ("5,000,000 webhook delivery records", format!(
            "INSERT INTO webhook_events (id, merchant_id, livemode, type, endpoint_id, status, attempts,
               payload, created_at)
             SELECT bench_v7(ts), '{merchant}', false,
               (ARRAY['checkout.session.completed', 'payment.succeeded', 'payment.refunded',
                      'payment.failed'])[1 + i % 4],
               e.ids[1 + i % 5],
               CASE WHEN i % 20 = 0 THEN 'failed' ELSE 'succeeded' END, 1,
               '{{\"id\":\"evt_seed\",\"type\":\"payment.succeeded\",\"created_at\":\"2026-01-01T00:00:00.000Z\",\"data\":{{\"object\":{{}}}}}}', ts
             FROM generate_series(1, {WEBHOOK_EVENTS}) i,
                  (SELECT array_agg(id ORDER BY id) AS ids FROM webhook_endpoints WHERE merchant_id = '{merchant}') e,
                  LATERAL (SELECT now() - interval '3 hours' - ({WEBHOOK_EVENTS} - i) * interval '200 ms' AS ts) t")),
        ("another merchant's 50,000 newer rows in each table", format!(
            "INSERT INTO merchants (id, name, fee_tier, fee_bps) VALUES ('{OTHER}', 'Other', 'standard', 100);
             INSERT INTO webhook_endpoints (id, merchant_id, livemode, url, status, secret_ciphertext, created_at)
               VALUES ('{OTHER}', '{OTHER}', false, 'https://example.com/other', 'enabled', '\\x00', now());
             INSERT INTO checkout_sessions (id, merchant_id, livemode, mode, status, title, amount_micros,
               currency, fee_bps, fee_micros, net_micros, fee_tier, chain_id, token_address,
               recipient_address, expires_at, completed_at, created_at)
             SELECT bench_v7(ts), '{OTHER}', false, 'payment', 'completed', 'Other', 12500000, 'USDC', 100,
               125000, 12375000, 'standard', 84532, '{addr}', '{addr}', ts + interval '1 hour', ts, ts
             FROM generate_series(1, 50000) i, LATERAL (SELECT now() - interval '1 hour' + i * interval '10 ms' AS ts) t;
             INSERT INTO payments (id, merchant_id, livemode, status, charge_type, amount_micros, currency,
               fee_micros, merchant_micros, wallet_address, chain_id, token_address, tx_hash, log_index,
               block_number, created_at)
             SELECT bench_v7(ts), '{OTHER}', false, 'refunded', 'one_time', 12500000, 'USDC', 125000, 12375000,
               '{addr}', 84532, '{addr}', '0xff' || lpad(to_hex(i), 62, '0'), 0, i, ts
             FROM generate_series(1, 50000) i, LATERAL (SELECT now() - interval '1 hour' + i * interval '10 ms' AS ts) t;
             INSERT INTO webhook_events (id, merchant_id, livemode, type, endpoint_id, status, attempts, payload, created_at)
             SELECT bench_v7(ts), '{OTHER}', false, 'payment.refunded', '{OTHER}', 'failed', 5, '{{}}', ts
             FROM generate_series(1, 50000) i, LATERAL (SELECT now() - interval '1 hour' + i * interval '10 ms' AS ts) t")),
        // Vouched pages check the key in the same statement: with the handful of keys a
        // fresh database has, PostgreSQL rightly reads api_keys whole; with a service's
        // worth it uses the primary key, as in production.
        ("10,000 other API keys", format!(
            "INSERT INTO api_keys (id, merchant_id, livemode, key_sha256, last4)
             SELECT gen_random_uuid(), '{OTHER}', i % 2 = 0, sha256(('bench-key-' || i)::bytea), 'xxxx'
             FROM generate_series(1, 10000) i")),
        ("vacuum and analyze", "VACUUM ANALYZE checkout_sessions, payments, webhook_events, webhook_endpoints, api_keys".to_owned()),
    ]
}

fn seq_scans(pg: &Postgres, db: &str) -> Result<Vec<(String, i64)>, String> {
    let tables = TABLES.map(|t| format!("'{t}'")).join(", ");
    let out = pg.psql(
        db,
        &format!(
            "SELECT relname || '|' || seq_scan FROM pg_stat_user_tables
             WHERE relname IN ({tables}) ORDER BY relname"
        ),
    )?;
    Ok(out
        .lines()
        .filter_map(|l| l.split_once('|'))
        .map(|(t, n)| (t.to_owned(), n.parse().unwrap_or(0)))
        .collect())
}

async fn get(addr: &str, key: &str, path: &str) -> Option<serde_json::Value> {
    let mut sock = tokio::net::TcpStream::connect(addr).await.ok()?;
    let mut buf = Vec::new();
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\n\r\n");
    let (status, body) = exchange(&mut sock, request.as_bytes(), &mut buf).await?;
    (status == 200)
        .then(|| serde_json::from_str(&body).ok())
        .flatten()
}

/// A field of the newest object a list returns (a filter value for a scenario).
async fn newest(addr: &str, key: &str, list: &str, field: &str) -> Result<String, String> {
    let page = get(addr, key, &format!("{list}?limit=1"))
        .await
        .ok_or_else(|| format!("{list} failed"))?;
    page["data"][0][field]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{list}: the newest object has no {field}"))
}

/// The plans auto_explain wrote to the server log since `from`, for the big tables.
fn plans_since(log: &Path, from: u64) -> Vec<String> {
    let text = std::fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(text.get(from as usize..).unwrap_or_default());
    let mut plans: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.contains("plan:") && line.contains("LOG:") {
            plans.extend(current.take());
            current = Some(String::new());
        } else if let Some(plan) = current.as_mut() {
            if line.starts_with('\t') || line.starts_with("  ") {
                plan.push_str(line.trim_start_matches('\t'));
                plan.push('\n');
            } else {
                plans.extend(current.take());
            }
        }
    }
    plans.extend(current);
    let mut unique: Vec<String> = Vec::new();
    for p in plans {
        if TABLES.iter().any(|t| p.contains(t)) && !unique.contains(&p) {
            unique.push(p);
        }
    }
    unique
}

pub fn run(pg: &Postgres, db: &str, bin: &Path, key: &'static str) -> Result<(), String> {
    let hash = hex::encode(stablepay_domain::rules::api_keys::hash(key));
    let merchant = pg.psql(
        db,
        &format!("SELECT merchant_id FROM api_keys WHERE key_sha256 = '\\x{hash}'"),
    )?;
    println!("xtask: seeding the list benchmark (about five minutes)");
    for (what, sql) in seed_sql(&merchant) {
        let t = Instant::now();
        pg.psql(db, &sql)?;
        println!("xtask:   {what}: {:.0} s", t.elapsed().as_secs_f64());
    }
    let runtime = crate::load::load_runtime()?;

    // Probe: one request per scenario with auto_explain on, to print the plans used.
    let db_name = db.rsplit('/').next().unwrap_or_default();
    pg.psql(
        db,
        &format!("ALTER DATABASE {db_name} SET session_preload_libraries = 'auto_explain'"),
    )?;
    pg.psql(
        db,
        &format!("ALTER DATABASE {db_name} SET auto_explain.log_min_duration = 0"),
    )?;
    let log = pg.data_dir().map(|d| d.join("server.log"));
    let log_from = log
        .as_ref()
        .and_then(|l| std::fs::metadata(l).ok())
        .map_or(0, |m| m.len());
    let (mut api, addr) = spawn_api(bin, db)?;
    let addr: &'static str = Box::leak(addr.into_boxed_str());
    let scenarios = (|| {
        seed::wait_healthy(&format!("http://{addr}"), Duration::from_secs(20))?;
        runtime.block_on(async {
            let session = newest(addr, key, "/api/v1/payments", "checkout_session").await?;
            let endpoint = newest(addr, key, "/api/v1/webhook_endpoints", "id").await?;
            let scenarios: Vec<String> = [
                "/api/v1/checkout/sessions?limit=20".to_owned(),
                "/api/v1/checkout/sessions?limit=20&status=open".to_owned(),
                "/api/v1/checkout/sessions?limit=20&status=completed".to_owned(),
                "/api/v1/checkout/sessions?limit=20&status=expired".to_owned(),
                "/api/v1/checkout/sessions?limit=20&customer_reference=cust-7".to_owned(),
                "/api/v1/payments?limit=20".to_owned(),
                "/api/v1/payments?limit=20&status=refunded".to_owned(),
                format!("/api/v1/payments?limit=20&checkout_session={session}"),
                "/api/v1/webhook_events?limit=20".to_owned(),
                "/api/v1/webhook_events?limit=20&status=failed".to_owned(),
                "/api/v1/webhook_events?limit=20&type=payment.refunded".to_owned(),
                format!("/api/v1/webhook_events?limit=20&endpoint={endpoint}"),
            ]
            .into();
            for s in &scenarios {
                get(addr, key, s)
                    .await
                    .ok_or_else(|| format!("{s} failed"))?;
            }
            Ok::<_, String>(scenarios)
        })
    })();
    let _ = api.kill();
    let _ = api.wait();
    pg.psql(db, &format!("ALTER DATABASE {db_name} RESET ALL"))?;
    let scenarios = scenarios?;
    let plans = log
        .as_ref()
        .map(|l| plans_since(l, log_from))
        .unwrap_or_default();

    // Load: each scenario on its own for SECONDS_EACH, 32 connections.
    let before = seq_scans(pg, db)?;
    let (mut api, addr) = spawn_api(bin, db)?;
    let addr: &'static str = Box::leak(addr.into_boxed_str());
    let meter = CpuMeter::new(pg.data_dir(), Some(api.id()));
    let results = (|| {
        seed::wait_healthy(&format!("http://{addr}"), Duration::from_secs(20))?;
        let mut rows = Vec::new();
        let request = move |path: &'static str| {
            move |_: usize, _: u64| {
                format!(
                    "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\n\r\n"
                )
                .into_bytes()
            }
        };
        let paths: Vec<&'static str> = scenarios
            .iter()
            .map(|s| &*Box::leak(s.clone().into_boxed_str()))
            .collect();
        // Warm-up, not measured: the api opens its pool's connections on first use, and
        // a new PostgreSQL backend starts with empty catalog caches.
        for &path in &paths {
            runtime.block_on(drive_for(addr, 1, None, request(path)));
        }
        for &path in &paths {
            let (load, cpu) = metered(&meter, || {
                runtime.block_on(drive_for(addr, SECONDS_EACH, None, request(path)))
            });
            rows.push((path.to_owned(), load, cpu));
        }
        crate::load::hold_for_profiling(db, addr, key, "");
        Ok::<_, String>(rows)
    })();
    let _ = api.kill();
    let _ = api.wait();
    let rows = results?;
    let after = seq_scans(pg, db)?;

    println!();
    println!("| list endpoint, page of 20 (1.1M sessions, the newest 100,000 open; 1M payments, 5M webhook records; 32 connections, {SECONDS_EACH} s each) | req/s | errors | p50 | p99 | CPU per request: api, PostgreSQL |");
    println!("|---|---|---|---|---|---|");
    for (s, load, cpu) in &rows {
        let path = s.trim_start_matches("/api/v1");
        println!(
            "| `GET {path}` | {:.0} | {} | {:.1} ms | {:.1} ms | {:.0} µs, {:.0} µs |",
            load.rate(),
            load.errors,
            load.ms(0.5),
            load.ms(0.99),
            cpu.api_us,
            cpu.postgres_us
        );
    }
    println!();
    for ((table, b), (_, a)) in before.iter().zip(&after) {
        println!(
            "sequential scans of {table} during the list load: {}",
            a - b
        );
    }
    let seq = plans
        .iter()
        .filter(|p| {
            TABLES
                .iter()
                .any(|t| p.contains(&format!("Seq Scan on {t}")))
        })
        .count();
    println!(
        "plans relied on ({} distinct, {seq} with a sequential scan of a big table):",
        plans.len()
    );
    for p in &plans {
        println!();
        for line in p.lines() {
            println!("    {line}");
        }
    }
    Ok(())
}
