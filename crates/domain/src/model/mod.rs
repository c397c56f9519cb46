//! Newtypes and entities.

mod address;
mod amount;
mod audit;
mod chain;
mod checkout_session;
mod dashboard;
mod event;
mod ids;
mod ledger;
mod merchant;
mod page;
mod payment_link;
mod payment_review;
mod price;
mod private_key;
mod read_models;
mod refund_request;
mod screening;
mod session_request;
mod text;
mod time;
mod wallet;
mod webhook_endpoint;

pub use address::{Address, AddressError, BlockHash, Signature, SignatureError, TxHash};
pub use amount::{
    parse_signed_micros, render_micros, render_signed_micros, Amount, AmountError, MAX_MICROS,
};
pub use audit::{AuditAction, AuditActor, AuditEvent, Changer};
pub use chain::{ChainId, ChainSelectorError, Currency, Fiat, Mode};
pub use checkout_session::{CheckoutSession, SessionMode, SessionStatus};
pub use dashboard::{DashboardSession, DashboardUser, Email, LoginRecord, NewPassword, UserStatus};
pub use event::EventType;
pub use ids::*;
pub use ledger::{BalanceSource, BalanceTransaction, BalanceTransactionFilter, BalanceType};
pub use merchant::{Actor, ApiKey, ApiKeySummary, AuthContext, FeeTier, Merchant, SessionOwner};
pub use page::{Page, PageRequest, PageRequestError};
pub use payment_link::{AmountBounds, ChosenAmountError, LinkPricing, PaymentLink};
pub use payment_review::{PaymentReview, ReviewStatus};
pub use price::{FeedPair, FeedRound, Price, Quote, QuotedPrice};
pub use private_key::{PrivateKey, PrivateKeyError};
pub use read_models::*;
#[cfg(test)]
pub(crate) use refund_request::fixture;
pub use refund_request::{
    AddressConfirmation, RefundRequest, RefundRequestStatus, REFUND_REQUEST_TTL_SECS,
};
pub use screening::{
    ScreenedPayer, ScreeningAnswer, ScreeningCheck, ScreeningPath, ScreeningSource,
    ScreeningSubject, SourceAnswer,
};
pub use session_request::{
    ChainPlanId, CustomerReference, MetadataJson, PlanIdError, RedirectUrl, SessionTerms, Title,
    ToleranceError, UnderpaymentTolerance,
};
pub use text::{FieldError, ValidationErrors};
pub use time::{parse_duration, Timestamp};
pub use wallet::{Wallet, WalletChallenge, WalletStanding, WalletStatus};
pub use webhook_endpoint::{EndpointStatus, WebhookEndpoint, WebhookUrl, WebhookUrlError};
