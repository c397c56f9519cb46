use async_trait::async_trait;

use super::StoreError;
use crate::model::{
    BalanceTransaction, BalanceTransactionFilter, EventId, MerchantId, Mode, Page, PageRequest,
    Payment, PaymentAttempt, PaymentAttemptFilter, PaymentAttemptId, PaymentFilter, PaymentId,
    Refund, RefundFilter, RefundId, Subscription, SubscriptionFilter, SubscriptionId,
    WebhookAttempt, WebhookEventFilter, WebhookEventRecord,
};

/// The ledger export's rows in batches, oldest first, read as the stream is polled.
pub type LedgerBatches =
    futures_util::stream::BoxStream<'static, Result<Vec<BalanceTransaction>, StoreError>>;

/// Read access to the resources only the chain and the worker create. Every call is
/// scoped by merchant and mode; rows of other merchants or modes are invisible.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ResourceReader: Send + Sync {
    async fn payment(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: PaymentId,
    ) -> Result<Option<Payment>, StoreError>;
    async fn payments(
        &self,
        merchant: MerchantId,
        mode: Mode,
        filter: &PaymentFilter,
        page: &PageRequest,
    ) -> Result<Page<Payment>, StoreError>;

    /// A page of the ledger (D32), newest first.
    async fn balance_transactions(
        &self,
        merchant: MerchantId,
        mode: Mode,
        filter: &BalanceTransactionFilter,
        page: &PageRequest,
    ) -> Result<Page<BalanceTransaction>, StoreError>;
    /// Every ledger entry `filter` selects, oldest first, in batches read as the stream is
    /// polled (constant memory). Stream errors: `Unavailable`/`Internal`, after which the
    /// export must end as failed, never as complete.
    async fn balance_transaction_export(
        &self,
        merchant: MerchantId,
        mode: Mode,
        filter: &BalanceTransactionFilter,
    ) -> Result<LedgerBatches, StoreError>;

    async fn refund(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: RefundId,
    ) -> Result<Option<Refund>, StoreError>;
    async fn refunds(
        &self,
        merchant: MerchantId,
        mode: Mode,
        filter: &RefundFilter,
        page: &PageRequest,
    ) -> Result<Page<Refund>, StoreError>;

    async fn subscription(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: SubscriptionId,
    ) -> Result<Option<Subscription>, StoreError>;
    async fn subscriptions(
        &self,
        merchant: MerchantId,
        mode: Mode,
        filter: &SubscriptionFilter,
        page: &PageRequest,
    ) -> Result<Page<Subscription>, StoreError>;

    async fn payment_attempt(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: PaymentAttemptId,
    ) -> Result<Option<PaymentAttempt>, StoreError>;
    async fn payment_attempts(
        &self,
        merchant: MerchantId,
        mode: Mode,
        filter: &PaymentAttemptFilter,
        page: &PageRequest,
    ) -> Result<Page<PaymentAttempt>, StoreError>;

    async fn webhook_event(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: EventId,
    ) -> Result<Option<WebhookEventRecord>, StoreError>;
    async fn webhook_events(
        &self,
        merchant: MerchantId,
        mode: Mode,
        filter: &WebhookEventFilter,
        page: &PageRequest,
    ) -> Result<Page<WebhookEventRecord>, StoreError>;
    /// Every attempt at one delivery record, newest first; `None` when the record is not
    /// the merchant's in this mode.
    async fn webhook_attempts(
        &self,
        merchant: MerchantId,
        mode: Mode,
        delivery: EventId,
        page: &PageRequest,
    ) -> Result<Option<Page<WebhookAttempt>>, StoreError>;
}
