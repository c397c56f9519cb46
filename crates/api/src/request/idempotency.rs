//! `Idempotency-Key` (D14): the key's scope, the answers given without running the
//! handler, and what a reply stores for replays.

use actix_web::http::{Method, StatusCode};
use actix_web::{HttpRequest, HttpResponse};
use sha2::{Digest, Sha256};
use stablepay_domain::ports::{IdempotencyAsk, IdempotencyLook, StoredResponse};
use stablepay_domain::rules::validation::IDEMPOTENCY_KEY_MAX;

use super::{json_response, Reply};
use crate::error::{ApiError, ErrorCode};

/// Marks a response answered from the idempotency record.
const REPLAYED: &str = "idempotency-replayed";
/// A key left `processing` by a crashed request can be taken over after this long (D14).
pub(super) const STALE_SECS: i64 = 60;

/// The SHA-256 of the raw body, which a reused key must match.
pub(super) fn body_hash(body: &[u8]) -> [u8; 32] {
    Sha256::digest(body).into()
}

/// The `Idempotency-Key` a POST carries, with its body's hash; `None` without one (or on
/// another method). Errors: 400 for a key that is not 1 to 255 printable characters.
pub(super) fn ask(req: &HttpRequest, body: &[u8]) -> Result<Option<IdempotencyAsk>, ApiError> {
    let Some(value) = req.headers().get("idempotency-key") else {
        return Ok(None);
    };
    if req.method() != Method::POST {
        return Ok(None);
    }
    // Printable ASCII and space only (`to_str` would also let a tab through).
    let key = value
        .to_str()
        .ok()
        .filter(|k| k.bytes().all(|b| (0x20..0x7f).contains(&b)))
        .ok_or_else(|| ApiError::invalid_field("Idempotency-Key", "must be printable ASCII"))?
        .to_owned();
    if key.is_empty() || key.chars().count() > IDEMPOTENCY_KEY_MAX {
        return Err(ApiError::invalid_field(
            "Idempotency-Key",
            format!("must be 1 to {IDEMPOTENCY_KEY_MAX} characters"),
        ));
    }
    Ok(Some(IdempotencyAsk {
        route: format!("{} {}", req.method(), req.path()),
        key,
        request_sha256: body_hash(body),
        stale_after_secs: STALE_SECS,
    }))
}

/// The answer for a key this request may not run under (a replay, a duplicate in flight,
/// another body), or `None` when the key is ours.
pub(super) fn answer_without_running(
    looked: IdempotencyLook,
) -> Option<Result<HttpResponse, ApiError>> {
    match looked {
        IdempotencyLook::Free => None,
        IdempotencyLook::Replay(stored) => {
            let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
            let mut response = json_response(status, stored.body);
            response.headers_mut().insert(
                actix_web::http::header::HeaderName::from_static(REPLAYED),
                actix_web::http::header::HeaderValue::from_static("true"),
            );
            Some(Ok(response))
        }
        IdempotencyLook::InFlight => Some(Err(in_flight())),
        IdempotencyLook::BodyMismatch => Some(Err(ApiError::new(
            ErrorCode::Idempotency,
            "This Idempotency-Key was already used with a different request body",
        ))),
    }
}

/// `Retry-After: 1` tells a client this 409 (alone among 409s) is worth retrying as is.
pub(super) fn in_flight() -> ApiError {
    ApiError {
        retry_after_secs: Some(1),
        ..ApiError::conflict(
            "A request with this Idempotency-Key is still being processed; retry after it finishes",
        )
    }
}

/// What a successful reply stores for replays.
pub(super) fn stored(reply: &Reply) -> Option<StoredResponse> {
    (reply.status.as_u16() < 400).then(|| StoredResponse {
        status: reply.status.as_u16(),
        body: reply
            .replay_body
            .clone()
            .unwrap_or_else(|| reply.body.clone()),
    })
}
