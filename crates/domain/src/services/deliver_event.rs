//! One delivery attempt: sign, POST, and decide what the attempt means for the record.

use crate::model::{DeliveryStatus, WebhookAttempt, WebhookAttemptId};
use crate::ports::{ClaimedDelivery, Clock, DeliveryOutcome, WebhookTransport};
use crate::rules::delivery::{is_success, DeliveryPolicy};
use crate::rules::webhook_signing::signature_header;

pub const USER_AGENT: &str = "Svc-Webhooks/1.0";
const ERROR_MAX_CHARS: usize = 500;

pub async fn deliver_event(
    delivery: &ClaimedDelivery,
    transport: &dyn WebhookTransport,
    clock: &dyn Clock,
    policy: &DeliveryPolicy,
) -> DeliveryOutcome {
    let body = delivery.payload.as_bytes();
    let started_at = clock.now();
    let sent = delivery.secrets.is_ok();
    let result = match &delivery.secrets {
        Ok(secrets) => {
            let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
            // t is the time of each attempt (D13), so a retried delivery is never stale.
            let header = signature_header(&secrets, started_at.unix_seconds(), body);
            let headers = vec![
                ("Content-Type".to_owned(), "application/json".to_owned()),
                ("User-Agent".to_owned(), USER_AGENT.to_owned()),
                ("Svc-Signature".to_owned(), header),
            ];
            transport
                .post(&delivery.url, &headers, body, policy.timeout_secs)
                .await
                .map_err(|e| e.to_string())
        }
        // Unsigned, nothing may be sent: the attempt fails on its own schedule, so a
        // worker started with the wrong key neither blocks the queue nor loses the event.
        Err(unreadable) => Err(unreadable.to_string()),
    };
    let attempted_at = clock.now();
    let attempts = delivery.attempts + 1;
    let attempt = WebhookAttempt {
        id: WebhookAttemptId::generate_at(attempted_at),
        delivery: delivery.id,
        attempted_at: started_at,
        duration_ms: u32::try_from(
            (attempted_at.as_datetime() - started_at.as_datetime())
                .num_milliseconds()
                .max(0),
        )
        .unwrap_or(u32::MAX),
        response_status: result.as_ref().ok().map(|r| r.status),
        error: result.as_ref().err().map(|e| clip(e)),
        response_body: result
            .as_ref()
            .ok()
            .filter(|r| !r.body_prefix.is_empty())
            .map(|r| r.body_prefix.replace('\0', "")),
    };
    let (ok, response_status, error) = match result {
        Ok(r) if is_success(r.status) => (true, Some(r.status), None),
        Ok(r) => {
            let mut msg = format!("HTTP {}", r.status);
            if !r.body_prefix.is_empty() {
                msg.push_str(": ");
                msg.push_str(&r.body_prefix);
            }
            (false, Some(r.status), Some(msg))
        }
        Err(e) => (false, None, Some(e)),
    };
    let last_error = error.as_deref().map(clip);
    let next_attempt_at = if ok {
        None
    } else {
        policy.next_attempt_at(attempts, attempted_at)
    };
    let status = match (ok, next_attempt_at) {
        (true, _) => DeliveryStatus::Succeeded,
        (false, Some(_)) => DeliveryStatus::Pending,
        (false, None) => DeliveryStatus::Failed,
    };
    DeliveryOutcome {
        id: delivery.id,
        endpoint: delivery.endpoint,
        status,
        attempts,
        attempted_at,
        next_attempt_at,
        response_status,
        last_error,
        sent,
        attempt,
    }
}

