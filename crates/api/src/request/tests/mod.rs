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
use stablepay_request_store::{
    AtomicUnit, Checked, KeyClaim, MockReads, ReadShape, ReadUnit, Reads, RequestStore,
};

use super::{atomic_write, list, read, write, InTransaction, ReadCall, Reply, WriteCall};
use crate::state::{AppState, HttpWorkerStore};

mod atomic_write;
mod read;
mod write;

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
    audit_log: MockAuditLog,
    settings: MockMerchantSettings,
    refund_requests: MockRefundRequestStore,
    screening_log: MockScreeningLog,
    payment_reviews: MockPaymentReviews,
    payment_links: MockPaymentLinkRepository,
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
            fn audit_log(&self) -> &dyn AuditLog {
                let $s = self;
                &$base.audit_log
            }
            fn settings(&self) -> &dyn MerchantSettings {
                let $s = self;
                &$base.settings
            }
            fn refund_requests(&self) -> &dyn RefundRequestStore {
                let $s = self;
                &$base.refund_requests
            }
            fn screening_log(&self) -> &dyn ScreeningLog {
                let $s = self;
                &$base.screening_log
            }
            fn payment_reviews(&self) -> &dyn PaymentReviews {
                let $s = self;
                &$base.payment_reviews
            }
            fn payment_links(&self) -> &dyn PaymentLinkRepository {
                let $s = self;
                &$base.payment_links
            }
        }
    };
}

storage!(Ports, s => s);

/// What the store opened and did, in order: `open reads <shape> claim=<bool>`,
/// `open writes`, `open atomic`, `key use`, `begin`, `commit`, `rollback`.
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

impl RequestStore for FakeStore {
    fn open_reads(
        &self,
        _scope: &AuthContext,
        claim: Option<KeyClaim>,
        shape: ReadShape,
    ) -> LocalBoxFuture<'_, Result<Box<dyn ReadUnit>, StoreError>> {
        self.log
            .push(format!("open reads {shape:?} claim={}", claim.is_some()));
        let unit: Box<dyn ReadUnit> = Box::new(FakeReads {
            ports: self.ports.clone(),
            reads: MockReads::new(),
            log: self.log.clone(),
        });
        Box::pin(async move { Ok(unit) })
    }

    fn open_writes(&self) -> LocalBoxFuture<'_, Result<Box<dyn Storage>, StoreError>> {
        self.log.push("open writes");
        let ports: Box<dyn Storage> = Box::new(Shared(self.ports.clone()));
        Box::pin(async move { Ok(ports) })
    }

    fn open_atomic(&self) -> LocalBoxFuture<'_, Result<Box<dyn AtomicUnit>, StoreError>> {
        self.log.push("open atomic");
        let unit: Box<dyn AtomicUnit> = Box::new(FakeAtomic {
            ports: self.ports.clone(),
            log: self.log.clone(),
            in_transaction: self.in_transaction.clone(),
        });
        Box::pin(async move { Ok(unit) })
    }
}

/// The ports, shared by every unit of one test.
struct Shared(Arc<Ports>);

storage!(Shared, s => s.0);

/// Reads that no handler here calls (each test's handler says what its reads found).
struct FakeReads {
    ports: Arc<Ports>,
    reads: MockReads,
    log: Log,
}

impl ReadUnit for FakeReads {
    fn reads(&self) -> &dyn Reads {
        &self.reads
    }
    fn keys(&self) -> &dyn ApiKeyStore {
        &self.ports.keys
    }
    fn record_key_use(&self) {
        self.log.push("key use");
    }
}

struct FakeAtomic {
    ports: Arc<Ports>,
    log: Log,
    in_transaction: Arc<AtomicBool>,
}

impl AtomicUnit for FakeAtomic {
    fn ports(&self) -> &dyn Storage {
        self.ports.as_ref()
    }
    fn begin(&self) -> Result<LocalBoxFuture<'_, Result<(), StoreError>>, StoreError> {
        self.log.push("begin");
        self.in_transaction.store(true, Ordering::SeqCst);
        Ok(Box::pin(async { Ok(()) }))
    }
    fn begin_as_one_statement(&self) -> Result<(), StoreError> {
        self.log.push("begin");
        self.in_transaction.store(true, Ordering::SeqCst);
        Ok(())
    }
    fn finish(&self, commit: bool) -> LocalBoxFuture<'_, Result<(), StoreError>> {
        if self.in_transaction.swap(false, Ordering::SeqCst) {
            self.log.push(if commit { "commit" } else { "rollback" });
        }
        Box::pin(async { Ok(()) })
    }
    /// As PostgreSQL's: the record, then a commit only when it was stored.
    fn commit_with_answer<'a>(
        &'a self,
        scope: &'a IdempotencyScope,
        request_sha256: [u8; 32],
        response: &'a StoredResponse,
        stale_after_secs: i64,
    ) -> LocalBoxFuture<'a, Result<RecordOutcome, StoreError>> {
        Box::pin(async move {
            let recorded = self
                .ports
                .idempotency()
                .record(scope, request_sha256, response, stale_after_secs)
                .await;
            self.in_transaction.store(false, Ordering::SeqCst);
            let committed = matches!(recorded, Ok(RecordOutcome::Recorded));
            self.log.push(if committed { "commit" } else { "rollback" });
            recorded
        })
    }
}

