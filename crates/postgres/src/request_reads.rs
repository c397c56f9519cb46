//! `Reads` for a read unit: each read scoped to the unit's merchant and mode and made
//! under its key check, the same queries the domain's ports run without one (a session
//! also brings its recipient wallet's standing, which a GET shows it by).

use async_trait::async_trait;
use stablepay_domain::ports::StoreError;
use stablepay_domain::*;
use stablepay_request_store::{Checked, LedgerBatches, Reads, SessionRead};

use crate::request_store::PgReads;

impl PgReads {
    fn merchant(&self) -> MerchantId {
        self.scope.merchant_id
    }

    fn mode(&self) -> Mode {
        self.scope.mode
    }
}

#[async_trait]
impl Reads for PgReads {
    async fn session(
        &self,
        id: CheckoutSessionId,
    ) -> Result<Checked<Option<SessionRead>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .read_session_and_recipient(check, self.merchant(), self.mode(), id)
            .await
    }

    async fn sessions(
        &self,
        filter: &SessionFilter,
        page: &PageRequest,
        now: Timestamp,
    ) -> Result<Checked<Page<CheckoutSession>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .list_sessions(check, self.merchant(), self.mode(), filter, page, now)
            .await
    }

    async fn wallet(&self, id: WalletId) -> Result<Checked<Option<Wallet>>, StoreError> {
        self.store
            .read_wallet(self.check.as_ref(), self.merchant(), id)
            .await
    }

    async fn wallets(&self, page: &PageRequest) -> Result<Checked<Page<Wallet>>, StoreError> {
        self.store
            .list_wallets(self.check.as_ref(), self.merchant(), page)
            .await
    }

    async fn endpoint(
        &self,
        id: WebhookEndpointId,
    ) -> Result<Checked<Option<WebhookEndpoint>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .read_endpoint(check, self.merchant(), self.mode(), id)
            .await
    }

    async fn endpoints(
        &self,
        page: &PageRequest,
    ) -> Result<Checked<Page<WebhookEndpoint>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .list_endpoints(check, self.merchant(), self.mode(), page)
            .await
    }

    async fn payment(&self, id: PaymentId) -> Result<Checked<Option<Payment>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .checked_payment(check, self.merchant(), self.mode(), id)
            .await
    }

    async fn payment_screening(
        &self,
        id: PaymentId,
    ) -> Result<Checked<Option<Vec<ScreeningCheck>>>, StoreError> {
        use stablepay_domain::ports::ScreeningLog;
        let (payment, checked) = self.payment(id).await?.take();
        let checks = match payment {
            None => None,
            // Reached through the payment just read under the key's check.
            Some(p) => Some(match p.checkout_session {
                Some(session) => {
                    self.store
                        .checks_of_session(self.merchant(), self.mode(), session)
                        .await?
                }
                None => Vec::new(),
            }),
        };
        Ok(checked.map(|()| checks))
    }

    async fn payments(
        &self,
        filter: &PaymentFilter,
        page: &PageRequest,
    ) -> Result<Checked<Page<Payment>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .checked_payments(check, self.merchant(), self.mode(), filter, page)
            .await
    }

    async fn payment_link(
        &self,
        id: PaymentLinkId,
    ) -> Result<Checked<Option<PaymentLink>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .read_payment_link(check, self.merchant(), self.mode(), id)
            .await
    }

    async fn payment_links(
        &self,
        page: &PageRequest,
    ) -> Result<Checked<Page<PaymentLink>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .list_payment_links(check, self.merchant(), self.mode(), page)
            .await
    }

    async fn refund_request(
        &self,
        id: RefundRequestId,
    ) -> Result<Checked<Option<RefundRequest>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .read_refund_request(check, self.merchant(), self.mode(), id)
            .await
    }

    async fn refund_requests(
        &self,
        payment: Option<PaymentId>,
        page: &PageRequest,
    ) -> Result<Checked<Page<RefundRequest>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .list_refund_requests(check, self.merchant(), self.mode(), payment, page)
            .await
    }

    async fn audit_events(
        &self,
        page: &PageRequest,
    ) -> Result<Checked<Page<AuditEvent>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .list_audit_events(check, self.merchant(), self.mode(), page)
            .await
    }

    async fn balance_transactions(
        &self,
        filter: &BalanceTransactionFilter,
        page: &PageRequest,
    ) -> Result<Checked<Page<BalanceTransaction>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .checked_balance_transactions(check, self.merchant(), self.mode(), filter, page)
            .await
    }

    async fn balance_transaction_export(
        &self,
        filter: &BalanceTransactionFilter,
    ) -> Result<Checked<LedgerBatches>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .export_balance_transactions(check, self.merchant(), self.mode(), filter)
            .await
    }

    async fn refund(&self, id: RefundId) -> Result<Checked<Option<Refund>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .checked_refund(check, self.merchant(), self.mode(), id)
            .await
    }

    async fn refunds(
        &self,
        filter: &RefundFilter,
        page: &PageRequest,
    ) -> Result<Checked<Page<Refund>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .checked_refunds(check, self.merchant(), self.mode(), filter, page)
            .await
    }

    async fn subscription(
        &self,
        id: SubscriptionId,
    ) -> Result<Checked<Option<Subscription>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .checked_subscription(check, self.merchant(), self.mode(), id)
            .await
    }

    async fn subscriptions(
        &self,
        filter: &SubscriptionFilter,
        page: &PageRequest,
    ) -> Result<Checked<Page<Subscription>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .checked_subscriptions(check, self.merchant(), self.mode(), filter, page)
            .await
    }

    async fn payment_attempt(
        &self,
        id: PaymentAttemptId,
    ) -> Result<Checked<Option<PaymentAttempt>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .checked_payment_attempt(check, self.merchant(), self.mode(), id)
            .await
    }

    async fn payment_attempts(
        &self,
        filter: &PaymentAttemptFilter,
        page: &PageRequest,
    ) -> Result<Checked<Page<PaymentAttempt>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .checked_payment_attempts(check, self.merchant(), self.mode(), filter, page)
            .await
    }

    async fn webhook_event(
        &self,
        id: EventId,
    ) -> Result<Checked<Option<WebhookEventRecord>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .checked_webhook_event(check, self.merchant(), self.mode(), id)
            .await
    }

    async fn webhook_events(
        &self,
        filter: &WebhookEventFilter,
        page: &PageRequest,
    ) -> Result<Checked<Page<WebhookEventRecord>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .checked_webhook_events(check, self.merchant(), self.mode(), filter, page)
            .await
    }

    async fn webhook_attempts(
        &self,
        delivery: EventId,
        page: &PageRequest,
    ) -> Result<Checked<Option<Page<WebhookAttempt>>>, StoreError> {
        let check = self.check.as_ref();
        self.store
            .checked_webhook_attempts(check, self.merchant(), self.mode(), delivery, page)
            .await
    }
}
