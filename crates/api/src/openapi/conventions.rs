//! What the wrapper does for every route, written into the document once: bearer auth,
//! the error envelope and shared error responses, `Idempotency-Key`, required nullable
//! fields, pinned `object` values, and the links stateful clients follow.

use serde_json::{json, Map, Value};

use crate::error::ErrorCode;
use stablepay_domain::representation::{List, PaymentResource, Resource};

/// Follow-up operations a client (or Schemathesis) can chain: `(from operation, status,
/// to operation, parameter, runtime expression)`.
const LINKS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "create_checkout_session",
        "201",
        "retrieve_checkout_session",
        "id",
        "$response.body#/id",
    ),
    (
        "create_checkout_session",
        "201",
        "list_payments",
        "checkout_session",
        "$response.body#/id",
    ),
    (
        "list_checkout_sessions",
        "200",
        "retrieve_checkout_session",
        "id",
        "$response.body#/data/0/id",
    ),
    (
        "list_payments",
        "200",
        "retrieve_payment",
        "id",
        "$response.body#/data/0/id",
    ),
    (
        "list_payments",
        "200",
        "list_refunds",
        "payment",
        "$response.body#/data/0/id",
    ),
    (
        "create_refund",
        "201",
        "retrieve_refund",
        "id",
        "$response.body#/id",
    ),
    (
        "list_refunds",
        "200",
        "retrieve_refund",
        "id",
        "$response.body#/data/0/id",
    ),
    (
        "list_subscriptions",
        "200",
        "retrieve_subscription",
        "id",
        "$response.body#/data/0/id",
    ),
    (
        "list_subscriptions",
        "200",
        "list_payment_attempts",
        "subscription",
        "$response.body#/data/0/id",
    ),
    (
        "list_payment_attempts",
        "200",
        "retrieve_payment_attempt",
        "id",
        "$response.body#/data/0/id",
    ),
    (
        "register_wallet",
        "201",
        "retrieve_wallet",
        "id",
        "$response.body#/id",
    ),
    (
        "register_wallet",
        "201",
        "verify_wallet",
        "id",
        "$response.body#/id",
    ),
    (
        "register_wallet",
        "201",
        "revoke_wallet",
        "id",
        "$response.body#/id",
    ),
    (
        "list_wallets",
        "200",
        "retrieve_wallet",
        "id",
        "$response.body#/data/0/id",
    ),
    (
        "create_webhook_endpoint",
        "201",
        "retrieve_webhook_endpoint",
        "id",
        "$response.body#/id",
    ),
    (
        "create_webhook_endpoint",
        "201",
        "update_webhook_endpoint",
        "id",
        "$response.body#/id",
    ),
    (
        "create_webhook_endpoint",
        "201",
        "send_test_webhook_event",
        "id",
        "$response.body#/id",
    ),
    (
        "create_webhook_endpoint",
        "201",
        "rotate_webhook_endpoint_secret",
        "id",
        "$response.body#/id",
    ),
    (
        "create_webhook_endpoint",
        "201",
        "recover_webhook_endpoint",
        "id",
        "$response.body#/id",
    ),
    (
        "create_webhook_endpoint",
        "201",
        "delete_webhook_endpoint",
        "id",
        "$response.body#/id",
    ),
    (
        "create_webhook_endpoint",
        "201",
        "list_webhook_events",
        "endpoint",
        "$response.body#/id",
    ),
    (
        "list_webhook_endpoints",
        "200",
        "retrieve_webhook_endpoint",
        "id",
        "$response.body#/data/0/id",
    ),
    (
        "send_test_webhook_event",
        "201",
        "retrieve_webhook_event",
        "id",
        "$response.body#/id",
    ),
    (
        "send_test_webhook_event",
        "201",
        "list_webhook_event_attempts",
        "id",
        "$response.body#/id",
    ),
    (
        "send_test_webhook_event",
        "201",
        "resend_webhook_event",
        "id",
        "$response.body#/id",
    ),
    (
        "list_webhook_events",
        "200",
        "retrieve_webhook_event",
        "id",
        "$response.body#/data/0/id",
    ),
    (
        "resend_webhook_event",
        "201",
        "retrieve_webhook_event",
        "id",
        "$response.body#/id",
    ),
];

/// Schemas only ever read from requests (parts of a `…Request`): what is optional in them
/// may be left out.
const INPUT_PARTS: &[&str] = &[
    "X402PaymentPayload",
    "X402PaymentRequirements",
    "X402ExactPayload",
    "X402Authorization",
];

