//! A local webhook receiver for the delivery benches (`bench webhooks`, `latency`,
//! `fairness`, `soak`): it answers 200 to every POST, counts arrivals, and keeps each
//! envelope's id with its arrival time and how often that id arrived. Hand-rolled over TCP so that its own cost stays out of the
//! measurement.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

pub(crate) struct Receiver {
    pub url: String,
    pub count: Arc<AtomicU64>,
    pub first: Arc<Mutex<Option<Instant>>>,
    pub last: Arc<Mutex<Option<Instant>>>,
    pub arrivals: Arc<Mutex<Vec<(String, Instant)>>>,
    /// Deliveries per envelope id: more than one is a duplicate.
    pub per_id: Arc<Mutex<HashMap<String, u32>>>,
}

pub(crate) async fn start_receiver() -> Result<Receiver, String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let url = format!(
        "http://127.0.0.1:{}/hooks",
        listener.local_addr().map_err(|e| e.to_string())?.port()
    );
    let r = Receiver {
        url,
        count: Arc::default(),
        first: Arc::default(),
        last: Arc::default(),
        arrivals: Arc::default(),
        per_id: Arc::default(),
    };
    let (count, first, last, lat, per_id) = (
        r.count.clone(),
        r.first.clone(),
        r.last.clone(),
        r.arrivals.clone(),
        r.per_id.clone(),
    );
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                continue;
            };
            let (count, first, last, lat, per_id) = (
                count.clone(),
                first.clone(),
                last.clone(),
                lat.clone(),
                per_id.clone(),
            );
            tokio::spawn(async move {
                let mut got = Vec::with_capacity(2048);
                let mut buf = [0u8; 4096];
                loop {
                    let Ok(n) = sock.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    got.extend_from_slice(&buf[..n]);
                    let Some(end) = find(&got, b"\r\n\r\n") else {
                        continue;
                    };
                    let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
                    let len: usize = head
                        .lines()
                        .find_map(|l| {
                            l.strip_prefix("content-length:")
                                .and_then(|v| v.trim().parse().ok())
                        })
                        .unwrap_or(0);
                    if got.len() >= end + 4 + len {
                        let body =
                            String::from_utf8_lossy(&got[end + 4..end + 4 + len]).to_string();
                        let now = Instant::now();
                        count.fetch_add(1, Ordering::Relaxed);
                        first
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .get_or_insert(now);
                        *last.lock().unwrap_or_else(|p| p.into_inner()) = Some(now);
                        if let Some(id) = envelope_id(&body) {
                            *per_id
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .entry(id.clone())
                                .or_default() += 1;
                            lat.lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .push((id, now));
                        }
                        let _ = sock.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
                        return;
                    }
                }
            });
        }
    });
    Ok(r)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn envelope_id(body: &str) -> Option<String> {
    let start = body.find("\"id\":\"")? + 6;
    let end = start + body[start..].find('"')?;
    Some(body[start..end].to_owned())
}
