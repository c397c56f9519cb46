//! `cargo xtask bench sign-in`: API reads beside a flood of dashboard sign-ins (DESIGN §10:
//! argon2id never runs on the threads serving the API). A release api; 50 sign-ins of
//! unknown emails from 50 client addresses at once (each one argon2id check, off the
//! request threads), while one client reads a checkout session over and over: the reads'
//! p50 / p99 / max, against the same reads with no sign-in running. The bar is a p99
//! under 50 ms beside the sign-ins (it was a timed test before; bars are benches).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::bench::percentile;
use crate::load::{api_command, spawn_listening};
use crate::seed;

/// Sign-ins at once, as the test that held this bar used.
const SIGN_INS: usize = 50;
/// The bar on a read's p99 beside them.
const P99_BAR_MS: f64 = 50.0;

pub fn run(_args: &[String]) -> Result<(), String> {
    let (setup, bin, m, key) = crate::bench_api::setup_with_merchant()?;
    let mut cmd = api_command(&bin, &setup.db);
    // Loopback is the proxy: each sign-in names its own client address.
    cmd.env("STABLEPAY_TRUSTED_PROXIES", "127.0.0.1/32");
    let (mut child, api) = spawn_listening(&mut cmd)?;
    let base = format!("http://{api}");
    let result = (|| {
        seed::wait_healthy(&base, Duration::from_secs(20))?;
        seed::verify_wallet(&base, &m)?;
        let session: Value = ureq::post(&format!("{base}/api/v1/checkout/sessions"))
            .set("Authorization", &format!("Bearer {key}"))
            .send_json(json!({ "mode": "payment", "title": "Bench", "amount": "1" }))
            .map_err(|e| format!("create a session: {e}"))?
            .into_json()
            .map_err(|e| e.to_string())?;
        let id = session["id"].as_str().ok_or("no session id")?.to_owned();
        let read_url = format!("{base}/api/v1/checkout/sessions/{id}");
        let read = |until: &AtomicBool, at_least: usize| -> Result<Vec<f64>, String> {
            let agent = ureq::AgentBuilder::new().build();
            let mut ms = Vec::new();
            while !until.load(Ordering::Relaxed) || ms.len() < at_least {
                let started = Instant::now();
                agent
                    .get(&read_url)
                    .set("Authorization", &format!("Bearer {key}"))
                    .call()
                    .map_err(|e| format!("read: {e}"))?;
                ms.push(started.elapsed().as_secs_f64() * 1000.0);
            }
            ms.sort_by(f64::total_cmp);
            Ok(ms)
        };
        // Alone first: 200 reads.
        let quiet = read(&AtomicBool::new(true), 200)?;
        // Then beside the sign-ins, until the last one is answered.
        let done = Arc::new(AtomicBool::new(false));
        let started = Instant::now();
        let (beside, statuses) = std::thread::scope(|s| {
            let reader = s.spawn(|| read(&done, 1));
            let sign_ins: Vec<_> = (0..SIGN_INS)
                .map(|i| {
                    let base = base.clone();
                    s.spawn(move || sign_in(&base, i))
                })
                .collect();
            let statuses: Vec<Result<u16, String>> = sign_ins
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err("panicked".into())))
                .collect();
            done.store(true, Ordering::Relaxed);
            (reader.join(), statuses)
        });
        let flood_secs = started.elapsed().as_secs_f64();
        let beside = beside.map_err(|_| "the reader panicked".to_string())??;
        let refused = statuses.iter().filter(|s| matches!(s, Ok(401))).count();
        if let Some(other) = statuses.iter().find(|s| !matches!(s, Ok(401))) {
            return Err(format!(
                "a sign-in of an unknown email answered {other:?}, not 401"
            ));
        }
        Ok::<_, String>((quiet, beside, refused, flood_secs))
    })();
    let _ = child.kill();
    let _ = child.wait();
    let (quiet, beside, refused, flood_secs) = result?;
    let row = |what: &str, ms: &[f64]| {
        println!(
            "| {what} | {} | {:.1} ms | {:.1} ms | {:.1} ms |",
            ms.len(),
            percentile(ms, 0.5),
            percentile(ms, 0.99),
            ms.last().copied().unwrap_or(0.0)
        );
    };
    println!();
    println!("| GET /checkout/sessions/:id (release api, one client) | reads | p50 | p99 | max |");
    println!("|---|---|---|---|---|");
    row("alone", &quiet);
    row(
        &format!("beside {refused} sign-ins at once ({flood_secs:.2} s of argon2id)"),
        &beside,
    );
    let p99 = percentile(&beside, 0.99);
    println!(
        "bar: p99 beside the sign-ins under {P99_BAR_MS} ms: {}",
        if p99 < P99_BAR_MS { "met" } else { "NOT met" }
    );
    Ok(())
}

/// One sign-in of an unknown email from client address `i`, as a browser posts it (the
/// login page's CSRF cookie and token): its status.
fn sign_in(base: &str, i: usize) -> Result<u16, String> {
    let client = format!("10.9.{}.{}", i / 250, i % 250 + 1);
    let agent = ureq::AgentBuilder::new().redirects(0).build();
    let page = agent
        .get(&format!("{base}/dashboard/login"))
        .set("X-Forwarded-For", &client)
        .call()
        .map_err(|e| format!("login page: {e}"))?;
    let cookies: Vec<String> = page
        .all("set-cookie")
        .iter()
        .filter_map(|c| c.split(';').next().map(str::to_owned))
        .collect();
    let html = page.into_string().map_err(|e| e.to_string())?;
    let marker = "name=\"csrf\" value=\"";
    let start = html.find(marker).ok_or("no csrf field")? + marker.len();
    let csrf = &html[start..start + html[start..].find('"').ok_or("no csrf end")?];
    let form = [
        ("csrf", csrf.to_owned()),
        ("email", format!("nobody{i}@bench.example")),
        ("password", "a guess".to_owned()),
    ];
    let answer = agent
        .post(&format!("{base}/dashboard/login"))
        .set("X-Forwarded-For", &client)
        .set("Cookie", &cookies.join("; "))
        .send_form(
            &form
                .iter()
                .map(|(k, v)| (*k, v.as_str()))
                .collect::<Vec<_>>(),
        );
    match answer {
        Ok(res) => Ok(res.status()),
        Err(ureq::Error::Status(code, _)) => Ok(code),
        Err(e) => Err(e.to_string()),
    }
}
