//! Field rules from the spec's body tables and limits.

use std::fmt;

pub const TITLE_MAX: usize = 120;
pub const DESCRIPTION_MAX: usize = 500;
pub const CUSTOMER_REFERENCE_MAX: usize = 250;
pub const URL_MAX: usize = 2000;
pub const REASON_MAX: usize = 500;
pub const EXPIRES_MIN: u64 = 600;
pub const EXPIRES_MAX: u64 = 604_800;
pub const EXPIRES_DEFAULT: u64 = 86_400;
pub const IDEMPOTENCY_KEY_MAX: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    #[error("must not be empty")]
    Empty,
    #[error("must be at most {0} characters")]
    TooLong(usize),
    #[error("must not contain control characters")]
    ControlCharacters,
}

/// Text of `min..=max` characters (Unicode scalar values, not bytes).
pub fn bounded_text(s: &str, min: usize, max: usize) -> Result<String, TextError> {
    let len = s.chars().count();
    if len < min || (min > 0 && s.trim().is_empty()) {
        return Err(TextError::Empty);
    }
    if len > max {
        return Err(TextError::TooLong(max));
    }
    if s.chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r')
    {
        return Err(TextError::ControlCharacters);
    }
    Ok(s.to_owned())
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlError {
    TooLong,
    Invalid,
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlError::TooLong => write!(f, "must be at most {URL_MAX} characters"),
            UrlError::Invalid => f.write_str("must be an absolute http(s) URL"),
        }
    }
}

/// A redirect URL for the buyer (success_url, cancel_url): absolute http(s), ≤ 2000 chars.
pub fn redirect_url(s: &str) -> Result<String, UrlError> {
    if s.chars().count() > URL_MAX {
        return Err(UrlError::TooLong);
    }
    let url = url::Url::parse(s).map_err(|_| UrlError::Invalid)?;
    if !matches!(url.scheme(), "http" | "https") || !host_is_a_name_or_address(&url) {
        return Err(UrlError::Invalid);
    }
    Ok(s.to_owned())
}

/// Whether the URL's host is an IP address or a DNS name (letters, digits, hyphens and dots
/// once the parser has put it in ASCII): the URL parser also admits characters such as `*`
/// that no name can have (Schemathesis found `https://a.h*` accepted against the document).
pub fn host_is_a_name_or_address(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => {
            !d.is_empty()
                && d.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        }
        Some(url::Host::Ipv4(_) | url::Host::Ipv6(_)) => true,
        None => false,
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be an integer between {EXPIRES_MIN} and {EXPIRES_MAX}")]
pub struct ExpiresError;

pub fn expires_in_seconds(value: &serde_json::Value) -> Result<u64, ExpiresError> {
    value
        .as_u64()
        .filter(|s| (EXPIRES_MIN..=EXPIRES_MAX).contains(s))
        .ok_or(ExpiresError)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_url_host_is_a_name_or_an_address() {
        assert!(redirect_url("https://shop.example/thanks").is_ok());
        assert!(redirect_url("http://127.0.0.1:8080/x").is_ok());
        assert!(redirect_url("https://xn--bcher-kva.example/").is_ok());
        assert!(redirect_url("https://bücher.example/").is_ok());
        assert_eq!(
            redirect_url("https://a.S.XN-Z.FuvGz.xn-w.xN-k.h.h*"),
            Err(UrlError::Invalid)
        );
        assert_eq!(redirect_url("https://a$b.example/"), Err(UrlError::Invalid));
    }

    #[test]
    fn text_bounds_count_characters() {
        assert_eq!(bounded_text("", 1, 120), Err(TextError::Empty));
        assert_eq!(bounded_text("   ", 1, 120), Err(TextError::Empty));
        assert!(bounded_text(&"é".repeat(120), 1, 120).is_ok());
        assert_eq!(
            bounded_text(&"a".repeat(121), 1, 120),
            Err(TextError::TooLong(120))
        );
        assert!(bounded_text("", 0, 500).is_ok());
        assert_eq!(
            bounded_text("a\u{0}b", 0, 10),
            Err(TextError::ControlCharacters)
        );
    }

    #[test]
    fn redirect_urls() {
        assert!(redirect_url("https://shop.example/thanks?order=1").is_ok());
        assert!(redirect_url("http://localhost:3000/ok").is_ok());
        assert_eq!(redirect_url("javascript:alert(1)"), Err(UrlError::Invalid));
        assert_eq!(redirect_url("/relative"), Err(UrlError::Invalid));
        assert_eq!(
            redirect_url(&format!("https://a.example/{}", "x".repeat(2000))),
            Err(UrlError::TooLong)
        );
    }

    #[test]
    fn expiry_window() {
        assert_eq!(expires_in_seconds(&json!(600)), Ok(600));
        assert_eq!(expires_in_seconds(&json!(604800)), Ok(604800));
        for bad in [
            json!(599),
            json!(604801),
            json!(1000.5),
            json!("3600"),
            json!(-1),
            json!(null),
        ] {
            assert!(expires_in_seconds(&bad).is_err(), "{bad}");
        }
    }
}
