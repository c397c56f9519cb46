//! The webhook transport adapter: one HTTP/1.1 POST per attempt over hyper 1 + rustls.
//!
//! - The whole exchange (DNS, connect, TLS, request, response head and body prefix) runs
//!   under one deadline.
//! - Redirects are never followed: a 3xx is just a non-2xx answer.
//! - Private, loopback and link-local targets are refused unless explicitly allowed. The
//!   check runs on the resolved address that is then connected to, so a DNS answer that
//!   changes between check and use (rebinding) cannot get around it.

mod guard;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use stablepay_domain::ports::{TransportError, TransportResponse, WebhookTransport};
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};
use tokio_rustls::TlsConnector;

pub use guard::is_forbidden_target;

/// The User-Agent every delivery carries (spec: Webhook signature, rule 4).
pub const USER_AGENT: &str = stablepay_domain::services::USER_AGENT;
/// How much of a response body is kept (the attempt log shows the first KiB).
const BODY_PREFIX_BYTES: usize = 1024;

pub struct HyperTransport {
    allow_private: bool,
    tls: TlsConnector,
}

impl HyperTransport {
    pub fn new(allow_private_targets: bool) -> Self {
        let roots = RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map(|b| b.with_root_certificates(roots).with_no_client_auth())
            .unwrap_or_else(|_| unreachable!("ring supports the default protocol versions"));
        Self {
            allow_private: allow_private_targets,
            tls: TlsConnector::from(Arc::new(config)),
        }
    }

    async fn resolve(&self, host: &str, port: u16) -> Result<SocketAddr, TransportError> {
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
            .await
            .map_err(|e| TransportError::Connect(format!("cannot resolve {host}: {e}")))?
            .collect();
        if addrs.is_empty() {
            return Err(TransportError::Connect(format!("{host} has no addresses")));
        }
        if self.allow_private {
            return Ok(addrs[0]);
        }
        addrs
            .into_iter()
            .find(|a| !is_forbidden_target(a.ip()))
            .ok_or_else(|| {
                TransportError::Refused(format!(
                    "{host} resolves only to private, loopback or link-local addresses"
                ))
            })
    }

    async fn exchange(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
    ) -> Result<TransportResponse, TransportError> {
        let url = url::Url::parse(url)
            .map_err(|e| TransportError::Request(format!("invalid URL: {e}")))?;
        let tls = match url.scheme() {
            "https" => true,
            "http" => false,
            other => {
                return Err(TransportError::Refused(format!(
                    "scheme {other} is not allowed"
                )))
            }
        };
        let host = url
            .host_str()
            .ok_or_else(|| TransportError::Request("URL has no host".into()))?;
        let bare_host = host.trim_start_matches('[').trim_end_matches(']');
        let port = url
            .port_or_known_default()
            .unwrap_or(if tls { 443 } else { 80 });
        let addr = self.resolve(bare_host, port).await?;
        let tcp = TcpStream::connect(addr)
            .await
            .map_err(|e| TransportError::Connect(format!("{addr}: {e}")))?;
        let _ = tcp.set_nodelay(true);

        let mut path = url.path().to_owned();
        if let Some(q) = url.query() {
            path.push('?');
            path.push_str(q);
        }
        let host_header = match url.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_owned(),
        };
        let mut request = Request::post(path)
            .header("Host", host_header)
            .header("Content-Length", body.len().to_string());
        for (k, v) in headers {
            request = request.header(k.as_str(), v.as_str());
        }
        let request = request
            .header("Connection", "close")
            .body(Full::new(Bytes::copy_from_slice(body)))
            .map_err(|e| TransportError::Request(e.to_string()))?;

        if tls {
            let name = ServerName::try_from(bare_host.to_owned())
                .map_err(|e| TransportError::Request(format!("bad TLS name: {e}")))?;
            let stream = self
                .tls
                .connect(name, tcp)
                .await
                .map_err(|e| TransportError::Connect(format!("TLS: {e}")))?;
            send(TokioIo::new(stream), request).await
        } else {
            send(TokioIo::new(tcp), request).await
        }
    }
}

async fn send<IO>(
    io: IO,
    request: Request<Full<Bytes>>,
) -> Result<TransportResponse, TransportError>
where
    IO: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(|e| TransportError::Connect(e.to_string()))?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    let result = async {
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| TransportError::Request(e.to_string()))?;
        let status = response.status().as_u16();
        let mut body = response.into_body();
        let mut prefix = Vec::new();
        // Read only a prefix; the rest is dropped with the connection.
        while prefix.len() < BODY_PREFIX_BYTES {
            match body.frame().await {
                Some(Ok(frame)) => {
                    if let Some(data) = frame.data_ref() {
                        prefix.extend_from_slice(
                            &data[..data.len().min(BODY_PREFIX_BYTES - prefix.len())],
                        );
                    }
                }
                _ => break,
            }
        }
        Ok(TransportResponse {
            status,
            body_prefix: String::from_utf8_lossy(&prefix).trim().to_owned(),
        })
    }
    .await;
    driver.abort();
    result
}

#[async_trait]
impl WebhookTransport for HyperTransport {
    async fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
        timeout_secs: u64,
    ) -> Result<TransportResponse, TransportError> {
        match tokio::time::timeout(
            Duration::from_secs(timeout_secs),
            self.exchange(url, headers, body),
        )
        .await
        {
            Ok(result) => result,
            Err(_) => Err(TransportError::Timeout(timeout_secs)),
        }
    }
}
