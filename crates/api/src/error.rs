//! `ApiError`: the one type every failure becomes, rendered as the spec's envelope.
//! This is also the one place storage and use-case errors are mapped to HTTP statuses:
//! one `From` per service error, so handlers only write `?`.

use actix_web::http::StatusCode;
use actix_web::HttpResponse;
use serde::Serialize;
use stablepay_domain::ports::StoreError;
use stablepay_domain::services::{
    AuthorizationError, CreateSessionError, HostedError, LookupError, PortalError, RecoverError,
    RefundError, RegisterWalletError, ResendError, RevokeWalletError, TestEventError,
    VerifyWalletError,
};
use stablepay_domain::{FieldError, Missing, ValidationErrors};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidRequest,
    Authentication,
    NotFound,
    MethodNotAllowed,
    Conflict,
    Idempotency,
    RateLimit,
    Unavailable,
    Api,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 9] = [
        ErrorCode::InvalidRequest,
        ErrorCode::Authentication,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::Conflict,
        ErrorCode::Idempotency,
        ErrorCode::RateLimit,
        ErrorCode::Unavailable,
        ErrorCode::Api,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest | ErrorCode::MethodNotAllowed => "invalid_request_error",
            ErrorCode::Authentication => "authentication_error",
            ErrorCode::NotFound => "not_found_error",
            ErrorCode::Conflict => "conflict_error",
            ErrorCode::Idempotency => "idempotency_error",
            ErrorCode::RateLimit => "rate_limit_error",
            ErrorCode::Unavailable | ErrorCode::Api => "api_error",
        }
    }

    pub fn status(self) -> StatusCode {
        match self {
            ErrorCode::InvalidRequest => StatusCode::BAD_REQUEST,
            ErrorCode::Authentication => StatusCode::UNAUTHORIZED,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::Conflict | ErrorCode::Idempotency => StatusCode::CONFLICT,
            ErrorCode::RateLimit => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Api => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub details: Vec<FieldError>,
    pub retry_after_secs: Option<u64>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: Vec::new(),
            retry_after_secs: None,
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }

    pub fn invalid_field(field: impl Into<String>, message: impl Into<String>) -> Self {
        let field = field.into();
        let message = message.into();
        Self {
            code: ErrorCode::InvalidRequest,
            message: format!("{field}: {message}"),
            details: vec![FieldError::new(field, message)],
            retry_after_secs: None,
        }
    }

    pub fn not_found(what: &str, id: &str) -> Self {
        Self::new(ErrorCode::NotFound, format!("No such {what}: '{id}'"))
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Conflict, message)
    }

    /// 503 with `Retry-After`: a dependency (database, chain) is briefly unavailable.
    pub fn unavailable(message: impl Into<String>, retry_after_secs: u64) -> Self {
        Self {
            retry_after_secs: Some(retry_after_secs),
            ..Self::new(ErrorCode::Unavailable, message)
        }
    }

    /// 429 with `Retry-After`.
    pub fn rate_limited(message: impl Into<String>, retry_after_secs: u64) -> Self {
        Self {
            retry_after_secs: Some(retry_after_secs),
            ..Self::new(ErrorCode::RateLimit, message)
        }
    }

    pub fn internal() -> Self {
        Self::new(
            ErrorCode::Api,
            "An internal error occurred. Retry later; the request id identifies it to support.",
        )
    }

    pub fn status(&self) -> StatusCode {
        self.code.status()
    }

    pub fn body(&self) -> String {
        #[derive(Serialize)]
        struct Envelope<'a> {
            error: Inner<'a>,
        }
        #[derive(Serialize)]
        struct Inner<'a> {
            code: &'a str,
            #[serde(rename = "type")]
            kind: &'a str,
            message: &'a str,
            #[serde(skip_serializing_if = "<[FieldError]>::is_empty")]
            details: &'a [FieldError],
        }
        let code = self.code.as_str();
        serde_json::to_string(&Envelope {
            error: Inner {
                code,
                kind: code,
                message: &self.message,
                details: &self.details,
            },
        })
        .unwrap_or_else(|_| {
            r#"{"error":{"code":"api_error","type":"api_error","message":"internal error"}}"#.into()
        })
    }

    pub fn to_response(&self) -> HttpResponse {
        let mut builder = HttpResponse::build(self.status());
        builder.content_type("application/json");
        if let Some(secs) = self.retry_after_secs {
            builder.insert_header(("Retry-After", secs.to_string()));
        }
        builder.body(self.body())
    }
}