/// Error text for the record: bounded, and without NUL, which PostgreSQL text refuses (a
/// receiver answering with one must not make its outcome unrecordable; the response body
/// drops NUL for the same reason).
fn clip(text: &str) -> String {
    text.chars()
        .filter(|c| *c != '\0')
        .take(ERROR_MAX_CHARS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EventId, Timestamp};
    use crate::ports::{MockClock, MockWebhookTransport, TransportError, TransportResponse};
    use chrono::{TimeZone, Utc};
    use futures_executor::block_on;

    fn claimed(attempts: u32) -> ClaimedDelivery {
        ClaimedDelivery {
            id: EventId::generate(),
            endpoint: crate::model::WebhookEndpointId::generate(),
            url: "https://m.example/h".into(),
            secrets: Ok(vec!["whsec_a".into()]),
            payload: r#"{"id":"evt_1"}"#.into(),
            attempts,
        }
    }

    fn clock() -> MockClock {
        let mut c = MockClock::new();
        c.expect_now()
            .return_const(Timestamp::new(Utc.timestamp_opt(1_000, 0).unwrap()));
        c
    }

    #[test]
    fn signs_exact_bytes_and_succeeds_on_2xx() {
        let mut t = MockWebhookTransport::new();
        t.expect_post()
            .withf(|url, headers, body, timeout| {
                let sig = headers
                    .iter()
                    .find(|(k, _)| k == "Svc-Signature")
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default();
                url == "https://m.example/h"
                    && body == br#"{"id":"evt_1"}"#
                    && *timeout == 10
                    && headers.contains(&("User-Agent".into(), "Svc-Webhooks/1.0".into()))
                    && headers.contains(&("Content-Type".into(), "application/json".into()))
                    && sig == signature_header(&["whsec_a"], 1_000, body)
            })
            .returning(|_, _, _, _| {
                Ok(TransportResponse {
                    status: 204,
                    body_prefix: String::new(),
                })
            });
        let out = block_on(deliver_event(
            &claimed(0),
            &t,
            &clock(),
            &DeliveryPolicy::default(),
        ));
        assert_eq!(
            (
                out.status,
                out.attempts,
                out.response_status,
                out.next_attempt_at
            ),
            (DeliveryStatus::Succeeded, 1, Some(204), None)
        );
    }

    #[test]
    fn failures_are_retried_then_fail_after_the_fifth() {
        let mut t = MockWebhookTransport::new();
        t.expect_post().returning(|_, _, _, _| {
            Ok(TransportResponse {
                status: 500,
                body_prefix: "boom".into(),
            })
        });
        let out = block_on(deliver_event(
            &claimed(1),
            &t,
            &clock(),
            &DeliveryPolicy::default(),
        ));
        assert_eq!(out.status, DeliveryStatus::Pending);
        assert_eq!(out.next_attempt_at.map(|t| t.unix_seconds()), Some(1_060));
        assert_eq!(out.last_error.as_deref(), Some("HTTP 500: boom"));
        assert_eq!(
            (
                out.attempt.delivery,
                out.attempt.response_status,
                out.attempt.error.as_deref(),
                out.attempt.response_body.as_deref()
            ),
            (out.id, Some(500), None, Some("boom"))
        );
        let out = block_on(deliver_event(
            &claimed(4),
            &t,
            &clock(),
            &DeliveryPolicy::default(),
        ));
        assert_eq!(
            (out.status, out.attempts, out.next_attempt_at),
            (DeliveryStatus::Failed, 5, None)
        );
    }

    #[test]
    fn transport_errors_are_recorded() {
        let mut t = MockWebhookTransport::new();
        t.expect_post()
            .returning(|_, _, _, _| Err(TransportError::Timeout(10)));
        let out = block_on(deliver_event(
            &claimed(0),
            &t,
            &clock(),
            &DeliveryPolicy::default(),
        ));
        assert_eq!(
            (out.status, out.response_status),
            (DeliveryStatus::Pending, None)
        );
        assert_eq!(out.last_error.as_deref(), Some("timed out after 10 s"));
    }

    #[test]
    fn an_unreadable_secret_fails_the_attempt_unsent_and_keeps_the_schedule() {
        let mut t = MockWebhookTransport::new();
        t.expect_post().never();
        let delivery = ClaimedDelivery {
            secrets: Err(crate::ports::UnreadableSecret),
            ..claimed(1)
        };
        let out = block_on(deliver_event(
            &delivery,
            &t,
            &clock(),
            &DeliveryPolicy::default(),
        ));
        assert_eq!(
            (out.status, out.attempts, out.response_status),
            (DeliveryStatus::Pending, 2, None)
        );
        assert_eq!(out.next_attempt_at.map(|t| t.unix_seconds()), Some(1_060));
        assert!(out.last_error.as_deref().is_some_and(
            |e| e.contains("could not be decrypted") && e.contains("nothing was sent")
        ));
        assert_eq!(out.attempt.error, out.last_error);
        assert!(
            !out.sent,
            "an unsent attempt must not count against the endpoint"
        );
        assert_eq!(
            (
                out.attempt.response_status,
                out.attempt.response_body.as_ref()
            ),
            (None, None)
        );
    }
}
