//! A real local HTTP receiver for delivery tests: records every request and answers
//! according to a programmable behaviour.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

#[derive(Clone, Debug)]
pub struct Received {
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: String,
    pub at: Instant,
}

#[derive(Clone, Copy, Debug)]
pub enum Behavior {
    Ok,
    Status(u16),
    /// Answers 200 after this delay.
    Slow(Duration),
}

#[derive(Clone)]
pub struct Receiver {
    pub url: String,
    pub received: Arc<Mutex<Vec<Received>>>,
    pub behavior: Arc<Mutex<Behavior>>,
}

impl Receiver {
    pub async fn start(behavior: Behavior) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let received = Arc::new(Mutex::new(Vec::new()));
        let behavior = Arc::new(Mutex::new(behavior));
        let (rec, beh) = (received.clone(), behavior.clone());
        tokio::spawn(async move {
            loop {
                let Ok((mut sock, _)) = listener.accept().await else {
                    continue;
                };
                let (rec, beh) = (rec.clone(), beh.clone());
                tokio::spawn(async move {
                    let mut got = Vec::new();
                    let mut buf = vec![0u8; 16384];
                    let (head, body) = loop {
                        let Ok(n) = sock.read(&mut buf).await else {
                            return;
                        };
                        if n == 0 {
                            return;
                        }
                        got.extend_from_slice(&buf[..n]);
                        let text = String::from_utf8_lossy(&got).to_string();
                        if let Some(end) = text.find("\r\n\r\n") {
                            let head = text[..end].to_owned();
                            let len: usize = head
                                .lines()
                                .find_map(|l| {
                                    l.to_ascii_lowercase()
                                        .strip_prefix("content-length:")
                                        .map(|v| v.trim().parse().unwrap_or(0))
                                })
                                .unwrap_or(0);
                            if got.len() >= end + 4 + len {
                                break (
                                    head,
                                    String::from_utf8_lossy(&got[end + 4..end + 4 + len])
                                        .to_string(),
                                );
                            }
                        }
                    };
                    let mut lines = head.lines();
                    let path = lines
                        .next()
                        .unwrap_or("")
                        .split(' ')
                        .nth(1)
                        .unwrap_or("")
                        .to_owned();
                    let headers = lines
                        .filter_map(|l| {
                            l.split_once(':')
                                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                        })
                        .collect();
                    rec.lock().unwrap().push(Received {
                        path,
                        headers,
                        body,
                        at: Instant::now(),
                    });
                    let behavior = *beh.lock().unwrap();
                    let status = match behavior {
                        Behavior::Ok => 200,
                        Behavior::Status(s) => s,
                        Behavior::Slow(d) => {
                            tokio::time::sleep(d).await;
                            200
                        }
                    };
                    let response = format!("HTTP/1.1 {status} X\r\ncontent-length: 7\r\nconnection: close\r\n\r\nreceipt");
                    let _ = sock.write_all(response.as_bytes()).await;
                });
            }
        });
        Self {
            url,
            received,
            behavior,
        }
    }

    pub fn set(&self, behavior: Behavior) {
        *self.behavior.lock().unwrap() = behavior;
    }

    pub fn all(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}
