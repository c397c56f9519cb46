//! `ApiError`: the one type every failure becomes, rendered as the spec's envelope.
//! This is also the one place storage errors are mapped to HTTP statuses.

use actix_web::http::StatusCode;
use actix_web::HttpResponse;
use serde::Serialize;
use stablepay_domain::ports::StoreError;
use stablepay_domain::services::HostedError;
use stablepay_domain::{FieldError, ValidationErrors};

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
            StoreError::Conflict(_) => ApiError::conflict(
                "The request conflicts with the current state of the resource; retry it",
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

/// The hosted checkout's failures. A chain failure's detail (which may hold an RPC URL
/// with a provider key) goes to the log only.
impl From<HostedError> for ApiError {
    fn from(e: HostedError) -> Self {
        match e {
            HostedError::NotFound => ApiError::new(ErrorCode::NotFound, "No such checkout session"),
            HostedError::NotOpen(status) => ApiError::new(
                ErrorCode::NotFound,
                format!("No open checkout session: this one is {status}"),
            ),
            HostedError::RecipientRevoked => ApiError::invalid(e.to_string()),
            HostedError::DoesNotPay(why) => {
                ApiError::invalid_field("tx_hash", format!("does not pay this session: {why}"))
            }
            HostedError::NotConfigured(what) => ApiError::unavailable(
                format!("Payments on this network are not available: {what}"),
                30,
            ),
            HostedError::ChainUnavailable(detail) => {
                tracing::warn!(%detail, "chain unavailable for the hosted checkout");
                ApiError::unavailable(
                    "The payment network is unavailable right now; retry in a few seconds",
                    2,
                )
            }
            HostedError::Store(e) => e.into(),
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
