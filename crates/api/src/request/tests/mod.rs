//! The entry point per policy, against mocked ports: who reaches storage, in what order.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{test, App};
use futures_util::future::LocalBoxFuture;
use stablepay_domain::deployment::{ChainDirectory, TokenDirectory};
use stablepay_domain::ports::*;
use stablepay_domain::{Actor, ApiKeyId, AuthContext, FeeTier, MerchantId, Mode};
use stablepay_limits::{IpRateLimiter, TrustedProxies};

use super::auth_failures::AuthFailureLimiter;
use super::rate_limit::KeyRateLimiter;
use super::{atomic_write, list, read, write, Call, Reply, Write};
use crate::state::{AppState, WorkerStore};

mod atomic_write;

const SECRET: &str = "svc_sk_test_0123456789abcdefghijklmnopqrstuv";

/// Every port a mock; the ones a test does not arm panic when called.
#[derive(Default)]
struct Ports {
    keys: MockApiKeyStore,
    key_manager: MockApiKeyManager,
    users: MockDashboardUserStore,
    summaries: MockDashboardReader,
    sessions: MockSessionRepository,
    wallets: MockWalletRepository,
    endpoints: MockWebhookEndpointRepository,
    reader: MockResourceReader,
    idempotency: MockIdempotencyStore,
    outbox: MockOutbox,
    recoveries: MockRecoveryQueue,
    settlement: MockSettlementStore,
    deposits: MockDepositStore,
    refunds: MockRefundStore,
    subscriptions: MockSubscriptionStore,
}

/// `Storage` for `$t`, each port the field of that name of `$base`.
macro_rules! storage {
    ($t:ty, $s:ident => $base:expr) => {
        impl Storage for $t {
            fn keys(&self) -> &dyn ApiKeyStore {
                let $s = self;
                &$base.keys
            }
            fn key_manager(&self) -> &dyn ApiKeyManager {
                let $s = self;
                &$base.key_manager
            }
            fn users(&self) -> &dyn DashboardUserStore {
                let $s = self;
                &$base.users
            }
            fn summaries(&self) -> &dyn DashboardReader {
                let $s = self;
                &$base.summaries
            }
            fn sessions(&self) -> &dyn SessionRepository {
                let $s = self;
                &$base.sessions
            }
            fn wallets(&self) -> &dyn WalletRepository {
                let $s = self;
                &$base.wallets
            }
            fn endpoints(&self) -> &dyn WebhookEndpointRepository {
                let $s = self;
                &$base.endpoints
            }
            fn reader(&self) -> &dyn ResourceReader {
                let $s = self;
                &$base.reader
            }
            fn idempotency(&self) -> &dyn IdempotencyStore {
                let $s = self;
                &$base.idempotency
            }
            fn outbox(&self) -> &dyn Outbox {
                let $s = self;
                &$base.outbox
            }
            fn recoveries(&self) -> &dyn RecoveryQueue {
                let $s = self;
                &$base.recoveries
            }
            fn settlement(&self) -> &dyn SettlementStore {
                let $s = self;
                &$base.settlement
            }
            fn deposits(&self) -> &dyn DepositStore {
                let $s = self;
                &$base.deposits
            }
            fn refunds(&self) -> &dyn RefundStore {
                let $s = self;
                &$base.refunds
            }
            fn subscriptions(&self) -> &dyn SubscriptionStore {
                let $s = self;
                &$base.subscriptions
            }
        }
    };
}

storage!(Ports, s => s);

/// What the units did, in order: `open <access> claim=<bool>`, `begin`, `commit`,
/// `rollback`.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    fn push(&self, line: impl Into<String>) {
        self.0.lock().unwrap().push(line.into());
    }
    fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

struct FakeStore {
    ports: Arc<Ports>,
    log: Log,
    in_transaction: Arc<AtomicBool>,
}

storage!(FakeStore, s => s.ports);

impl UnitsOfWork for FakeStore {
    fn open(
        &self,
        access: Access,
        claim: Option<KeyClaim>,
    ) -> LocalBoxFuture<'_, Result<Box<dyn UnitOfWork>, StoreError>> {
        self.log
            .push(format!("open {access:?} claim={}", claim.is_some()));
        let unit: Box<dyn UnitOfWork> = Box::new(FakeUnit {
            ports: self.ports.clone(),
            log: self.log.clone(),
            in_transaction: self.in_transaction.clone(),
        });
        Box::pin(async move { Ok(unit) })
    }
}

struct FakeUnit {
    ports: Arc<Ports>,
    log: Log,
    in_transaction: Arc<AtomicBool>,
}

impl UnitOfWork for FakeUnit {
    fn ports(&self) -> &dyn Storage {
        self.ports.as_ref()
    }
    // A fake read never finds its row under the claim: the key is then authenticated.
    fn claim_held(&self) -> bool {
        false
    }
    fn begin(&self) -> Result<LocalBoxFuture<'_, Result<(), StoreError>>, StoreError> {
        self.log.push("begin");
        self.in_transaction.store(true, Ordering::SeqCst);
        Ok(Box::pin(async { Ok(()) }))
    }
    fn finish(&self, commit: bool) -> LocalBoxFuture<'_, Result<(), StoreError>> {
        if self.in_transaction.swap(false, Ordering::SeqCst) {
            self.log.push(if commit { "commit" } else { "rollback" });
        }
        Box::pin(async { Ok(()) })
    }
}

