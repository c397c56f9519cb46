//! What one API request opens from storage (D28). The api's request path (`crates/api/src/request/`)
//! decides, per route policy, which of these a handler gets; the PostgreSQL adapter
//! implements them. Nothing here is the domain's: no use case needs to know how a request
//! holds its connection or where its key is checked.
//!
//! - A read handler gets `Reads`: read-only, scoped to one merchant and mode when opened,
//!   every call answering a `Checked` value. It cannot write, whatever its key.
//! - A write handler gets every port (`Storage`), each call committing on its own.
//! - An atomic write gets every port bound to one transaction (`AtomicUnit`).

use async_trait::async_trait;
use futures_util::future::LocalBoxFuture;
pub use stablepay_domain::ports::LedgerBatches;
use stablepay_domain::ports::{
    ApiKeyStore, IdempotencyScope, RecordOutcome, Storage, StoreError, StoredResponse,
};
use stablepay_domain::{
    AuditEvent, AuthContext, BalanceTransaction, BalanceTransactionFilter, CheckoutSession,
    CheckoutSessionId, EventId, Page, PageRequest, Payment, PaymentAttempt, PaymentAttemptFilter,
    PaymentAttemptId, PaymentFilter, PaymentId, PaymentLink, PaymentLinkId, Refund, RefundFilter,
    RefundId, RefundRequest, RefundRequestId, ScreeningCheck, SessionFilter, Subscription,
    SubscriptionFilter, SubscriptionId, Timestamp, Wallet, WalletId, WalletStanding,
    WebhookAttempt, WebhookEndpoint, WebhookEndpointId, WebhookEventFilter, WebhookEventRecord,
};

/// A session as `Reads::session` reads it: the row, and the standing of the merchant's
/// wallet at its recipient address, if there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRead {
    pub session: CheckoutSession,
    pub recipient: Option<WalletStanding>,
}

/// A value read by a unit opened with a key's claim, and whether the read found its row
/// with the key standing as claimed, in the same statement. Keys are only ever revoked,
/// never restored or moved, so a key that stood then stood for the whole request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Checked<T> {
    value: T,
    key_stood: bool,
}

impl<T> Checked<T> {
    /// Read under the key's condition, and a row was found: the key stood. For adapters.
    pub fn stood(value: T) -> Self {
        Self {
            value,
            key_stood: true,
        }
    }

    /// Read without a claim, or under one but finding nothing: says nothing of the key.
    pub fn unconfirmed(value: T) -> Self {
        Self {
            value,
            key_stood: false,
        }
    }

    /// `stood` when `found`, else `unconfirmed`. For adapters.
    pub fn found_if(value: T, found: bool) -> Self {
        Self {
            value,
            key_stood: found,
        }
    }

    pub fn key_stood(&self) -> bool {
        self.key_stood
    }

    pub fn value(&self) -> &T {
        &self.value
    }

    pub fn into_value(self) -> T {
        self.value
    }

    /// The value, and the check kept apart to carry what is made of it (for a handler
    /// whose next step awaits, which `map` cannot).
    pub fn take(self) -> (T, Checked<()>) {
        (
            self.value,
            Checked {
                value: (),
                key_stood: self.key_stood,
            },
        )
    }

    /// The same check over what `f` makes of the value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Checked<U> {
        Checked {
            value: f(self.value),
            key_stood: self.key_stood,
        }
    }

    /// As `map`, for a conversion that may fail.
    pub fn try_map<U, E>(self, f: impl FnOnce(T) -> Result<U, E>) -> Result<Checked<U>, E> {
        Ok(Checked {
            value: f(self.value)?,
            key_stood: self.key_stood,
        })
    }
}

/// An API key's claim to stand for a merchant and mode, as this process last saw it.
/// Reads opened with one are made on condition that the key still stands so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyClaim {
    pub key_sha256: [u8; 32],
    pub claimed: AuthContext,
}

