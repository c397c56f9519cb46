//! Several api processes behind one address keep the spec's promises: one key's rate
//! limit holds across all of them, every process reports metrics, and a process told to
//! stop finishes what it is doing first.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use stablepay_e2e::{Stack, StackOptions};

async fn scrape(http: &reqwest::Client, addr: &str, path: &str) -> (u16, String) {
    let r = http
        .get(format!("http://{addr}{path}"))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

#[tokio::test]
async fn two_api_processes_share_one_keys_limit_and_export_metrics() {
    let limit = 30;
    let mut stack = Stack::start_with(StackOptions {
        env: vec![("STABLEPAY_RATE_LIMIT_PER_MIN".into(), limit.to_string())],
        ..StackOptions::default()
    })
    .await;
    let (_a, api_a, metrics_a) = stack.spawn_api_with_metrics(&[]).await;
    let (_b, api_b) = stack.spawn_api(&[]).await;
    // This worker replaces the stack's, so it becomes the chain's active watcher.
    stack.kill_worker();
    let (_worker, metrics_w) = stack.spawn_worker_with_metrics();

    // 50 requests with one key, alternating between the two processes (and the stack's
    // own api, which has served none yet): a budget of 30 a minute overall, not per process.
    let (mut ok, mut limited) = (0, 0);
    for i in 0..50 {
        let base = [&api_a, &api_b, &stack.api][i % 3];
        let r = stack
            .http
            .get(format!("{base}/api/v1/checkout/sessions"))
            .bearer_auth(&stack.key)
            .send()
            .await
            .unwrap();
        match r.status().as_u16() {
            200 => ok += 1,
            429 => {
                assert!(r.headers().get("retry-after").is_some());
                let body: serde_json::Value = r.json().await.unwrap();
                assert_eq!(body["error"]["code"], "rate_limit_error");
                limited += 1;
            }
            other => panic!("unexpected status {other}"),
        }
    }
    // One token refills every 2 s at 30 a minute: the whole run may earn one more.
    assert!(
        (limit..=limit + 1).contains(&ok),
        "{ok} requests passed, {limited} limited; each process alone would allow {limit}"
    );
    assert_eq!(ok + limited, 50);

    // The operator endpoints: liveness, readiness and the metric families.
    let http = &stack.http;
    assert_eq!(scrape(http, &metrics_a, "/livez").await.0, 200);
    assert_eq!(scrape(http, &metrics_a, "/readyz").await.0, 200);
    let (status, text) = scrape(http, &metrics_a, "/metrics").await;
    assert_eq!(status, 200);
    for family in [
        "stablepay_http_request_duration_seconds_bucket{",
        "route=\"/api/v1/checkout/sessions\"",
        "stablepay_db_pool_wait_seconds_count",
        "stablepay_rate_limited_total{limiter=\"api_key\"}",
    ] {
        assert!(text.contains(family), "api metrics lack {family}:\n{text}");
    }
    // The worker reports its queue and watcher once it has polled.
    let wanted = [
        "stablepay_chain_watcher_lag_blocks{",
        "stablepay_webhook_queue_due",
        "stablepay_rpc_request_seconds_count{method=\"eth_blockNumber\"}",
    ];
    let started = std::time::Instant::now();
    loop {
        let (_, text) = scrape(http, &metrics_w, "/metrics").await;
        if wanted.iter().all(|w| text.contains(w)) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "worker metrics lack one of {wanted:?}:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(scrape(http, &metrics_w, "/readyz").await.0, 200);
}

#[tokio::test]
async fn sigterm_answers_the_request_in_flight_then_the_api_exits() {
    let proxy = stablepay_e2e::FaultProxy::start(&stablepay_e2e::chain_info().rpc).await;
    let stack = Stack::start_with(StackOptions {
        service_rpc: Some(proxy.url.clone()),
        env: vec![("STABLEPAY_RPC_TIMEOUT_MS".into(), "3000".into())],
        ..StackOptions::default()
    })
    .await;
    stack.fresh_verified_wallet().await;
    let session = stack.open_session("1").await;
    let (mut api, url) = stack.spawn_api(&[]).await;
    // Every RPC answer now takes 1.5 s: the confirm below is in flight that long.
    proxy.inject(stablepay_e2e::Faults {
        delay_percent: 100,
        delay: Duration::from_millis(1500),
        ..stablepay_e2e::Faults::default()
    });
    let http = stack.http.clone();
    let target = format!("{url}/pay/{session}/confirm");
    let sent = std::time::Instant::now();
    let in_flight = tokio::spawn(async move {
        let tx = format!("0x{}", "ab".repeat(32));
        let status = http
            .post(target)
            .json(&serde_json::json!({ "tx_hash": tx }))
            .send()
            .await
            .map(|r| r.status().as_u16());
        (status, sent.elapsed())
    });
    tokio::time::sleep(Duration::from_millis(400)).await;
    let signalled = std::process::Command::new("kill")
        .args(["-TERM", &api.0.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    let (status, took) = in_flight.await.unwrap();
    let status = status.expect("the request in flight at SIGTERM was answered, not dropped");
    assert!((200..500).contains(&status), "answered {status}");
    // It really was in flight when the signal came (it waited on the slow RPC).
    assert!(
        took >= Duration::from_millis(1400),
        "answered after {took:?}"
    );
    // Then the process ends by itself, successfully, and takes no new connections.
    let started = std::time::Instant::now();
    let exit = loop {
        if let Some(exit) = api.0.try_wait().unwrap() {
            break exit;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the api did not exit after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(exit.success(), "{exit:?}");
    assert!(stack
        .http
        .get(format!("{url}/healthz"))
        .send()
        .await
        .is_err());
}