/// Adds what every route shares (see the module docs) and pins each `object`.
pub(super) fn apply(doc: &mut Value, pinned: &[(String, &'static str)]) {
    let Some(root) = doc.as_object_mut() else {
        return;
    };
    let components = root
        .entry("components")
        .or_insert_with(|| json!({}))
        .as_object_mut();
    if let Some(components) = components {
        add_shared_components(components);
        if let Some(schemas) = components.get_mut("schemas") {
            for (name, object) in pinned {
                if let Some(p) = schemas.pointer_mut(&format!("/{name}/properties/object")) {
                    p["enum"] = json!([*object]);
                }
            }
            let list = <List<PaymentResource> as Resource>::OBJECT;
            for (name, schema) in schemas.as_object_mut().into_iter().flatten() {
                // Lists are generic: `List_PaymentResource`, `List_RefundResource`, ...
                if name.starts_with("List_") {
                    schema["properties"]["object"]["enum"] = json!([list]);
                }
                if !name.ends_with("Request") && !INPUT_PARTS.contains(&name.as_str()) {
                    require_nullable_properties(schema);
                }
            }
        }
    }
    root.insert("security".into(), json!([{ "api_key": [] }]));
    // A body whose every field is optional may be left out: the wrapper reads an empty
    // body as `{}`.
    let optional_bodies: Vec<String> = root
        .get("components")
        .and_then(|c| c.get("schemas"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(name, s)| {
            name.ends_with("Request") && s["required"].as_array().is_none_or(Vec::is_empty)
        })
        .map(|(name, _)| format!("#/components/schemas/{name}"))
        .collect();
    let mut operations: Vec<(String, String, &mut Value)> = Vec::new();
    if let Some(paths) = root.get_mut("paths").and_then(Value::as_object_mut) {
        for (path, item) in paths.iter_mut() {
            if let Some(item) = item.as_object_mut() {
                for (method, op) in item.iter_mut() {
                    operations.push((path.clone(), method.clone(), op));
                }
            }
        }
    }
    for (path, method, op) in operations {
        let body = op.pointer("/requestBody/content/application~1json/schema/$ref");
        if body
            .and_then(Value::as_str)
            .is_some_and(|r| optional_bodies.iter().any(|o| o == r))
        {
            op["requestBody"]["required"] = json!(false);
        }
        add_shared_responses(&path, &method, op);
        add_links(op);
    }
}

/// Response resources always write every field (null when unset), so a nullable
/// property is still a required one; properties skipped when absent are not nullable.
fn require_nullable_properties(schema: &mut Value) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let nullable: Vec<String> = props
        .iter()
        .filter(|(_, p)| is_nullable(p))
        .map(|(k, _)| k.clone())
        .collect();
    let required = schema
        .as_object_mut()
        .map(|o| o.entry("required").or_insert_with(|| json!([])));
    if let Some(Value::Array(required)) = required {
        for name in nullable {
            if !required.iter().any(|r| r == &name) {
                required.push(Value::String(name));
            }
        }
    }
}

fn is_nullable(p: &Value) -> bool {
    let null = json!("null");
    let in_type = p
        .get("type")
        .and_then(Value::as_array)
        .is_some_and(|t| t.contains(&null));
    let in_union = ["oneOf", "anyOf"].iter().any(|k| {
        p.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|alts| alts.iter().any(|a| a.get("type") == Some(&null)))
    });
    in_type || in_union
}

fn add_shared_components(components: &mut Map<String, Value>) {
    let mut codes: Vec<&str> = Vec::new();
    for code in ErrorCode::ALL {
        if !codes.contains(&code.as_str()) {
            codes.push(code.as_str());
        }
    }
    let schemas = components
        .entry("schemas")
        .or_insert_with(|| json!({}))
        .as_object_mut();
    if let Some(schemas) = schemas {
        schemas.insert(
            "Error".into(),
            json!({
                "type": "object",
                "description": "The error envelope of every failed request.",
                "required": ["error"],
                "properties": { "error": {
                    "type": "object",
                    "required": ["code", "type", "message"],
                    "properties": {
                        "code": { "type": "string", "enum": codes },
                        "type": { "type": "string", "enum": codes, "deprecated": true,
                                  "description": "Deprecated alias of `code`." },
                        "message": { "type": "string" },
                        "details": {
                            "type": "array",
                            "description": "On validation failures: one entry per field.",
                            "items": {
                                "type": "object",
                                "required": ["field", "message"],
                                "properties": {
                                    "field": { "type": "string" },
                                    "message": { "type": "string" }
                                }
                            }
                        }
                    }
                }}
            }),
        );
    }
    const RETRY_AFTER: &str = "Seconds to wait before retrying.";
    let error = |description: &str, retry_after: Option<&str>| {
        let mut response = json!({
            "description": description,
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
        });
        if let Some(when) = retry_after {
            response["headers"] = json!({ "Retry-After": {
                "description": when,
                "schema": { "type": "integer", "minimum": 0 }
            }});
        }
        response
    };
    components.insert(
        "responses".into(),
        json!({
            "InvalidRequest": error("`invalid_request_error`: the body, query or a header failed validation.", None),
            "Unauthenticated": error("`authentication_error`: missing, invalid or revoked API key.", None),
            "NotFound": error("`not_found_error`: no such resource for this merchant and mode.", None),
            "Conflict": error("`conflict_error` (a state conflict or a request in flight) or `idempotency_error` (key reused with another body).", Some("Only on a request still in flight under the same Idempotency-Key: seconds to wait before sending it again. A 409 without it is final.")),
            "RateLimited": error("`rate_limit_error`: too many requests for this key.", Some(RETRY_AFTER)),
            "ServerError": error("`api_error`: a failure on the service side; the Request-Id header identifies it.", None),
            "Unavailable": error("`api_error`: a dependency (database, chain) is briefly unavailable.", Some(RETRY_AFTER)),
        }),
    );
    components.insert(
        "securitySchemes".into(),
        json!({ "api_key": {
            "type": "http",
            "scheme": "bearer",
            "description": "A secret API key: `Authorization: Bearer svc_sk_test_…` or `svc_sk_live_…`."
        }}),
    );
}

/// What the wrapper adds to every route: auth, validation, rate limits, idempotency.
fn add_shared_responses(path: &str, method: &str, op: &mut Value) {
    let mut shared = vec![
        ("400", "InvalidRequest"),
        ("401", "Unauthenticated"),
        ("429", "RateLimited"),
        ("500", "ServerError"),
        ("503", "Unavailable"),
    ];
    if path.contains('{') {
        shared.push(("404", "NotFound"));
    }
    if method == "post" || method == "delete" {
        shared.push(("409", "Conflict"));
    }
    if let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) {
        // A handler may name an error status the rules above do not imply (a POST whose
        // body names a missing resource is 404): it says only that, this adds the body.
        let declared: Vec<String> = responses
            .iter()
            .filter(|(s, r)| s.starts_with(['4', '5']) && r.get("content").is_none())
            .map(|(s, _)| s.clone())
            .collect();
        for status in declared {
            let name = match status.as_str() {
                "404" => "NotFound",
                "409" => "Conflict",
                _ => "InvalidRequest",
            };
            responses.insert(
                status,
                json!({ "$ref": format!("#/components/responses/{name}") }),
            );
        }
        for (status, name) in shared {
            responses
                .entry(status)
                .or_insert_with(|| json!({ "$ref": format!("#/components/responses/{name}") }));
        }
    }
    if method == "post" {
        let parameters = op
            .as_object_mut()
            .map(|o| o.entry("parameters").or_insert_with(|| json!([])));
        if let Some(Value::Array(parameters)) = parameters {
            parameters.push(json!({
                "name": "Idempotency-Key",
                "in": "header",
                "required": false,
                "description": "Replays the first response for 24 hours (same key, same body) with `Idempotency-Replayed: true`; another body gets 409.",
                "schema": { "type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[\\x20-\\x7E]+$" }
            }));
        }
    }
}