fn context() -> AuthContext {
    AuthContext {
        merchant_id: MerchantId::generate(),
        mode: Mode::Test,
        actor: Actor::ApiKey(ApiKeyId::generate()),
        fee_tier: FeeTier::Standard,
        rate_limit_per_min: None,
        underpayment_tolerance: stablepay_domain::UnderpaymentTolerance::NONE,
    }
}

/// Keys that authenticate as `ctx` until `revoked` is set, with budget to spare, and
/// whose `Idempotency-Key` holds nothing.
fn keys(ctx: AuthContext, revoked: Arc<AtomicBool>) -> MockApiKeyStore {
    keys_looking(ctx, revoked, IdempotencyLook::Free)
}

/// `keys` whose `Idempotency-Key`, looked at beside the key's check, holds `looked`.
fn keys_looking(
    ctx: AuthContext,
    revoked: Arc<AtomicBool>,
    looked: IdempotencyLook,
) -> MockApiKeyStore {
    let authenticated = move |lease: Option<RateLease>| {
        (!revoked.load(Ordering::SeqCst)).then(|| Authenticated {
            context: ctx.clone(),
            lease: match lease {
                Some(_) => LeaseOutcome::Granted(1000),
                None => LeaseOutcome::NotAsked,
            },
        })
    };
    let mut keys = MockApiKeyStore::new();
    let check = authenticated.clone();
    keys.expect_authenticate()
        .returning(move |_, lease| Ok(check(lease)));
    keys.expect_authenticate_and_look()
        .returning(move |_, lease, _| Ok(authenticated(lease).map(|a| (a, looked.clone()))));
    keys
}

fn state(
    ports: Ports,
    log: &Log,
    in_transaction: &Arc<AtomicBool>,
) -> (Data<AppState>, Data<HttpWorkerStore>) {
    let store: Arc<dyn RequestStore> = Arc::new(FakeStore {
        ports: Arc::new(ports),
        log: log.clone(),
        in_transaction: in_transaction.clone(),
    });
    let for_worker = store.clone();
    let state = AppState {
        store_for_worker: Arc::new(move |_| for_worker.clone()),
        chain: Arc::new(MockChainReader::new()),
        plan_min_interval_secs: 60,
        chains: ChainDirectory::new(Vec::new()),
        price_feeds: Default::default(),
        operator_key: None,
        relayer: None,
        screening: stablepay_domain::services::PayerScreening::none(),
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
    (Data::new(state), Data::new(HttpWorkerStore(store)))
}

/// A handler of any policy that counts its runs in `ran` and answers `answer()`.
fn counting<C, T: 'static>(
    ran: &Arc<AtomicUsize>,
    answer: impl Fn() -> T + Clone + 'static,
) -> impl Fn(C) -> std::future::Ready<T> + Clone + 'static {
    let ran = ran.clone();
    move |_call: C| {
        ran.fetch_add(1, Ordering::SeqCst);
        std::future::ready(answer())
    }
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
/// without the key's check. `read` and `list` handlers run only on reads opened with the
/// key's claim (their reads carry the check; a reply whose check did not stand is thrown
/// away); `write` and `atomic_write` handlers never run. Each request is answered 401.
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
        let handler = counting::<WriteCall, _>(&ran, || Reply::ok(&"done"));
        // A read that found nothing under the check (so it says nothing of the key).
        let reader = counting::<ReadCall, _>(&ran, || Reply::read(Checked::unconfirmed("done")));
        let atomic = counting::<WriteCall, _>(&ran, || {
            Ok(InTransaction::new(|_call: WriteCall| async {
                Reply::ok(&"written")
            }))
        });
        let route = match policy {
            "read" => read(reader),
            "list" => list(reader.clone()),
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
                assert!(!opened.iter().any(|l| l == "key use"), "{policy}");
            }
            _ => assert_eq!(ran_after, 0, "{policy} ran for a revoked key"),
        }
        assert!(!log.lines().iter().any(|l| l == "begin"), "{policy}");
    }
}
