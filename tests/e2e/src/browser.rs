//! A real Chromium driven over WebDriver (Debian's `chromium` + `chromium-driver`), with a
//! scripted EIP-1193 wallet injected into every page: it answers account and chain
//! requests itself and forwards everything else (personal_sign, eth_sendTransaction,
//! receipts) to the anvil node, whose dev accounts sign.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

use crate::Proc;

pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The wallet the injected provider plays.
#[derive(Debug, Clone)]
pub struct WalletScript {
    /// Accounts it offers (anvil dev accounts, unlocked on the node).
    pub accounts: Vec<String>,
    /// chain id → RPC URL of the node answering for it.
    pub rpcs: Vec<(u64, String)>,
    /// The chain it starts on (another one than the page wants, to exercise the switch).
    pub start_chain: u64,
    /// Announce itself by EIP-6963 under this name (and leave `window.ethereum` alone)
    /// rather than be `window.ethereum`.
    pub announce_as: Option<String>,
    /// A wallet whose account holds no ETH: it signs, and refuses to send transactions.
    pub sign_only: bool,
}

impl WalletScript {
    fn source(&self) -> String {
        let config = json!({
            "accounts": self.accounts,
            "rpcs": self.rpcs.iter().map(|(id, url)| (id.to_string(), json!(url))).collect::<serde_json::Map<_, _>>(),
            "chainId": format!("0x{:x}", self.start_chain),
            "announceAs": self.announce_as,
            "signOnly": self.sign_only,
        });
        PROVIDER.replace("__CONFIG__", &config.to_string())
    }
}

const PROVIDER: &str = r#"(() => {
  const cfg = __CONFIG__;
  let chainId = cfg.chainId;
  const listeners = {};
  // The call log survives navigation within the origin (a test reads it after a form posts).
  const calls = JSON.parse(sessionStorage.getItem("scriptedWalletCalls") || "[]");
  async function rpc(method, params) {
    // Signing a message does not depend on the network the wallet is on.
    const any = method === "personal_sign" || method === "eth_sign";
    const url = cfg.rpcs[String(parseInt(chainId, 16))] || (any ? Object.values(cfg.rpcs)[0] : undefined);
    if (!url) { const e = new Error("Unrecognized chain " + chainId); e.code = 4902; throw e; }
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: calls.length, method, params }) });
    const body = await res.json();
    if (body.error) { const e = new Error(body.error.message); e.code = body.error.code; throw e; }
    return body.result;
  }
  const provider = {
    isScriptedTestWallet: true,
    calls,
    async request({ method, params }) {
      calls.push(method);
      sessionStorage.setItem("scriptedWalletCalls", JSON.stringify(calls));
      if (cfg.signOnly && method === "eth_sendTransaction") {
        const e = new Error("insufficient funds for gas * price + value"); e.code = -32000; throw e;
      }
      switch (method) {
        case "eth_requestAccounts": case "eth_accounts": return cfg.accounts;
        case "eth_chainId": return chainId;
        case "wallet_switchEthereumChain": {
          const want = params[0].chainId;
          if (!cfg.rpcs[String(parseInt(want, 16))]) { const e = new Error("Unrecognized chain " + want); e.code = 4902; throw e; }
          chainId = want; (listeners.chainChanged || []).forEach((f) => f(chainId)); return null;
        }
        default: return rpc(method, params || []);
      }
    },
    on(event, f) { (listeners[event] = listeners[event] || []).push(f); },
    removeListener() {},
  };
  if (!cfg.announceAs) { window.ethereum = provider; return; }
  const info = Object.freeze({ uuid: crypto.randomUUID(), name: cfg.announceAs, rdns: "test.stablepay.wallet",
    icon: "data:image/svg+xml;base64," + btoa('<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><circle cx="12" cy="12" r="10" fill="gray"/></svg>') });
  const announce = () => window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }));
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
})();"#;

/// chromedriver's pass-through to the DevTools protocol for the current tab.
#[derive(Debug)]
struct Cdp {
    cmd: &'static str,
    params: Value,
}

impl WebDriverCompatibleCommand for Cdp {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/goog/cdp/execute",
            session.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({ "cmd": self.cmd, "params": self.params }).to_string()),
        )
    }
}