fn add_links(op: &mut Value) {
    let Some(id) = op
        .get("operationId")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return;
    };
    for (from, status, to, parameter, expression) in LINKS {
        if *from != id {
            continue;
        }
        if let Some(response) = op.pointer_mut(&format!("/responses/{status}")) {
            response["links"][*to] = json!({
                "operationId": to,
                "parameters": { *parameter: expression }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openapi::document;

    #[test]
    fn every_link_names_real_operations() {
        let doc = document();
        let mut ids = Vec::new();
        for item in doc["paths"]
            .as_object()
            .into_iter()
            .flat_map(|p| p.values())
        {
            for op in item.as_object().into_iter().flat_map(|o| o.values()) {
                ids.extend(op["operationId"].as_str().map(str::to_owned));
            }
        }
        for (from, status, to, _, _) in LINKS {
            assert!(ids.iter().any(|i| i == from), "unknown operation {from}");
            assert!(ids.iter().any(|i| i == to), "unknown operation {to}");
            let linked = doc["paths"]
                .as_object()
                .into_iter()
                .flat_map(|p| p.values())
                .flat_map(|item| item.as_object().into_iter().flat_map(|o| o.values()))
                .any(|op| {
                    op["operationId"] == *from && op["responses"][status]["links"][to].is_object()
                });
            assert!(linked, "{from} {status} lacks its link to {to}");
        }
    }

    #[test]
    fn nullable_fields_of_resources_are_required_and_skipped_fields_are_not() {
        let doc = document();
        let session = &doc["components"]["schemas"]["CheckoutSessionResource"];
        let required: Vec<&str> = session["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        assert!(required.contains(&"description"));
        assert!(required.contains(&"completed_at"));
        let wallet = &doc["components"]["schemas"]["WalletResource"]["required"];
        assert!(!wallet
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r == "verification"));
        assert_eq!(
            doc["openapi"].as_str().map(|v| v.starts_with("3.1")),
            Some(true)
        );
    }
}
