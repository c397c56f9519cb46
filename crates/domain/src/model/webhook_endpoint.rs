//! Webhook endpoints (D12).

use super::{EventType, MerchantId, Mode, Timestamp, WebhookEndpointId};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum EndpointStatus {
    Enabled,
    Disabled,
}

impl EndpointStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            EndpointStatus::Enabled => "enabled",
            EndpointStatus::Disabled => "disabled",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "enabled" => Some(EndpointStatus::Enabled),
            "disabled" => Some(EndpointStatus::Disabled),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookEndpoint {
    pub id: WebhookEndpointId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub url: WebhookUrl,
    /// Empty means every event type.
    pub enabled_events: Vec<EventType>,
    pub status: EndpointStatus,
    pub description: Option<String>,
    pub created_at: Timestamp,
    /// Why the service disabled the endpoint (automatic disabling, D12); `None` when the
    /// merchant set the status or the endpoint is enabled.
    pub disabled_reason: Option<String>,
}

pub const MAX_URL_LEN: usize = 2000;

/// A delivery target: HTTPS, or plain HTTP to localhost for development; ≤ 2000 chars.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookUrl(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebhookUrlError {
    #[error("must be at most 2000 characters")]
    TooLong,
    #[error("must be an absolute URL")]
    Malformed,
    #[error("must use https (http is allowed only for localhost)")]
    NotHttps,
    #[error("must not contain credentials")]
    HasCredentials,
}

impl WebhookUrl {
    pub fn parse(s: &str) -> Result<Self, WebhookUrlError> {
        if s.chars().count() > MAX_URL_LEN {
            return Err(WebhookUrlError::TooLong);
        }
        let url = url::Url::parse(s).map_err(|_| WebhookUrlError::Malformed)?;
        if !crate::rules::validation::host_is_a_name_or_address(&url) {
            return Err(WebhookUrlError::Malformed);
        }
        let host = url.host_str().ok_or(WebhookUrlError::Malformed)?;
        match url.scheme() {
            "https" => {}
            "http" if matches!(host, "localhost" | "127.0.0.1" | "[::1]") => {}
            _ => return Err(WebhookUrlError::NotHttps),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(WebhookUrlError::HasCredentials);
        }
        Ok(Self(s.to_owned()))
    }

    /// Trusted input from storage (validated when it was written).
    pub fn from_trusted(s: String) -> Self {
        Self(s)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_rules() {
        assert!(WebhookUrl::parse("https://example.com/hooks").is_ok());
        assert!(WebhookUrl::parse("http://localhost:4242/hooks").is_ok());
        assert!(WebhookUrl::parse("http://127.0.0.1:4242/hooks").is_ok());
        assert_eq!(
            WebhookUrl::parse("http://example.com/hooks"),
            Err(WebhookUrlError::NotHttps)
        );
        assert_eq!(
            WebhookUrl::parse("ftp://example.com"),
            Err(WebhookUrlError::NotHttps)
        );
        assert_eq!(
            WebhookUrl::parse("example.com"),
            Err(WebhookUrlError::Malformed)
        );
        // A host no name can have (Schemathesis found it accepted against the document).
        assert_eq!(
            WebhookUrl::parse("https://a.S.XN-Z.FuvGz.xn-w.xN-k.h.h*"),
            Err(WebhookUrlError::Malformed)
        );
        assert_eq!(
            WebhookUrl::parse("https://u:p@example.com"),
            Err(WebhookUrlError::HasCredentials)
        );
        let long = format!("https://example.com/{}", "a".repeat(2000));
        assert_eq!(WebhookUrl::parse(&long), Err(WebhookUrlError::TooLong));
        let exact = format!("https://example.com/{}", "a".repeat(2000 - 20));
        assert_eq!(exact.len(), 2000);
        assert!(WebhookUrl::parse(&exact).is_ok());
    }
}
