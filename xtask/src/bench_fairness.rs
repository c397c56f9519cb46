//! `cargo xtask bench webhooks`, fairness rows (issue 11): 50 merchants' healthy endpoints
//! take a steady load through the outbox, first alone, then beside one endpoint that never
//! answers within the 10 s timeout and has a 50,000-delivery backlog. The healthy p50/p99
//! of both runs are printed side by side.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use stablepay_domain::services::{create_webhook_endpoint, NewEndpoint};
use stablepay_domain::{FeeTier, MerchantId, Mode, WebhookUrl};
use stablepay_postgres::testing::execute_sql;
use stablepay_postgres::{run_migrations, PgStore, PoolConfig, SecretCipher};
use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;

use crate::bench::{ms, percentile, start_workers, steady_outbox_load};
use crate::bench_receiver::start_receiver;

const SECRETS_KEY: [u8; 32] = [5u8; 32];
const HEALTHY: usize = 50;
const BACKLOG: u64 = 50_000;
const RATE: f64 = 250.0;
const SECONDS: u64 = 15;

/// Accepts connections and never answers: every attempt runs into the worker's timeout.
/// Counts the requests it holds open.
async fn start_black_hole() -> Result<(String, Arc<AtomicU64>), String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let url = format!(
        "http://127.0.0.1:{}/slow",
        listener.local_addr().map_err(|e| e.to_string())?.port()
    );
    let held = Arc::new(AtomicU64::new(0));
    let count = held.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let count = count.clone();
            tokio::spawn(async move {
                count.fetch_add(1, Ordering::Relaxed);
                let mut buf = [0u8; 4096];
                // Read until the worker gives up and closes.
                while matches!(sock.read(&mut buf).await, Ok(n) if n > 0) {}
                count.fetch_sub(1, Ordering::Relaxed);
            });
        }
    });
    Ok((url, held))
}

pub async fn fairness(db: &str) -> Result<(), String> {
    run_migrations(db).await?;
    let cipher = SecretCipher::new(&SECRETS_KEY).map_err(|e| e.to_string())?;
    let store = Arc::new(
        PgStore::connect(
            db,
            &PoolConfig {
                max_connections: 16,
                ..PoolConfig::default()
            },
            cipher,
        )
        .map_err(|e| e.to_string())?,
    );
    let rx = start_receiver().await?;
    let mut healthy = Vec::with_capacity(HEALTHY);
    for i in 0..HEALTHY {
        let m = store
            .create_merchant(&format!("Healthy {i}"), FeeTier::Standard)
            .await
            .map_err(|e| e.to_string())?;
        endpoint(&store, m.id, &rx.url).await?;
        healthy.push(m.id);
    }
    let slow_merchant = store
        .create_merchant("Slow", FeeTier::Standard)
        .await
        .map_err(|e| e.to_string())?;
    let (slow_url, held) = start_black_hole().await?;
    let slow = endpoint(&store, slow_merchant.id, &slow_url).await?;
    let _worker = start_workers(1, db, &SECRETS_KEY)?;

    let alone = steady_outbox_load(&store, &healthy, RATE, SECONDS, &rx).await;

    execute_sql(
        &store,
        &format!(
            "INSERT INTO webhook_events (id, merchant_id, livemode, type, endpoint_id, status, attempts, next_attempt_at, payload, created_at) \
             SELECT gen_random_uuid(), '{}', false, 'payment.succeeded', '{}', 'pending', 0, now(), '{{}}', now() FROM generate_series(1, {BACKLOG})",
            slow_merchant.id.uuid(),
            slow.uuid()
        ),
    )
    .await?;
    let waited = std::time::Instant::now();
    while held.load(Ordering::Relaxed) == 0 && waited.elapsed() < Duration::from_secs(30) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let beside = steady_outbox_load(&store, &healthy, RATE, SECONDS, &rx).await;
    let held_open = held.load(Ordering::Relaxed);

    println!();
    println!("| fairness: {HEALTHY} healthy endpoints at {RATE:.0} events/s for {SECONDS} s | alone | beside 1 endpoint timing out (10 s) with a {BACKLOG} backlog |");
    println!("|---|---|---|");
    println!(
        "| delivered | {} of {} | {} of {} |",
        alone.latencies_us.len(),
        alone.sent,
        beside.latencies_us.len(),
        beside.sent
    );
    for (label, p) in [("p50", 0.50), ("p99", 0.99)] {
        println!(
            "| healthy commit-to-receipt {label} | {} | {} |",
            ms(percentile(&alone.latencies_us, p)),
            ms(percentile(&beside.latencies_us, p))
        );
    }
    let ratio = percentile(&beside.latencies_us, 0.99) as f64
        / percentile(&alone.latencies_us, 0.99).max(1) as f64;
    println!("| healthy p99 beside / alone | | {ratio:.2}× |");
    println!("| slow endpoint's requests held open at the end | | {held_open} |");
    Ok(())
}

async fn endpoint(
    store: &PgStore,
    merchant: MerchantId,
    url: &str,
) -> Result<stablepay_domain::WebhookEndpointId, String> {
    let (endpoint, _) = create_webhook_endpoint(
        &stablepay_postgres::testing::api_key_context(merchant, Mode::Test),
        NewEndpoint {
            url: WebhookUrl::parse(url).map_err(|e| e.to_string())?,
            enabled_events: vec![],
            description: None,
        },
        &stablepay_domain::Changer::OPERATOR,
        store,
        &stablepay_domain::ports::SystemClock,
    )
    .await
    .map_err(|e| e.to_string())?;
    Ok(endpoint.id)
}
