//! The request body (size cap, content type) and the `{id}` path segment.

use actix_web::http::Method;
use actix_web::web::{Bytes, BytesMut, Payload};
use actix_web::HttpRequest;
use futures_util::StreamExt;

use crate::error::ApiError;
use crate::state::AppState;

pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The request's `{id}` path segment as a typed id; anything unparsable is the same 404
/// as an id that names nothing.
pub fn path_id<T: stablepay_domain::TypedId>(req: &HttpRequest) -> Result<T, ApiError> {
    let raw = req.match_info().get("id").unwrap_or_default();
    T::parse_str(raw).map_err(|_| ApiError::not_found(T::NOUN, raw))
}

/// The per-client limit of the public pages (D15), then the `{id}` of a public route
/// (no API key: the id is the capability; unparsable is a 404).
pub fn admit_public<T: stablepay_domain::TypedId>(
    state: &AppState,
    req: &HttpRequest,
) -> Result<T, ApiError> {
    if let Err(wait) = state.public_rate_limiter.check(req) {
        return Err(ApiError::rate_limited(
            format!("Too many requests; retry in {wait} s"),
            wait,
        ));
    }
    path_id(req)
}

/// The body, at most `MAX_BODY_BYTES`; a non-empty one must be declared JSON.
pub(super) async fn read_body(req: &HttpRequest, mut payload: Payload) -> Result<Bytes, ApiError> {
    let too_large =
        || ApiError::invalid_field("body", format!("must be at most {MAX_BODY_BYTES} bytes"));
    let declared = req
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
        return Err(too_large());
    }
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| ApiError::invalid_field("body", "could not be read"))?;
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    if !body.iter().all(u8::is_ascii_whitespace) && req.method() != Method::GET {
        let content_type = req
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let mime = content_type.split(';').next().unwrap_or("").trim();
        if !mime.eq_ignore_ascii_case("application/json") {
            return Err(ApiError::invalid_field(
                "Content-Type",
                "must be application/json",
            ));
        }
    }
    Ok(body.freeze())
}
