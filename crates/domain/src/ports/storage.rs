//! Every storage port, from one store: what the public pages, the dashboard and the
//! worker reach storage through, each call on its own.

use super::{
    ApiKeyManager, ApiKeyStore, AuditLog, DashboardReader, DashboardUserStore, DepositStore,
    IdempotencyStore, MerchantSettings, Outbox, PaymentLinkRepository, PaymentReviews,
    RecoveryQueue, RefundRequestStore, RefundStore, ResourceReader, ScreeningLog,
    SessionRepository, SettlementStore, SubscriptionStore, WalletRepository,
    WebhookEndpointRepository,
};

/// Every storage port, from one store.
pub trait Storage: Send + Sync {
    fn keys(&self) -> &dyn ApiKeyStore;
    fn key_manager(&self) -> &dyn ApiKeyManager;
    fn users(&self) -> &dyn DashboardUserStore;
    fn summaries(&self) -> &dyn DashboardReader;
    fn sessions(&self) -> &dyn SessionRepository;
    fn wallets(&self) -> &dyn WalletRepository;
    fn endpoints(&self) -> &dyn WebhookEndpointRepository;
    fn reader(&self) -> &dyn ResourceReader;
    fn idempotency(&self) -> &dyn IdempotencyStore;
    fn outbox(&self) -> &dyn Outbox;
    fn recoveries(&self) -> &dyn RecoveryQueue;
    fn settlement(&self) -> &dyn SettlementStore;
    fn deposits(&self) -> &dyn DepositStore;
    fn refunds(&self) -> &dyn RefundStore;
    fn subscriptions(&self) -> &dyn SubscriptionStore;
    fn audit_log(&self) -> &dyn AuditLog;
    fn settings(&self) -> &dyn MerchantSettings;
    fn refund_requests(&self) -> &dyn RefundRequestStore;
    fn screening_log(&self) -> &dyn ScreeningLog;
    fn payment_reviews(&self) -> &dyn PaymentReviews;
    fn payment_links(&self) -> &dyn PaymentLinkRepository;
}
