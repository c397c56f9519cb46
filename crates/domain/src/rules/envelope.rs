//! The event envelope: `{id, object, type, livemode, created_at, data: {object}}`,
//! rendered once to the exact bytes that every attempt and resend delivers.

use serde::Serialize;
use serde_json::value::RawValue;

use crate::model::{EventId, EventType, Timestamp};

#[derive(Serialize)]
struct Envelope<'a> {
    id: EventId,
    object: &'static str,
    #[serde(rename = "type")]
    event_type: EventType,
    livemode: bool,
    created_at: Timestamp,
    data: Data<'a>,
}

#[derive(Serialize)]
struct Data<'a> {
    object: &'a RawValue,
}

/// Renders the envelope around an already-serialised resource (`object_json`).
pub fn render(
    id: EventId,
    event_type: EventType,
    livemode: bool,
    created_at: Timestamp,
    object_json: &str,
) -> Result<String, String> {
    let object: Box<RawValue> = RawValue::from_string(object_json.to_owned())
        .map_err(|e| format!("event object is not JSON: {e}"))?;
    serde_json::to_string(&Envelope {
        id,
        object: "event",
        event_type,
        livemode,
        created_at,
        data: Data { object: &object },
    })
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    #[test]
    fn wraps_the_object_verbatim() {
        let id = EventId::generate();
        let at = Timestamp::new(Utc.timestamp_opt(0, 0).unwrap());
        let s = render(
            id,
            EventType::PaymentSucceeded,
            false,
            at,
            r#"{"b":1,"a":2.50}"#,
        )
        .unwrap();
        assert_eq!(
            s,
            format!(
                r#"{{"id":"{id}","object":"event","type":"payment.succeeded","livemode":false,"created_at":"1970-01-01T00:00:00.000Z","data":{{"object":{{"b":1,"a":2.50}}}}}}"#
            )
        );
        assert!(render(id, EventType::PaymentSucceeded, false, at, "{").is_err());
    }
}