impl From<ValidationErrors> for ApiError {
    fn from(v: ValidationErrors) -> Self {
        Self {
            code: ErrorCode::InvalidRequest,
            message: v.to_string(),
            details: v.0,
            retry_after_secs: None,
        }
    }
}

/// Storage failures: conflicts are the client's business, the rest never leak detail.
impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => ApiError::new(ErrorCode::NotFound, "No such resource"),
            StoreError::Contended => ApiError::unavailable(
                "The resource kept changing under concurrent requests; retry shortly",
                1,
            ),
            StoreError::Unavailable(detail) => {
                tracing::error!(%detail, "storage unavailable");
                ApiError::unavailable("The service is temporarily unavailable; retry shortly", 1)
            }
            StoreError::Internal(detail) => {
                tracing::error!(%detail, "storage failure");
                ApiError::internal()
            }
        }
    }
}

/// A lookup that found nothing: 404 naming the resource and the id asked for.
impl From<Missing> for ApiError {
    fn from(m: Missing) -> Self {
        ApiError::not_found(m.noun, &m.id)
    }
}

impl From<LookupError> for ApiError {
    fn from(e: LookupError) -> Self {
        match e {
            LookupError::NotFound(m) => m.into(),
            LookupError::Store(e) => e.into(),
        }
    }
}

/// A chain failure's detail (which may hold an RPC URL with a provider key) goes to the
/// log only; the client gets `message` as a 503 with a short `Retry-After`.
fn network_unavailable(detail: &str, message: &str) -> ApiError {
    tracing::warn!(%detail, "chain unavailable: {message}");
    ApiError::unavailable(message, 2)
}

impl From<CreateSessionError> for ApiError {
    fn from(e: CreateSessionError) -> Self {
        match e {
            CreateSessionError::Invalid(v) => v.into(),
            CreateSessionError::Store(e) => e.into(),
            CreateSessionError::ChainUnavailable(detail) => network_unavailable(
                &detail,
                "The network could not be reached to read the plan or the price feeds; retry in a few seconds",
            ),
            // A feed stale or answering nothing usable: never a stale rate (D34). Feeds
            // update at least every heartbeat; a minute is a fair first retry.
            CreateSessionError::PriceUnavailable(why) => ApiError::unavailable(
                format!("The price cannot be quoted now: {why}; retry later"),
                60,
            ),
        }
    }
}

impl From<stablepay_domain::services::PaymentLinkError> for ApiError {
    fn from(e: stablepay_domain::services::PaymentLinkError) -> Self {
        use stablepay_domain::services::PaymentLinkError;
        match e {
            PaymentLinkError::Invalid(v) => v.into(),
            PaymentLinkError::NotFound(m) => m.into(),
            PaymentLinkError::Store(e) => e.into(),
        }
    }
}

impl From<stablepay_domain::services::RequoteError> for ApiError {
    fn from(e: stablepay_domain::services::RequoteError) -> Self {
        use stablepay_domain::services::RequoteError;
        match e {
            RequoteError::NotFound => {
                ApiError::new(ErrorCode::NotFound, "No such checkout session")
            }
            RequoteError::NotRequotable(why) => ApiError::invalid(why.to_owned()),
            RequoteError::Session(e) => e.into(),
        }
    }
}