/// What a read handler reads: the rows of the merchant and mode the unit was opened for,
/// read-only. With a claim, every read of a resource carries the key's check.
/// Errors: `Unavailable`/`Internal` when storage fails.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait Reads: Send + Sync {
    /// A session, with the standing of the merchant's wallet at its recipient address in
    /// the same statement: what a GET shows depends on it (D30).
    async fn session(
        &self,
        id: CheckoutSessionId,
    ) -> Result<Checked<Option<SessionRead>>, StoreError>;
    /// A page of sessions, each as a reader sees it at `now` (an open session past its
    /// expiry is `expired`, D28), and so filtered by `status`.
    async fn sessions(
        &self,
        filter: &SessionFilter,
        page: &PageRequest,
        now: Timestamp,
    ) -> Result<Checked<Page<CheckoutSession>>, StoreError>;
    /// A wallet is the merchant's in both modes: its reads check the claim to the merchant.
    async fn wallet(&self, id: WalletId) -> Result<Checked<Option<Wallet>>, StoreError>;
    async fn wallets(&self, page: &PageRequest) -> Result<Checked<Page<Wallet>>, StoreError>;
    async fn endpoint(
        &self,
        id: WebhookEndpointId,
    ) -> Result<Checked<Option<WebhookEndpoint>>, StoreError>;
    async fn endpoints(
        &self,
        page: &PageRequest,
    ) -> Result<Checked<Page<WebhookEndpoint>>, StoreError>;
    async fn payment(&self, id: PaymentId) -> Result<Checked<Option<Payment>>, StoreError>;
    /// The sanctions checks made for a payment's checkout session (D33), oldest first (at
    /// most 100); `None` when there is no such payment. A subscription's later charges
    /// have none of their own here (they are checked against the subscription).
    async fn payment_screening(
        &self,
        id: PaymentId,
    ) -> Result<Checked<Option<Vec<ScreeningCheck>>>, StoreError>;
    async fn payments(
        &self,
        filter: &PaymentFilter,
        page: &PageRequest,
    ) -> Result<Checked<Page<Payment>>, StoreError>;
    /// A page of the ledger (D32), newest first.
    async fn balance_transactions(
        &self,
        filter: &BalanceTransactionFilter,
        page: &PageRequest,
    ) -> Result<Checked<Page<BalanceTransaction>>, StoreError>;
    /// Every ledger entry `filter` selects, oldest first, in batches read as the stream is
    /// polled (constant memory, however many rows). The first batch is read now, under the
    /// check; the stream reads the rest without it (the request was authenticated by then).
    /// Stream errors: `Unavailable`/`Internal`; the export must then end as failed, never
    /// as complete.
    async fn balance_transaction_export(
        &self,
        filter: &BalanceTransactionFilter,
    ) -> Result<Checked<LedgerBatches>, StoreError>;
    async fn refund(&self, id: RefundId) -> Result<Checked<Option<Refund>>, StoreError>;
    async fn refunds(
        &self,
        filter: &RefundFilter,
        page: &PageRequest,
    ) -> Result<Checked<Page<Refund>>, StoreError>;
    async fn subscription(
        &self,
        id: SubscriptionId,
    ) -> Result<Checked<Option<Subscription>>, StoreError>;
    async fn subscriptions(
        &self,
        filter: &SubscriptionFilter,
        page: &PageRequest,
    ) -> Result<Checked<Page<Subscription>>, StoreError>;
    async fn payment_attempt(
        &self,
        id: PaymentAttemptId,
    ) -> Result<Checked<Option<PaymentAttempt>>, StoreError>;
    async fn payment_attempts(
        &self,
        filter: &PaymentAttemptFilter,
        page: &PageRequest,
    ) -> Result<Checked<Page<PaymentAttempt>>, StoreError>;
    async fn webhook_event(
        &self,
        id: EventId,
    ) -> Result<Checked<Option<WebhookEventRecord>>, StoreError>;
    async fn webhook_events(
        &self,
        filter: &WebhookEventFilter,
        page: &PageRequest,
    ) -> Result<Checked<Page<WebhookEventRecord>>, StoreError>;
    /// One refund request (D32).
    async fn refund_request(
        &self,
        id: RefundRequestId,
    ) -> Result<Checked<Option<RefundRequest>>, StoreError>;
    /// A page of refund requests, newest first; `payment` narrows it to one payment's.
    async fn refund_requests(
        &self,
        payment: Option<PaymentId>,
        page: &PageRequest,
    ) -> Result<Checked<Page<RefundRequest>>, StoreError>;
    /// One payment link (D34), with its completed count.
    async fn payment_link(
        &self,
        id: PaymentLinkId,
    ) -> Result<Checked<Option<PaymentLink>>, StoreError>;
    /// A page of payment links, newest first.
    async fn payment_links(
        &self,
        page: &PageRequest,
    ) -> Result<Checked<Page<PaymentLink>>, StoreError>;
    /// A page of the audit log (D32): this mode's entries and the account's, newest first.
    async fn audit_events(
        &self,
        page: &PageRequest,
    ) -> Result<Checked<Page<AuditEvent>>, StoreError>;
    /// Every attempt at one delivery record, newest first; `None` when the record is not
    /// the merchant's in this mode (the record's read carries the check).
    async fn webhook_attempts(
        &self,
        delivery: EventId,
        page: &PageRequest,
    ) -> Result<Checked<Option<Page<WebhookAttempt>>>, StoreError>;
}

