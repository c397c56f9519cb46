//! `cargo xtask bench export`: `GET /balance_transactions/export` over 1,000,000 ledger
//! entries of one merchant against a release-built api, read as fast as loopback takes
//! it, with the api's RSS sampled throughout (issue 44: growth under 50 MB), the time to
//! the first byte and to the last, and the file's net column summed back against SQL.

use std::io::{BufRead, BufReader};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bench_api::{rss_kib, setup_with_merchant};
use crate::load::spawn_api;
use crate::seed;

const ENTRIES: u64 = 1_000_000;
/// The bar: the api's resident memory may grow by less than this while it streams.
const RSS_GROWTH_BAR_MIB: u64 = 50;

fn seed_sql(merchant: &str) -> Vec<(&'static str, String)> {
    let addr = format!("0x{}", "ab".repeat(20));
    let tx = format!("0x{}", "cd".repeat(32));
    vec![
        ("function", crate::bench::V7_FUNCTION.to_owned()),
        ("the payment", format!(
            "INSERT INTO payments (id, merchant_id, livemode, status, charge_type, amount_micros, currency,
               fee_micros, merchant_micros, wallet_address, chain_id, token_address, tx_hash, log_index,
               block_number, block_hash, created_at)
             VALUES (bench_v7(now() - interval '400 days'), '{merchant}', false, 'confirmed', 'one_time',
               12500000, 'USDC', 125000, 12375000, '{addr}', 84532, '{addr}', '{tx}', 0, 1, '{tx}',
               now() - interval '400 days')")),
        ("1,000,000 ledger entries", format!(
            "INSERT INTO balance_transactions (id, merchant_id, livemode, type, payment_id, amount_micros,
               fee_micros, net_micros, currency, chain_id, token_address, tx_hash, log_index,
               block_number, block_time, created_at)
             SELECT bench_v7(ts), '{merchant}', false, 'payment', p.id, 12500000 + i % 1000, 125000,
               12375000 + i % 1000, 'USDC', 84532, '{addr}', '{tx}', i % 7, i, ts, ts
             FROM generate_series(1, {ENTRIES}) i,
                  (SELECT id FROM payments WHERE merchant_id = '{merchant}' LIMIT 1) p,
                  LATERAL (SELECT now() - interval '300 days' + i * interval '10 seconds' AS ts) t")),
        ("vacuum and analyze", "VACUUM ANALYZE balance_transactions, payments".to_owned()),
    ]
}

pub fn run(_args: &[String]) -> Result<(), String> {
    let (setup, bin, m, key) = setup_with_merchant()?;
    let merchant = <stablepay_domain::MerchantId as stablepay_domain::TypedId>::parse_str(&m.id)
        .map_err(|_| format!("not a merchant id: {}", m.id))?
        .uuid()
        .to_string();
    for (label, sql) in seed_sql(&merchant) {
        let started = Instant::now();
        setup.pg.psql(&setup.db, &sql)?;
        println!(
            "xtask: seeded {label} in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    let expected_net: i128 = setup
        .pg
        .psql(
            &setup.db,
            &format!(
                "SELECT sum(net_micros) FROM balance_transactions WHERE merchant_id = '{merchant}'"
            ),
        )?
        .trim()
        .parse()
        .map_err(|e| format!("sum: {e}"))?;

    let (mut child, api) = spawn_api(&bin, &setup.db)?;
    let result = (|| {
        seed::wait_healthy(&format!("http://{api}"), Duration::from_secs(20))?;
        std::thread::sleep(Duration::from_secs(1));
        let pid = child.id();
        let idle = rss_kib(pid);
        // RSS sampled every 20 ms on a thread of its own while the body is read.
        let peak = Arc::new(AtomicU64::new(idle));
        let done = Arc::new(AtomicBool::new(false));
        let sampler = {
            let (peak, done) = (peak.clone(), done.clone());
            std::thread::spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    peak.fetch_max(rss_kib(pid), Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(20));
                }
            })
        };
        let started = Instant::now();
        let response = ureq::get(&format!("http://{api}/api/v1/balance_transactions/export"))
            .set("Authorization", &format!("Bearer {key}"))
            .timeout(Duration::from_secs(600))
            .call()
            .map_err(|e| format!("export: {e}"))?;
        let mut reader = BufReader::with_capacity(64 * 1024, response.into_reader());
        let (mut line, mut rows, mut bytes, mut net) = (String::new(), 0u64, 0u64, 0i128);
        let mut first_byte = None;
        let mut net_column = None;
        loop {
            line.clear();
            let n = reader
                .read_line(&mut line)
                .map_err(|e| format!("export body: {e}"))?;
            if n == 0 {
                break;
            }
            first_byte.get_or_insert_with(|| started.elapsed());
            bytes += n as u64;
            let cells: Vec<&str> = line.trim_end().split(',').collect();
            match net_column {
                None => {
                    net_column = cells.iter().position(|c| *c == "net");
                    if net_column.is_none() {
                        return Err(format!("no net column in the header: {line}"));
                    }
                }
                Some(k) => {
                    rows += 1;
                    let cell = cells.get(k).copied().unwrap_or("");
                    let micros = stablepay_domain::parse_signed_micros(cell)
                        .map_err(|e| format!("not a decimal amount: {cell:?} ({e})"))?;
                    net += i128::from(micros);
                }
            }
        }
        let total = started.elapsed();
        done.store(true, Ordering::Relaxed);
        let _ = sampler.join();
        let peak = peak.load(Ordering::Relaxed);
        let growth_mib = peak.saturating_sub(idle) / 1024;
        println!("\n| Ledger export, {ENTRIES} entries | |\n|---|---|");
        println!("| Rows, bytes | {rows}, {:.1} MB |", bytes as f64 / 1e6);
        println!(
            "| First byte, last byte | {:.0} ms, {:.1} s ({:.0} rows/s) |",
            first_byte.unwrap_or_default().as_secs_f64() * 1e3,
            total.as_secs_f64(),
            rows as f64 / total.as_secs_f64()
        );
        println!(
            "| api RSS idle, peak, growth | {:.1} MB, {:.1} MB, {growth_mib} MiB (bar < {RSS_GROWTH_BAR_MIB}) |",
            idle as f64 / 1024.0,
            peak as f64 / 1024.0
        );
        println!("| Net column summed | {net} µ (SQL {expected_net} µ) |");
        if rows != ENTRIES {
            return Err(format!("the export held {rows} rows, not {ENTRIES}"));
        }
        if net != expected_net {
            return Err(format!(
                "the export's nets sum to {net}, SQL to {expected_net}"
            ));
        }
        if growth_mib >= RSS_GROWTH_BAR_MIB {
            return Err(format!("the api grew by {growth_mib} MiB while streaming"));
        }
        Ok(())
    })();
    let _ = child.kill();
    let _ = child.wait();
    result
}