impl From<RevokeWalletError> for ApiError {
    fn from(e: RevokeWalletError) -> Self {
        match e {
            RevokeWalletError::NotFound(m) => m.into(),
            RevokeWalletError::NeedsLiveKey => ApiError::invalid(e.to_string()),
            RevokeWalletError::Store(e) => e.into(),
        }
    }
}

impl From<RegisterWalletError> for ApiError {
    fn from(e: RegisterWalletError) -> Self {
        match e {
            RegisterWalletError::NeedsLiveKey => ApiError::invalid(e.to_string()),
            RegisterWalletError::Store(e) => e.into(),
        }
    }
}

impl From<VerifyWalletError> for ApiError {
    fn from(e: VerifyWalletError) -> Self {
        match e {
            VerifyWalletError::NotFound(m) => m.into(),
            VerifyWalletError::NeedsLiveKey => ApiError::invalid(e.to_string()),
            VerifyWalletError::ChallengeExpired | VerifyWalletError::SignatureMismatch(_) => {
                ApiError::invalid_field("signature", e.to_string())
            }
            VerifyWalletError::ChallengeUsed => ApiError::conflict(e.to_string()),
            VerifyWalletError::ChainUnavailable => ApiError::unavailable(e.to_string(), 1),
            VerifyWalletError::Store(e) => e.into(),
        }
    }
}

impl From<RefundError> for ApiError {
    fn from(e: RefundError) -> Self {
        match e {
            RefundError::PaymentNotFound(m) => m.into(),
            RefundError::Rejected(v) => v.into(),
            RefundError::ChainUnavailable => ApiError::unavailable(e.to_string(), 2),
            RefundError::ChainNotConfigured(_) => ApiError::unavailable(e.to_string(), 30),
            RefundError::Store(e) => e.into(),
        }
    }
}

impl From<stablepay_domain::services::RefundRequestError> for ApiError {
    fn from(e: stablepay_domain::services::RefundRequestError) -> Self {
        use stablepay_domain::services::RefundRequestError as E;
        match e {
            E::NotFound(m) => m.into(),
            E::Rejected(v) => v.into(),
            E::Store(e) => e.into(),
        }
    }
}

impl From<stablepay_domain::services::ReviewError> for ApiError {
    fn from(e: stablepay_domain::services::ReviewError) -> Self {
        use stablepay_domain::services::ReviewError as E;
        match e {
            E::NotFound(m) => m.into(),
            E::NotPending(message) => ApiError::conflict(message),
            E::Store(e) => e.into(),
        }
    }
}

impl From<stablepay_domain::services::ConfirmAddressError> for ApiError {
    fn from(e: stablepay_domain::services::ConfirmAddressError) -> Self {
        use stablepay_domain::services::ConfirmAddressError as E;
        match e {
            E::NotFound(m) => m.into(),
            E::Rejected(v) => v.into(),
            E::Closed(_) => ApiError::conflict(e.to_string()),
            E::ChainUnavailable => ApiError::unavailable(e.to_string(), 2),
            E::Store(e) => e.into(),
        }
    }
}

impl From<ResendError> for ApiError {
    fn from(e: ResendError) -> Self {
        match e {
            ResendError::NotFound(m) => m.into(),
            ResendError::EndpointDisabled => ApiError::invalid(e.to_string()),
            ResendError::StillPending => ApiError::conflict(e.to_string()),
            ResendError::Store(e) => e.into(),
        }
    }
}

impl From<TestEventError> for ApiError {
    fn from(e: TestEventError) -> Self {
        match e {
            TestEventError::NotFound(m) => m.into(),
            TestEventError::TypeNotEnabled(_) => ApiError::invalid_field("type", e.to_string()),
            TestEventError::EndpointDisabled => ApiError::invalid(e.to_string()),
            TestEventError::Store(e) => e.into(),
        }
    }
}

impl From<RecoverError> for ApiError {
    fn from(e: RecoverError) -> Self {
        match e {
            RecoverError::NotFound(m) => m.into(),
            RecoverError::EndpointDisabled => ApiError::invalid(e.to_string()),
            RecoverError::Store(e) => e.into(),
        }
    }
}

