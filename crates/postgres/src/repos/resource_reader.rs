//! `ResourceReader` for the store: the reads of `reader.rs`, without a key check.

use async_trait::async_trait;
use stablepay_domain::ports::{LedgerBatches, ResourceReader, StoreError};
use stablepay_domain::*;

use crate::PgStore;

#[async_trait]
impl ResourceReader for PgStore {
    async fn payment(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: PaymentId,
    ) -> Result<Option<Payment>, StoreError> {
        Ok(self
            .checked_payment(None, merchant, mode, id)
            .await?
            .into_value())
    }

    async fn payments(
        &self,
        merchant: MerchantId,
        mode: Mode,
        f: &PaymentFilter,
        page: &PageRequest,
    ) -> Result<Page<Payment>, StoreError> {
        Ok(self
            .checked_payments(None, merchant, mode, f, page)
            .await?
            .into_value())
    }

    async fn balance_transactions(
        &self,
        merchant: MerchantId,
        mode: Mode,
        f: &BalanceTransactionFilter,
        page: &PageRequest,
    ) -> Result<Page<BalanceTransaction>, StoreError> {
        Ok(self
            .checked_balance_transactions(None, merchant, mode, f, page)
            .await?
            .into_value())
    }

    async fn balance_transaction_export(
        &self,
        merchant: MerchantId,
        mode: Mode,
        f: &BalanceTransactionFilter,
    ) -> Result<LedgerBatches, StoreError> {
        Ok(self
            .export_balance_transactions(None, merchant, mode, f)
            .await?
            .into_value())
    }

    async fn refund(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: RefundId,
    ) -> Result<Option<Refund>, StoreError> {
        Ok(self
            .checked_refund(None, merchant, mode, id)
            .await?
            .into_value())
    }

    async fn refunds(
        &self,
        merchant: MerchantId,
        mode: Mode,
        f: &RefundFilter,
        page: &PageRequest,
    ) -> Result<Page<Refund>, StoreError> {
        Ok(self
            .checked_refunds(None, merchant, mode, f, page)
            .await?
            .into_value())
    }

    async fn subscription(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: SubscriptionId,
    ) -> Result<Option<Subscription>, StoreError> {
        Ok(self
            .checked_subscription(None, merchant, mode, id)
            .await?
            .into_value())
    }

    async fn subscriptions(
        &self,
        merchant: MerchantId,
        mode: Mode,
        f: &SubscriptionFilter,
        page: &PageRequest,
    ) -> Result<Page<Subscription>, StoreError> {
        Ok(self
            .checked_subscriptions(None, merchant, mode, f, page)
            .await?
            .into_value())
    }

    async fn payment_attempt(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: PaymentAttemptId,
    ) -> Result<Option<PaymentAttempt>, StoreError> {
        Ok(self
            .checked_payment_attempt(None, merchant, mode, id)
            .await?
            .into_value())
    }

    async fn payment_attempts(
        &self,
        merchant: MerchantId,
        mode: Mode,
        f: &PaymentAttemptFilter,
        page: &PageRequest,
    ) -> Result<Page<PaymentAttempt>, StoreError> {
        Ok(self
            .checked_payment_attempts(None, merchant, mode, f, page)
            .await?
            .into_value())
    }

    async fn webhook_event(
        &self,
        merchant: MerchantId,
        mode: Mode,
        id: EventId,
    ) -> Result<Option<WebhookEventRecord>, StoreError> {
        Ok(self
            .checked_webhook_event(None, merchant, mode, id)
            .await?
            .into_value())
    }

    async fn webhook_events(
        &self,
        merchant: MerchantId,
        mode: Mode,
        f: &WebhookEventFilter,
        page: &PageRequest,
    ) -> Result<Page<WebhookEventRecord>, StoreError> {
        Ok(self
            .checked_webhook_events(None, merchant, mode, f, page)
            .await?
            .into_value())
    }

    async fn webhook_attempts(
        &self,
        merchant: MerchantId,
        mode: Mode,
        delivery: EventId,
        page: &PageRequest,
    ) -> Result<Option<Page<WebhookAttempt>>, StoreError> {
        Ok(self
            .checked_webhook_attempts(None, merchant, mode, delivery, page)
            .await?
            .into_value())
    }
}
