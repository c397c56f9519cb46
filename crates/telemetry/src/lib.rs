//! What the api and the worker share for operators: one tracing setup, the Prometheus
//! recorder, and a small HTTP listener on its own address (`STABLEPAY_METRICS_BIND`)
//! answering `GET /metrics`, `/livez` and `/readyz`.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Logs to stderr, filtered by `STABLEPAY_LOG` (default `info`), as JSON when
/// `STABLEPAY_LOG_FORMAT=json`.
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("STABLEPAY_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    if std::env::var("STABLEPAY_LOG_FORMAT").is_ok_and(|f| f == "json") {
        builder.json().init();
    } else {
        builder.init();
    }
}

/// Latency buckets in seconds: 0.5 ms to 10 s.
const SECONDS_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Installs the process-wide Prometheus recorder (histograms ending in `_seconds` get
/// real buckets). Errors when a recorder is already installed.
pub fn install_recorder() -> Result<PrometheusHandle, String> {
    PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
        .map_err(|e| e.to_string())?
        .install_recorder()
        .map_err(|e| format!("metrics recorder: {e}"))
}

/// Is the process able to serve (its database answers)?
pub type ReadinessCheck = Arc<dyn Fn() -> BoxFuture<'static, bool> + Send + Sync>;

/// Serves `/metrics`, `/livez` and `/readyz` on `listener` until the process ends.
pub async fn serve_operator_endpoints(
    listener: TcpListener,
    metrics: PrometheusHandle,
    ready: ReadinessCheck,
) {
    loop {
        let Ok((mut sock, _)) = listener.accept().await else {
            // Out of file descriptors, say: back off instead of spinning.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            continue;
        };
        let metrics = metrics.clone();
        let ready = ready.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 2048];
            let n = match sock.read(&mut buf).await {
                Ok(n) => n,
                Err(_) => return,
            };
            let head = String::from_utf8_lossy(&buf[..n]);
            let path = head
                .strip_prefix("GET ")
                .and_then(|rest| rest.split_whitespace().next())
                .unwrap_or("");
            let (status, body) = match path {
                "/metrics" => ("200 OK", metrics.render()),
                "/livez" => ("200 OK", "ok\n".to_owned()),
                "/readyz" if ready().await => ("200 OK", "ready\n".to_owned()),
                "/readyz" => ("503 Service Unavailable", "not ready\n".to_owned()),
                _ => ("404 Not Found", "not found\n".to_owned()),
            };
            let response = format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = sock.write_all(response.as_bytes()).await;
            let _ = sock.shutdown().await;
        });
    }
}

/// Binds `addr` and serves the operator endpoints in the background; also keeps the
/// recorder's histograms from growing without bound.
pub async fn start(addr: &str, ready: ReadinessCheck) -> Result<std::net::SocketAddr, String> {
    let handle = install_recorder()?;
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| format!("STABLEPAY_METRICS_BIND: cannot bind {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let upkeep = handle.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(std::time::Duration::from_secs(5)).await;
            upkeep.run_upkeep();
        }
    });
    tokio::spawn(serve_operator_endpoints(listener, handle, ready));
    tracing::info!(at = %local, "metrics, liveness and readiness served");
    Ok(local)
}