pub struct Browser {
    pub client: Client,
    _driver: Proc,
    profile: PathBuf,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Browser {
    /// A headless Chromium at `width` px, with `wallets` injected before any page script.
    pub async fn start(wallets: &[WalletScript], width: u32) -> Self {
        assert!(
            Path::new(CHROMEDRIVER).exists(),
            "{CHROMEDRIVER} is missing: `cargo xtask test` installs Debian's chromium and chromium-driver"
        );
        let port = free_port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let driver = Proc(driver);
        let profile = std::env::temp_dir().join(format!("stablepay-chromium-{}", uuid_like()));
        let caps = json!({
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-quic", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--disable-extensions",
                    format!("--window-size={width},1000"),
                    format!("--user-data-dir={}", profile.display()),
                ],
            },
            "unhandledPromptBehavior": "accept",
        });
        let caps = caps.as_object().unwrap().clone();
        let url = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        let client = loop {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            match ClientBuilder::new(connector)
                .capabilities(caps.clone())
                .connect(&url)
                .await
            {
                Ok(c) => break c,
                Err(e) if started.elapsed() < Duration::from_secs(20) => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("chromedriver did not start a session: {e}"),
            }
        };
        let browser = Self {
            client,
            _driver: driver,
            profile,
        };
        if width < 500 {
            // Headless windows are at least 500 px wide; a phone is emulated instead.
            browser
                .cdp(
                    "Emulation.setDeviceMetricsOverride",
                    json!({ "width": width, "height": 844, "deviceScaleFactor": 1, "mobile": true }),
                )
                .await;
        }
        if !wallets.is_empty() {
            // A wallet extension's RPC is not subject to the page's CSP; the scripted one
            // lives in the page, so the page's connect-src is lifted for it.
            browser
                .cdp("Page.setBypassCSP", json!({ "enabled": true }))
                .await;
        }
        for w in wallets {
            browser
                .cdp(
                    "Page.addScriptToEvaluateOnNewDocument",
                    json!({ "source": w.source() }),
                )
                .await;
        }
        browser
    }

    pub async fn cdp(&self, cmd: &'static str, params: Value) -> Value {
        self.client
            .issue_cmd(Cdp { cmd, params })
            .await
            .unwrap_or_else(|e| panic!("CDP {cmd}: {e}"))
    }

    pub async fn goto(&self, url: &str) {
        self.client.goto(url).await.unwrap();
    }

    pub async fn fill(&self, css: &str, value: &str) {
        let el = self.wait_for(css).await;
        el.clear().await.unwrap();
        el.send_keys(value).await.unwrap();
    }

    pub async fn click(&self, css: &str) {
        self.wait_for(css).await.click().await.unwrap();
    }

    pub async fn wait_for(&self, css: &str) -> fantoccini::elements::Element {
        self.client
            .wait()
            .at_most(Duration::from_secs(30))
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no `{css}` on the page: {e}"))
    }

    pub async fn text(&self, css: &str) -> String {
        self.wait_for(css).await.text().await.unwrap()
    }

    /// What a person would read on the page (for failure messages).
    pub async fn page_text(&self) -> String {
        self.client
            .execute(
                "return document.body ? document.body.innerText : ''",
                vec![],
            )
            .await
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .unwrap_or_default()
    }

    pub async fn source(&self) -> String {
        self.client.source().await.unwrap()
    }

    pub async fn path(&self) -> String {
        let url = self.client.current_url().await.unwrap();
        match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_owned(),
        }
    }

    /// Polls until the page's text contains `needle` (or panics after `timeout`).
    pub async fn wait_for_text(&self, css: &str, needle: &str, timeout: Duration) -> String {
        let started = Instant::now();
        loop {
            if let Ok(el) = self.client.find(Locator::Css(css)).await {
                if let Ok(t) = el.text().await {
                    if t.contains(needle) {
                        return t;
                    }
                    if started.elapsed() > timeout {
                        let page = self.page_text().await;
                        panic!("`{css}` never showed `{needle}`; last: {t}\npage:\n{page}");
                    }
                }
            }
            if started.elapsed() > timeout {
                let page = self.page_text().await;
                panic!(
                    "`{css}` never appeared at {}; the page says:\n{page}",
                    self.path().await
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Polls until the browser is at a path starting with `prefix`.
    pub async fn wait_for_path(&self, prefix: &str, timeout: Duration) -> String {
        let started = Instant::now();
        loop {
            let p = self.path().await;
            if p.starts_with(prefix) {
                return p;
            }
            assert!(
                started.elapsed() <= timeout,
                "never reached {prefix}; at {p}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// A PNG of the viewport, for the README.
    pub async fn screenshot(&self, to: &Path) {
        let png = self.client.screenshot().await.unwrap();
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(to, png).unwrap();
    }

    pub async fn cookie(&self, name: &str) -> Option<String> {
        self.client
            .get_named_cookie(name)
            .await
            .ok()
            .map(|c| c.value().to_owned())
    }

    pub async fn close(self) {
        let _ = self.client.clone().close().await;
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

fn uuid_like() -> String {
    format!("{:016x}", rand::random::<u64>())
}

/// The dashboard password `sign_in` sets.
pub const PASSWORD: &str = "correct horse battery staple";
const SIGN_IN_WAIT: Duration = Duration::from_secs(60);

/// Invites a dashboard user for the stack's merchant; returns (email, setup link).
pub async fn invite(stack: &crate::Stack) -> (String, String) {
    let email = "owner@merchant.example".to_owned();
    let invitation = stablepay_domain::services::invite_dashboard_user(
        stack.merchant,
        stablepay_domain::Email::parse(&email).unwrap(),
        &stablepay_domain::rules::dashboard_auth::SessionPolicy::default(),
        &stack.store,
        &stablepay_domain::ports::SystemClock,
    )
    .await
    .unwrap();
    let link = format!("{}/dashboard/setup/{}", stack.api, invitation.setup_token);
    (email, link)
}

/// Completes the setup link and signs in, in the browser; ends on the test-mode home.
pub async fn sign_in(b: &Browser, stack: &crate::Stack) {
    let (email, link) = invite(stack).await;
    b.goto(&link).await;
    b.fill("#password", PASSWORD).await;
    b.fill("#confirm", PASSWORD).await;
    b.click("#setup-form button[type=submit]").await;
    b.wait_for_path("/dashboard/login", SIGN_IN_WAIT).await;
    b.fill("#email", &email).await;
    b.fill("#password", PASSWORD).await;
    b.click("#sign-in").await;
    b.wait_for_path("/dashboard/live", SIGN_IN_WAIT).await;
    b.goto(&format!("{}/dashboard/test", stack.api)).await;
    b.wait_for_text(".test-banner", "TEST MODE", SIGN_IN_WAIT)
        .await;
}
