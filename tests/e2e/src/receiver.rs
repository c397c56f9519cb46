//! A merchant's server on 127.0.0.1:0: records every webhook it is sent (answering 200)
//! and serves the `success_url` page a buyer lands on.

use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::service::service_fn;
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;

#[derive(Debug, Clone)]
pub struct Delivery {
    pub signature: String,
    pub body: String,
}

pub struct Receiver {
    pub base: String,
    deliveries: Arc<Mutex<Vec<Delivery>>>,
}

impl Receiver {
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let deliveries: Arc<Mutex<Vec<Delivery>>> = Arc::default();
        let seen = deliveries.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let seen = seen.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req: Request<hyper::body::Incoming>| {
                        let seen = seen.clone();
                        async move {
                            if req.method() == Method::GET {
                                let page = "<!doctype html><title>Thanks</title><h1 id=\"thanks\">Thanks for your order</h1>";
                                return Ok::<_, hyper::Error>(
                                    Response::builder()
                                        .header("content-type", "text/html")
                                        .body(Full::new(Bytes::from(page)))
                                        .unwrap(),
                                );
                            }
                            let signature = req
                                .headers()
                                .get("svc-signature")
                                .and_then(|v| v.to_str().ok())
                                .unwrap_or_default()
                                .to_owned();
                            let body = req.into_body().collect().await?.to_bytes();
                            seen.lock().unwrap().push(Delivery {
                                signature,
                                body: String::from_utf8_lossy(&body).into_owned(),
                            });
                            Ok(Response::new(Full::new(Bytes::from_static(b"ok"))))
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Self { base, deliveries }
    }

    pub fn deliveries(&self) -> Vec<Delivery> {
        self.deliveries.lock().unwrap().clone()
    }
}