impl From<PortalError> for ApiError {
    fn from(e: PortalError) -> Self {
        match e {
            PortalError::NotFound(m) => m.into(),
            PortalError::NotSubscriber(_) => ApiError::invalid_field("signature", e.to_string()),
            PortalError::ChainUnavailable(detail) => {
                network_unavailable(
                    &detail,
                    "The network could not be reached to check the wallet's signature; retry in a few seconds",
                )
            }
            PortalError::Contended => ApiError::unavailable(e.to_string(), 1),
            PortalError::Store(e) => e.into(),
        }
    }
}

/// The hosted checkout's failures.
impl From<AuthorizationError> for ApiError {
    fn from(e: AuthorizationError) -> Self {
        use AuthorizationError as E;
        match e {
            E::Hosted(e) => e.into(),
            E::Unsupported(_) => ApiError::invalid_field("currency", e.to_string()),
            E::NotPaymentMode => ApiError::invalid(e.to_string()),
            E::SignatureMismatch(_) => ApiError::invalid_field("signature", e.to_string()),
            // The field the revert is about, as far as its reason tells.
            E::Rejected(ref why) => {
                let field = if why.contains("expired") || why.contains("Expired") {
                    "valid_before"
                } else if why.contains("balance") || why.contains("Balance") {
                    "payer"
                } else {
                    "signature"
                };
                ApiError::invalid_field(field, e.to_string())
            }
            E::ValidBeforePast | E::ValidBeforeTooLate(_) => {
                ApiError::invalid_field("valid_before", e.to_string())
            }
            E::InsufficientFunds { .. } | E::PayerRefused(_) => {
                ApiError::invalid_field("payer", e.to_string())
            }
            E::RelayerUnavailable => ApiError::unavailable(e.to_string(), 30),
            // The budget is judged over the last hour: ask again in a few minutes.
            E::RelayerPaused(_) => ApiError::unavailable(e.to_string(), 300),
            E::ChainUnavailable(detail) => network_unavailable(
                &detail,
                "The network could not be reached to check the payment; retry in a few seconds",
            ),
            E::AlreadyRelayed(_) => ApiError::conflict(e.to_string()),
            // D33: nothing was sent; the field is the payer, whatever the source said.
            E::PayerBlocked(_) => ApiError::invalid_field("payer", e.to_string()),
        }
    }
}

impl From<HostedError> for ApiError {
    fn from(e: HostedError) -> Self {
        match e {
            HostedError::NotFound => ApiError::new(ErrorCode::NotFound, "No such checkout session"),
            HostedError::NotOpen(status) => ApiError::new(
                ErrorCode::NotFound,
                format!("No open checkout session: this one is {status}"),
            ),
            HostedError::RecipientRevoked(_) | HostedError::QuoteExpired => {
                ApiError::invalid(e.to_string())
            }
            HostedError::DoesNotPay(why) => {
                ApiError::invalid_field("tx_hash", format!("does not pay this session: {why}"))
            }
            HostedError::NotConfigured(what) => ApiError::unavailable(
                format!("Payments on this network are not available: {what}"),
                30,
            ),
            HostedError::ChainUnavailable(detail) => network_unavailable(
                &detail,
                "The payment network is unavailable right now; retry in a few seconds",
            ),
            HostedError::Store(e) => e.into(),
        }
    }
}

impl From<stablepay_domain::services::X402Error> for ApiError {
    fn from(e: stablepay_domain::services::X402Error) -> Self {
        match e {
            stablepay_domain::services::X402Error::Hosted(e) => e.into(),
            // The facilitator answers refusals as verdicts; one that gets here is a payment
            // the request itself got wrong.
            stablepay_domain::services::X402Error::Refused(r) => ApiError::invalid(r.reason),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl actix_web::ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status()
    }

    fn error_response(&self) -> HttpResponse {
        self.to_response()
    }
}
