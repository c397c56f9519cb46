//! Turning raw request bytes and query strings into typed values, with errors that name
//! the field. Bodies are read by the route wrapper (so the raw bytes can be hashed for
//! idempotency), then parsed here.

use serde::de::DeserializeOwned;

use crate::error::ApiError;
use stablepay_domain::{PageRequest, Timestamp, TypedId};

/// Parses a JSON object body into `T` (which denies unknown fields).
pub fn json_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let bytes = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        bytes
    };
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| ApiError::invalid_field("body", format!("is not valid JSON ({e})")))?;
    if !value.is_object() {
        return Err(ApiError::invalid_field("body", "must be a JSON object"));
    }
    // Deserialize from the bytes (not the Value) so raw fields such as metadata keep
    // their exact text.
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let unknown = inner
            .strip_prefix("unknown field `")
            .and_then(|r| r.split('`').next());
        let field = match (path.as_str(), unknown) {
            (".", Some(name)) => name.to_owned(),
            (".", None) => "body".to_owned(),
            _ => path,
        };
        let message = if inner.starts_with("unknown field") {
            "is not a recognised parameter".to_owned()
        } else {
            inner.split(" at line ").next().unwrap_or(&inner).to_owned()
        };
        ApiError::invalid_field(field, message)
    })
}

/// Query parameters: each may appear once; anything not taken is reported as unknown.
pub struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    pub fn parse(raw: &str) -> Result<Self, ApiError> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (k, v) in url::form_urlencoded::parse(raw.as_bytes()) {
            if pairs.iter().any(|(seen, _)| *seen == k) {
                return Err(ApiError::invalid_field(
                    k.into_owned(),
                    "may be given only once",
                ));
            }
            pairs.push((k.into_owned(), v.into_owned()));
        }
        Ok(Self { pairs })
    }

    pub fn take(&mut self, name: &str) -> Option<String> {
        let i = self.pairs.iter().position(|(k, _)| k == name)?;
        Some(self.pairs.remove(i).1)
    }

    /// Takes and parses an optional parameter.
    pub fn take_parsed<T>(
        &mut self,
        name: &str,
        parse: impl FnOnce(&str) -> Option<T>,
        expected: &str,
    ) -> Result<Option<T>, ApiError> {
        match self.take(name) {
            None => Ok(None),
            Some(v) => parse(&v)
                .map(Some)
                .ok_or_else(|| ApiError::invalid_field(name, format!("must be {expected}"))),
        }
    }

    /// Takes and parses an optional parameter whose parser explains a refusal (the same
    /// message a body field checked by that parser gets).
    pub fn take_checked<T, E: std::fmt::Display>(
        &mut self,
        name: &str,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Result<Option<T>, ApiError> {
        self.take(name)
            .map(|v| parse(&v).map_err(|e| ApiError::invalid_field(name, e.to_string())))
            .transpose()
    }

    /// `limit` and `starting_after` (an id of the listed resource's kind).
    pub fn page<I: TypedId>(&mut self) -> Result<PageRequest, ApiError> {
        let limit = self.take("limit");
        let after = match self.take("starting_after") {
            None => None,
            Some(s) => Some(I::parse_str(&s).map(|id| id.as_uuid()).map_err(|_| {
                ApiError::invalid_field(
                    "starting_after",
                    format!("must be the id of a {} from a previous page", I::NOUN),
                )
            })?),
        };
        PageRequest::new(limit.as_deref(), after)
            .map_err(|e| ApiError::invalid_field("limit", e.to_string()))
    }

    /// An optional filter that must be an id of kind `I` (e.g. `?payment=pay_…`).
    pub fn id_filter<I: TypedId>(&mut self, name: &str) -> Result<Option<I>, ApiError> {
        let expected = format!("a {}_ id", I::PREFIX);
        self.take_parsed(name, |s| I::parse_str(s).ok(), &expected)
    }

    /// An optional time bound: an RFC 3339 timestamp, as every time the API writes.
    pub fn time_filter(&mut self, name: &str) -> Result<Option<Timestamp>, ApiError> {
        self.take_parsed(
            name,
            Timestamp::parse,
            "an RFC 3339 timestamp such as 2026-11-28T00:00:00Z",
        )
    }

    /// Fails on any parameter the endpoint does not know.
    pub fn finish(self) -> Result<(), ApiError> {
        match self.pairs.first() {
            None => Ok(()),
            Some((k, _)) => Err(ApiError::invalid_field(
                k.clone(),
                "is not a recognised parameter",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        title: Option<String>,
    }

    #[test]
    fn body_errors_name_the_field() {
        let e = json_body::<Body>(br#"{"title": 5}"#).unwrap_err();
        assert_eq!(e.details[0].field, "title");
        let e = json_body::<Body>(br#"{"nope": 1}"#).unwrap_err();
        assert_eq!(e.details[0].field, "nope");
        let e = json_body::<Body>(b"{").unwrap_err();
        assert_eq!(e.details[0].field, "body");
        let e = json_body::<Body>(b"[1]").unwrap_err();
        assert_eq!(e.details[0].field, "body");
        assert!(json_body::<Body>(b"").is_ok());
    }

    #[test]
    fn query_rules() {
        let mut q = Query::parse("limit=5&status=open").unwrap();
        assert_eq!(q.take("status").as_deref(), Some("open"));
        let page = q.page::<stablepay_domain::PaymentId>().unwrap();
        assert_eq!(page.limit(), 5);
        q.finish().unwrap();
        assert!(Query::parse("limit=1&limit=2").is_err());
        let q = Query::parse("bogus=1").unwrap();
        assert_eq!(q.finish().unwrap_err().details[0].field, "bogus");
        let mut q = Query::parse("limit=0").unwrap();
        assert!(q.page::<stablepay_domain::PaymentId>().is_err());
    }
}