/// Whether a read unit reads one resource or a page: the adapter may serve the first
/// together with other requests' reads, never the second (one slow page would delay them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadShape {
    One,
    Page,
}

/// The storage a read handler's request holds: its reads, and the key store the policy
/// authenticates with (on the same connection), which the handler never sees.
pub trait ReadUnit: Send + Sync {
    fn reads(&self) -> &dyn Reads;
    fn keys(&self) -> &dyn ApiKeyStore;
    /// Records the claimed key's use, as its authentication would have (for a request
    /// answered by a read whose check said the key stood). Nothing without a claim.
    fn record_key_use(&self);
}

/// The storage of an atomic write: every port bound to one connection, with a transaction
/// from `begin` to `finish`. Dropped without `finish`, whatever it began is undone.
pub trait AtomicUnit: Send + Sync {
    fn ports(&self) -> &dyn Storage;

    /// Begins the transaction: every later call through `ports` is inside it until
    /// `finish`. Returns the future that starts it at the database, to be run beside the
    /// first statements, which then travel with it.
    /// Errors: `Internal` for a second begin or a unit whose calls are still running;
    /// nothing was begun. The future: `Unavailable` when the transaction could not start
    /// (`finish` still ends the unit).
    fn begin(&self) -> Result<LocalBoxFuture<'_, Result<(), StoreError>>, StoreError>;

    /// Begins the transaction as one statement to come (D28): reads the adapter knows
    /// take no locks run alone until then, and the first write whose outcome nothing
    /// reads (an insert of new rows) is held and sent with the answer, as one statement,
    /// by `commit_with_answer`. Any other statement, or a read after the held write,
    /// first begins a transaction as `begin` does, with the held write in it: the unit's
    /// work is atomic either way.
    /// Errors: `Internal` for a unit already begun; nothing was begun.
    fn begin_as_one_statement(&self) -> Result<(), StoreError>;

    /// Ends the transaction: committed when `commit`, else rolled back; nothing for a unit
    /// that began none.
    /// Errors: `Unavailable` when the commit failed: the work must not be reported done.
    fn finish(&self, commit: bool) -> LocalBoxFuture<'_, Result<(), StoreError>>;

    /// Ends the transaction `begin` (or `begin_as_one_statement`) began by recording `response` as the answer under the
    /// request's idempotency key (`scope`, the body's hash) and committing, in one round
    /// trip: committed only when `Recorded`; `InFlight` and `Superseded` rolled back.
    /// `finish` then has nothing left to end.
    /// Errors: `Internal` when no transaction was begun; `Unavailable` when the commit
    /// failed (the work must not be reported done); any other failure of the record rolled
    /// the transaction back.
    fn commit_with_answer<'a>(
        &'a self,
        scope: &'a IdempotencyScope,
        request_sha256: [u8; 32],
        response: &'a StoredResponse,
        stale_after_secs: i64,
    ) -> LocalBoxFuture<'a, Result<RecordOutcome, StoreError>>;
}

/// Opens each API request's storage; as `Storage`, every call stands alone.
/// Errors of every `open_`: `Unavailable` when the store cannot serve the request in time.
pub trait RequestStore: Storage {
    /// Reads of `scope`'s rows, each carrying `claim`'s check when there is one.
    fn open_reads(
        &self,
        scope: &AuthContext,
        claim: Option<KeyClaim>,
        shape: ReadShape,
    ) -> LocalBoxFuture<'_, Result<Box<dyn ReadUnit>, StoreError>>;

    /// Every port on a connection of the request's own, each call committing alone.
    fn open_writes(&self) -> LocalBoxFuture<'_, Result<Box<dyn Storage>, StoreError>>;

    /// Every port on a connection of the request's own, for one transaction.
    fn open_atomic(&self) -> LocalBoxFuture<'_, Result<Box<dyn AtomicUnit>, StoreError>>;
}
