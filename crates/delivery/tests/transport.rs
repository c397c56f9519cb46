//! The transport against real local sockets.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use stablepay_delivery::HyperTransport;
use stablepay_domain::ports::{TransportError, WebhookTransport};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Serves one connection: captures the raw request, answers `response` after `delay`.
async fn one_shot(
    response: &'static str,
    delay: Duration,
) -> (String, tokio::task::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://127.0.0.1:{}/hooks?x=1",
        listener.local_addr().unwrap().port()
    );
    let handle = tokio::spawn(async move {
        let (mut sock, _) = listener.accept().await.unwrap();
        let mut buf = vec![0u8; 65536];
        let mut got = Vec::new();
        loop {
            let n = sock.read(&mut buf).await.unwrap();
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got).to_string();
            if let Some(head_end) = text.find("\r\n\r\n") {
                let len: usize = text
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length: ")
                            .map(|v| v.trim().parse().unwrap())
                    })
                    .unwrap_or(0);
                if got.len() >= head_end + 4 + len {
                    break;
                }
            }
            if n == 0 {
                break;
            }
        }
        tokio::time::sleep(delay).await;
        let _ = sock.write_all(response.as_bytes()).await;
        String::from_utf8_lossy(&got).to_string()
    });
    (url, handle)
}

fn headers() -> Vec<(String, String)> {
    vec![
        ("Content-Type".into(), "application/json".into()),
        ("User-Agent".into(), "Svc-Webhooks/1.0".into()),
        ("Svc-Signature".into(), "t=1,v1=ab".into()),
    ]
}

#[tokio::test]
async fn posts_the_exact_bytes_with_headers() {
    let (url, server) = one_shot(
        "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
        Duration::ZERO,
    )
    .await;
    let t = HyperTransport::new(true);
    let body = br#"{"id":"evt_1","n":1.50}"#;
    let res = t.post(&url, &headers(), body, 5).await.unwrap();
    assert_eq!((res.status, res.body_prefix.as_str()), (200, "ok"));
    let raw = server.await.unwrap();
    assert!(raw.starts_with("POST /hooks?x=1 HTTP/1.1\r\n"), "{raw}");
    let lower = raw.to_ascii_lowercase();
    assert!(lower.contains("content-type: application/json"));
    assert!(lower.contains("user-agent: svc-webhooks/1.0"));
    assert!(lower.contains("svc-signature: t=1,v1=ab"));
    assert!(raw.ends_with(r#"{"id":"evt_1","n":1.50}"#));
}

#[tokio::test]
async fn redirects_are_not_followed_and_errors_keep_a_body_prefix() {
    let (url, _s) = one_shot(
        "HTTP/1.1 302 Found\r\nlocation: http://example.com/\r\ncontent-length: 0\r\n\r\n",
        Duration::ZERO,
    )
    .await;
    let res = HyperTransport::new(true)
        .post(&url, &headers(), b"{}", 5)
        .await
        .unwrap();
    assert_eq!(res.status, 302);
    let long = Box::leak(
        format!(
            "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 3000\r\n\r\n{}",
            "e".repeat(3000)
        )
        .into_boxed_str(),
    );
    let (url, _s) = one_shot(long, Duration::ZERO).await;
    let res = HyperTransport::new(true)
        .post(&url, &headers(), b"{}", 5)
        .await
        .unwrap();
    assert_eq!(res.status, 500);
    // The attempt log keeps the first KiB.
    assert_eq!(res.body_prefix.len(), 1024);
}

#[tokio::test]
async fn the_deadline_covers_the_whole_exchange() {
    let (url, _s) = one_shot(
        "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
        Duration::from_secs(5),
    )
    .await;
    let started = std::time::Instant::now();
    let err = HyperTransport::new(true)
        .post(&url, &headers(), b"{}", 1)
        .await
        .unwrap_err();
    assert_eq!(err, TransportError::Timeout(1));
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn private_targets_are_refused_unless_allowed() {
    let (url, _s) = one_shot(
        "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
        Duration::ZERO,
    )
    .await;
    let err = HyperTransport::new(false)
        .post(&url, &headers(), b"{}", 5)
        .await
        .unwrap_err();
    assert!(matches!(err, TransportError::Refused(_)), "{err:?}");
    let err = HyperTransport::new(false)
        .post("http://localhost:1/x", &headers(), b"{}", 5)
        .await
        .unwrap_err();
    assert!(matches!(err, TransportError::Refused(_)), "{err:?}");
    let err = HyperTransport::new(true)
        .post("http://127.0.0.1:1/x", &headers(), b"{}", 5)
        .await
        .unwrap_err();
    assert!(matches!(err, TransportError::Connect(_)), "{err:?}");
}
