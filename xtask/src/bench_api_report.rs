//! `cargo xtask bench api`'s table: each paired round, then the median rounds against
//! DESIGN §10's bars with the held loads, the HTTP floor, CPU per request and RSS.

use crate::bench::percentile;
use crate::bench_api::{median, ApiRuns, Paired, READ_BAR, WRITE_BAR};
use crate::cpu::CpuPerRequest;
use crate::load::{Load, CONNECTIONS, SECONDS};

pub(crate) fn print_api_table(
    runs: &ApiRuns,
    (get_statements_tps, get_one_statement_tps): (f64, f64),
) {
    println!();
    print_rounds(
        "POST /checkout/sessions",
        "pgbench, equivalent 3-statement transaction",
        &runs.creates,
    );
    print_rounds(
        "GET /checkout/sessions/:id",
        "pgbench select-only",
        &runs.reads,
    );
    let (creates, reads) = (median(&runs.creates), median(&runs.reads));
    let (write_tps, read_tps) = (creates.pgbench.tps, reads.pgbench.tps);
    println!();
    println!("| api benchmark ({CONNECTIONS} connections, {SECONDS} s each, 2 cores, load generator on the same box), median rounds | value |");
    println!("|---|---|");
    println!(
        "{}",
        load_row("POST /checkout/sessions, as fast as answered", &creates.api)
    );
    println!(
        "| pgbench, equivalent 3-statement transaction | {write_tps:.0} tps, p50 {:.1} ms, p99 {:.1} ms → api at {:.0} % |",
        percentile(&creates.pgbench.latencies_ms, 0.5),
        percentile(&creates.pgbench.latencies_ms, 0.99),
        creates.share() * 100.0
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
            &reads.api
        )
    );
    println!(
        "| pgbench select-only | {read_tps:.0} tps → api at {:.0} % |",
        reads.share() * 100.0
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
        cpu_row("POST", &creates.api_cpu, gen, creates.api_cpu.generator_us)
    );
    let write_cpu = &creates.pgbench.cpu;
    println!(
        "{}",
        cpu_row("pgbench write", write_cpu, "pgbench", write_cpu.children_us)
    );
    println!(
        "{}",
        cpu_row("GET", &reads.api_cpu, gen, reads.api_cpu.generator_us)
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
    let read_cpu = &reads.pgbench.cpu;
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

/// Each round of a pair, in the order run, and the median share.
fn print_rounds(api: &str, pgbench: &str, rounds: &[Paired]) {
    println!("| round, first | {api} (fewest answers in one second) | {pgbench} (fewest in one second) | share |");
    println!("|---|---|---|---|");
    for (i, r) in rounds.iter().enumerate() {
        let first = if i % 2 == 0 { "pgbench" } else { "api" };
        println!(
            "| {}, {first} | {:.0}/s ({}), {} errors, p99 {:.1} ms | {:.0} tps ({}), p99 {:.1} ms | {:.0} % |",
            i + 1,
            r.api.rate(),
            r.api.slowest_second(),
            r.api.errors,
            r.api.ms(0.99),
            r.pgbench.tps,
            r.pgbench.slowest_second,
            percentile(&r.pgbench.latencies_ms, 0.99),
            r.share() * 100.0
        );
    }
    println!("| median | | | {:.0} % |", median(rounds).share() * 100.0);
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