fn context() -> AuthContext {
    AuthContext {
        merchant_id: MerchantId::generate(),
        mode: Mode::Test,
        actor: Actor::ApiKey(ApiKeyId::generate()),
        fee_tier: FeeTier::Standard,
        rate_limit_per_min: None,
    }
}

/// Keys that authenticate as `ctx` until `revoked` is set, with budget to spare.
fn keys(ctx: AuthContext, revoked: Arc<AtomicBool>) -> MockApiKeyStore {
    let mut keys = MockApiKeyStore::new();
    keys.expect_authenticate().returning(move |_, lease| {
        Ok((!revoked.load(Ordering::SeqCst)).then(|| Authenticated {
            context: ctx.clone(),
            lease: match lease {
                Some(_) => LeaseOutcome::Granted(1000),
                None => LeaseOutcome::NotAsked,
            },
        }))
    });
    keys
}

fn state(
    ports: Ports,
    log: &Log,
    in_transaction: &Arc<AtomicBool>,
) -> (Data<AppState>, Data<WorkerStore>) {
    let store: Arc<dyn UnitsOfWork> = Arc::new(FakeStore {
        ports: Arc::new(ports),
        log: log.clone(),
        in_transaction: in_transaction.clone(),
    });
    let for_worker = store.clone();
    let state = AppState {
        store: store.clone(),
        store_for_worker: Arc::new(move |_| for_worker.clone()),
        chain: Arc::new(MockChainReader::new()),
        plan_min_interval_secs: 60,
        chains: ChainDirectory::new(Vec::new()),
        operator_key: None,
        relayer: None,
        intent_ttl_secs: 600,
        public_rate_limiter: Arc::new(IpRateLimiter::new(1000, TrustedProxies::default())),
        clock: Arc::new(SystemClock),
        tokens: TokenDirectory::new(),
        public_url: "http://localhost".into(),
        rate_limiter: KeyRateLimiter::new(1000),
        auth_failures: AuthFailureLimiter::new(1000, TrustedProxies::default()),
        auth_guesses: Default::default(),
        ping: None,
    };
    (Data::new(state), Data::new(WorkerStore(store)))
}

fn request(method: &str) -> test::TestRequest {
    let req = match method {
        "GET" => test::TestRequest::get(),
        _ => test::TestRequest::post()
            .insert_header(("content-type", "application/json"))
            .set_payload("{}"),
    };
    req.uri("/x")
        .insert_header(("authorization", format!("Bearer {SECRET}")))
}

/// Every policy: once the key is revoked, no handler code that reads or writes runs
/// without the key's check. `read` and `list` handlers run only in a unit opened with the
/// key's claim (their reads carry the check; the reply is thrown away); `write` and
/// `atomic_write` handlers never run. Each request is answered 401.
#[actix_web::test]
async fn a_revoked_key_never_reads_or_writes() {
    for policy in ["read", "list", "write", "atomic_write"] {
        let (ctx, revoked) = (context(), Arc::new(AtomicBool::new(false)));
        let (log, in_tx) = (Log::default(), Arc::new(AtomicBool::new(false)));
        let ports = Ports {
            keys: keys(ctx, revoked.clone()),
            ..Ports::default()
        };
        let (state, store) = state(ports, &log, &in_tx);
        let ran = Arc::new(AtomicUsize::new(0));
        let counted = ran.clone();
        let handler = move |_call: Call| {
            let counted = counted.clone();
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                Reply::ok(&"done")
            }
        };
        let counted = ran.clone();
        let atomic = move |_call: Call| {
            let counted = counted.clone();
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                Ok(Write::new(|_call: Call| async { Reply::ok(&"written") }))
            }
        };
        let route = match policy {
            "read" => read(handler),
            "list" => list(handler),
            "write" => write(handler),
            _ => atomic_write(atomic),
        };
        let app = test::init_service(
            App::new()
                .app_data(state)
                .app_data(store)
                .route("/x", route),
        )
        .await;
        let method = if matches!(policy, "read" | "list") {
            "GET"
        } else {
            "POST"
        };
        // The key is seen once (so this process has its guess), then revoked.
        let first = test::call_service(&app, request(method).to_request()).await;
        assert_eq!(first.status(), StatusCode::OK, "{policy}");
        let before = ran.load(Ordering::SeqCst);
        revoked.store(true, Ordering::SeqCst);
        log.0.lock().unwrap().clear();
        let second = test::call_service(&app, request(method).to_request()).await;
        assert_eq!(second.status(), StatusCode::UNAUTHORIZED, "{policy}");
        let ran_after = ran.load(Ordering::SeqCst) - before;
        match policy {
            "read" | "list" => {
                assert_eq!(ran_after, 1, "{policy}: ran once, under the claim");
                let opened: Vec<_> = log.lines();
                assert!(
                    opened.iter().all(|l| l.ends_with("claim=true")),
                    "{policy}: {opened:?}"
                );
            }
            _ => assert_eq!(ran_after, 0, "{policy} ran for a revoked key"),
        }
        assert!(!log.lines().iter().any(|l| l == "begin"), "{policy}");
    }
}
