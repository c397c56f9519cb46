//! `cargo xtask bench webhooks`, API-driven latency rows (issue 11): a release api and
//! worker, autovacuum off, and `POST /webhook_endpoints/{id}/test` at a fixed 500/s from 32
//! keep-alive connections for `BENCH_LATENCY_SECS` (default 120). Commit-to-receipt is
//! exact: PostgreSQL records each transaction's commit time (`track_commit_timestamp`), a
//! bench-only insert-only table ties each delivery to its transaction, and the receiver
//! notes the wall-clock time each delivery arrives. Reported for the first and the last
//! minute, with the queue table's size and dead rows at the end.

use std::collections::HashMap;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::bench::{env_number, ms, percentile, start_workers, BenchSetup};
use crate::bench_receiver::start_receiver;
use crate::load::{drive_for, spawn_api, API_SECRETS_KEY};
use crate::seed;
use crate::util::{output, root};

const RATE: f64 = 500.0;

const COMMITS_SQL: &str = "
CREATE TABLE bench_commits (delivery_id uuid);
CREATE FUNCTION bench_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO bench_commits VALUES (NEW.delivery_id); RETURN NULL; END $$;
CREATE TRIGGER bench_commit AFTER INSERT ON webhook_queue FOR EACH ROW EXECUTE FUNCTION bench_commit();";

pub fn latency() -> Result<(), String> {
    let secs: u64 = env_number("BENCH_LATENCY_SECS", 120).max(60);
    // The binaries were built by `bench webhooks`, which runs this part last.
    let setup = BenchSetup::start(
        &[],
        "bench-latency",
        "-c track_commit_timestamp=on",
        "bench_latency",
    )?;
    let (pg, db) = (&setup.pg, setup.db.clone());
    let bin = root().join("target/release/stablepay-api");
    output(Command::new(&bin).arg("migrate").env("DATABASE_URL", &db))?;
    if pg.data_dir().is_some() {
        // The throwaway cluster only: a DATABASE_URL server is left as it is.
        pg.psql(&db, "ALTER SYSTEM SET autovacuum = off")?;
        pg.psql(&db, "SELECT pg_reload_conf()")?;
    }
    pg.psql(&db, COMMITS_SQL)?;
    let merchants = seed::create_merchants(&bin, &db)?;
    let key = merchants.first().ok_or("no merchant")?.test_key.clone();
    let (mut api, addr) = spawn_api(&bin, &db)?;
    let runtime = &setup.runtime;
    let result = (|| {
        seed::wait_healthy(&format!("http://{addr}"), Duration::from_secs(20))?;
        let rx = runtime.block_on(start_receiver())?;
        let created: serde_json::Value =
            ureq::post(&format!("http://{addr}/api/v1/webhook_endpoints"))
                .set("Authorization", &format!("Bearer {key}"))
                .send_json(serde_json::json!({ "url": rx.url }))
                .map_err(|e| format!("creating the endpoint: {e}"))?
                .into_json()
                .map_err(|e| e.to_string())?;
        let endpoint = created["id"].as_str().ok_or("no endpoint id")?.to_owned();
        let _worker = start_workers(1, &db, &API_SECRETS_KEY)?;
        // The receiver's clock is an Instant; this pair turns it into wall time.
        let (mono0, wall0) = (Instant::now(), SystemTime::now());
        let api_latencies = runtime.block_on(drive(&addr, &key, &endpoint, secs));
        let expected = api_latencies.0;
        let waited = Instant::now();
        while (rx.count.load(std::sync::atomic::Ordering::Relaxed) as usize) < expected
            && waited.elapsed() < Duration::from_secs(60)
        {
            std::thread::sleep(Duration::from_millis(50));
        }
        let commits = pg.psql(
            &db,
            "SELECT delivery_id, (extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1000000)::bigint FROM bench_commits",
        )?;
        let committed: HashMap<String, i64> = commits
            .lines()
            .filter_map(|l| {
                let (id, at) = l.trim().split_once('|')?;
                let uuid = uuid::Uuid::parse_str(id.trim()).ok()?;
                Some((
                    stablepay_domain::EventId::from_uuid(uuid).to_string(),
                    at.trim().parse().ok()?,
                ))
            })
            .collect();
        let wall0_us = wall0
            .duration_since(UNIX_EPOCH)
            .map_err(|e| e.to_string())?
            .as_micros() as i64;
        // (commit time, commit-to-receipt) per delivery.
        let mut samples: Vec<(i64, u64)> = rx
            .arrivals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter_map(|(id, at)| {
                let c = *committed.get(id)?;
                let arrived = wall0_us + at.duration_since(mono0).as_micros() as i64;
                Some((c, u64::try_from(arrived - c).unwrap_or(0)))
            })
            .collect();
        samples.sort_unstable();
        let start = samples.first().map_or(0, |s| s.0);
        let end = samples.last().map_or(0, |s| s.0);
        let window = |from: i64, to: i64| {
            let mut v: Vec<u64> = samples
                .iter()
                .filter(|(c, _)| *c >= from && *c < to)
                .map(|s| s.1)
                .collect();
            v.sort_unstable();
            v
        };
        let first = window(start, start + 60_000_000);
        let last = window(end - 60_000_000, end + 1);
        let stats = pg.psql(
            &db,
            "SELECT pg_relation_size('webhook_queue'), pg_indexes_size('webhook_queue'), \
             (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'webhook_queue'), \
             (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'webhook_events'), \
             (SELECT count(*) FROM webhook_queue), current_setting('autovacuum')",
        )?;
        let (sent, errors, api_p50, api_p99) = api_latencies;
        println!();
        println!("| API-driven delivery latency: POST /webhook_endpoints/{{id}}/test at {RATE:.0}/s for {secs} s, autovacuum off | first minute | last minute |");
        println!("|---|---|---|");
        println!("| deliveries measured | {} | {} |", first.len(), last.len());
        for (label, p) in [("p50", 0.50), ("p99", 0.99)] {
            println!(
                "| commit-to-receipt {label} | {} | {} |",
                ms(percentile(&first, p)),
                ms(percentile(&last, p))
            );
        }
        println!("| requests sent / errors | {sent} / {errors} | |");
        println!(
            "| api latency p50 / p99 | {} / {} | |",
            ms(api_p50),
            ms(api_p99)
        );
        println!("| delivered of sent | {} of {sent} | |", samples.len());
        println!("| queue heap bytes, index bytes, dead rows; webhook_events dead rows; queued; autovacuum | {} | |", stats.trim().replace('|', ", "));
        Ok::<_, String>(())
    })();
    let _ = api.kill();
    let _ = api.wait();
    result
}

/// 32 connections at a fixed total `RATE` (open loop): returns requests answered 201,
/// failures, and the api's p50/p99 in microseconds.
async fn drive(addr: &str, key: &str, endpoint: &str, secs: u64) -> (usize, u64, u64, u64) {
    let request = format!(
        "POST /api/v1/webhook_endpoints/{endpoint}/test HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}"
    )
    .into_bytes();
    let load = drive_for(addr, secs, Some(RATE), move |_, _| request.clone()).await;
    let us = |p| (load.ms(p) * 1000.0) as u64;
    (load.ok as usize, load.errors, us(0.5), us(0.99))
}
