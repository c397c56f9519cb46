//! The OpenAPI document against the committed `docs/openapi.json` and against the
//! interface spec's resource tables, status vocabularies and error codes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use stablepay_api::openapi::{document, document_text};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn committed_document_matches_the_code() {
    let path = repo_root().join("docs/openapi.json");
    let generated = document_text();
    if std::env::var_os("STABLEPAY_UPDATE_OPENAPI").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/openapi.json differs from the code; regenerate it with \
         `STABLEPAY_UPDATE_OPENAPI=1 cargo test -p stablepay-api --test openapi` and review the diff"
    );
}

/// The spec as committed beside the code; when the shared original is present (a
/// development machine), the copy must equal it.
fn spec_text() -> String {
    let copy = repo_root().join("docs/spec/interface-spec.md");
    let text = std::fs::read_to_string(&copy).expect("docs/spec/interface-spec.md");
    let shared = repo_root().join("../shared/spec/interface-spec.md");
    if let Ok(original) = std::fs::read_to_string(shared) {
        assert!(
            original == text,
            "docs/spec/interface-spec.md is stale: copy ../shared/spec/interface-spec.md over it"
        );
    }
    text
}

struct SpecRow {
    field: String,
    kind: String,
    values: Vec<String>,
}

/// `### Title (`object`: `name`)` sections and their `| Field | Type | Notes |` rows.
fn spec_tables(text: &str) -> Vec<(String, Vec<SpecRow>)> {
    let mut out: Vec<(String, Vec<SpecRow>)> = Vec::new();
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            if let Some(object) = heading
                .split("(`object`: `")
                .nth(1)
                .and_then(|r| r.split('`').next())
            {
                out.push((object.to_owned(), Vec::new()));
            } else if heading.starts_with("List envelope") {
                out.push(("list".to_owned(), Vec::new()));
            } else {
                out.push((String::new(), Vec::new()));
            }
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || cells[1] == "Field" || cells[1].starts_with("---") {
            continue;
        }
        if let Some((_, rows)) = out.last_mut() {
            let notes = cells.get(3).copied().unwrap_or_default();
            let values = notes
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect();
            rows.push(SpecRow {
                field: cells[1].to_owned(),
                kind: cells[2].to_owned(),
                values,
            });
        }
    }
    out.retain(|(object, rows)| !object.is_empty() && !rows.is_empty());
    out
}

fn schemas() -> &'static serde_json::Map<String, Value> {
    document()["components"]["schemas"].as_object().unwrap()
}

fn resolve(schema: &Value) -> &Value {
    match schema["$ref"].as_str() {
        Some(r) => &schemas()[r.trim_start_matches("#/components/schemas/")],
        None => schema,
    }
}

/// A property's schema without its `null` alternative, and whether null is allowed.
fn unwrap_nullable(p: &Value) -> (&Value, bool) {
    for key in ["oneOf", "anyOf"] {
        if let Some(alts) = p[key].as_array() {
            let non_null: Vec<&Value> = alts.iter().filter(|a| a["type"] != "null").collect();
            if non_null.len() == 1 && non_null.len() < alts.len() {
                return (resolve(non_null[0]), true);
            }
        }
    }
    let nullable = p["type"]
        .as_array()
        .is_some_and(|t| t.iter().any(|x| x == "null"));
    (resolve(p), nullable)
}

fn json_type(s: &Value) -> Vec<String> {
    match &s["type"] {
        Value::String(t) => vec![t.clone()],
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// The schema whose `object` property is pinned to `object` (or the list envelope).
fn schema_for(object: &str) -> Value {
    if object == "list" {
        let list = &document()["paths"]["/api/v1/payments"]["get"]["responses"]["200"]["content"]
            ["application/json"]["schema"];
        return resolve(list).clone();
    }
    // The fullest of those that write it (a deletion also says `webhook_endpoint`).
    schemas()
        .values()
        .filter(|s| s["properties"]["object"]["enum"] == serde_json::json!([object]))
        .max_by_key(|s| s["properties"].as_object().map_or(0, |p| p.len()))
        .cloned()
        .unwrap_or_else(|| panic!("no schema pins object `{object}`"))
}

/// Where the service deliberately allows null beyond the spec's table (each with why).
const NULLABLE_BEYOND_SPEC: &[(&str, &str)] = &[
    // A recurring charge that failed before a transaction was sent has neither.
    ("payment", "tx_hash"),
    ("payment", "block_number"),
];

#[test]
fn every_spec_field_type_and_status_value_is_in_the_document() {
    let text = spec_text();
    let tables = spec_tables(&text);
    let objects: Vec<&str> = tables.iter().map(|(o, _)| o.as_str()).collect();
    assert_eq!(
        objects,
        [
            "checkout.session",
            "payment",
            "refund",
            "subscription",
            "payment_attempt",
            "webhook_event",
            "list"
        ],
        "the spec's resource tables"
    );
    let mut checked = 0;
    for (object, rows) in &tables {
        let schema = schema_for(object);
        let required: Vec<&str> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for row in rows {
            let at = format!("{object}.{}", row.field);
            let property = schema["properties"]
                .get(&row.field)
                .unwrap_or_else(|| panic!("{at} is in the spec but not in the document"));
            assert!(
                required.contains(&row.field.as_str()),
                "{at} must be required"
            );
            let (inner, nullable) = unwrap_nullable(property);
            let spec_nullable = row.kind.contains("or null");
            if spec_nullable {
                assert!(
                    nullable,
                    "{at}: the spec allows null, the document does not"
                );
            } else if nullable {
                assert!(
                    NULLABLE_BEYOND_SPEC.contains(&(object.as_str(), row.field.as_str())),
                    "{at}: the document allows null where the spec does not"
                );
            }
            let types = json_type(inner);
            let kind = row.kind.split(" or ").next().unwrap_or_default();
            let expected: &[&str] = match kind {
                "string" | "timestamp" | "timestamp string" => &["string"],
                "integer" => &["integer"],
                "number" => &["integer", "number"],
                "boolean" => &["boolean"],
                "object" => &["object"],
                k if k.starts_with("string, `") => &["string"],
                k if k.starts_with("array") => &["array"],
                other => panic!("{at}: unknown spec type `{other}`"),
            };
            if !(kind == "object" && types.is_empty()) {
                assert!(
                    types.iter().any(|t| expected.contains(&t.as_str())),
                    "{at}: spec says {kind}, document says {types:?}"
                );
            }
            if kind.starts_with("timestamp") {
                assert_eq!(inner["format"], "date-time", "{at}: a timestamp");
            }
            // Every value the spec names for a vocabulary field is in its enum.
            if let Some(allowed) = inner["enum"].as_array() {
                for value in &row.values {
                    if value.ends_with('_') && row.field == "id" {
                        continue;
                    }
                    let numeric = value.parse::<u64>().ok().map(Value::from);
                    assert!(
                        allowed.contains(&Value::from(value.as_str()))
                            || numeric.is_some_and(|n| allowed.contains(&n)),
                        "{at}: `{value}` is not among {allowed:?}"
                    );
                }
                checked += row.values.len();
            }
            if row.field == "id" {
                let prefix = row.values.first().expect("an id prefix");
                let pattern = inner["pattern"].as_str().unwrap_or_default();
                assert!(
                    pattern.starts_with(&format!("^{prefix}")),
                    "{at}: {pattern}"
                );
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} vocabulary values were checked"
    );
}

#[test]
fn wallets_and_endpoints_carry_the_spec_fields() {
    let wallet = schema_for("wallet");
    for field in ["address", "chain_id", "status", "verification"] {
        assert!(wallet["properties"].get(field).is_some(), "wallet.{field}");
    }
    let status = resolve(&wallet["properties"]["status"]);
    for value in ["verified", "revoked"] {
        assert!(status["enum"]
            .as_array()
            .unwrap()
            .contains(&Value::from(value)));
    }
    let verification = resolve(&wallet["properties"]["verification"]);
    for field in ["message", "expires_at"] {
        assert!(
            verification["properties"].get(field).is_some(),
            "verification.{field}"
        );
    }
    let endpoint = schema_for("webhook_endpoint");
    for field in ["id", "object", "url", "enabled_events", "secret"] {
        assert!(
            endpoint["properties"].get(field).is_some(),
            "webhook_endpoint.{field}"
        );
    }
    let events = &endpoint["properties"]["enabled_events"];
    assert_eq!(events["type"], "array");
    let types = resolve(&events["items"]);
    let text = spec_text();
    let catalogue = text.split("### Event types").nth(1).unwrap();
    let catalogue = catalogue.split("###").next().unwrap();
    let mut named = 0;
    for line in catalogue.lines() {
        let name = line.split('|').nth(1).unwrap_or_default().trim();
        if name.contains('.') {
            named += 1;
            assert!(
                types["enum"]
                    .as_array()
                    .unwrap()
                    .contains(&Value::from(name)),
                "event type {name}"
            );
        }
    }
    assert!(named >= 8, "only {named} event types found in the spec");
}

#[test]
fn every_spec_error_code_and_status_is_documented() {
    let text = spec_text();
    let errors = text.split("## Errors").nth(1).unwrap();
    let errors = errors.split("## Limits").next().unwrap();
    let codes = &schemas()["Error"]["properties"]["error"]["properties"]["code"]["enum"];
    let responses = document()["components"]["responses"].as_object().unwrap();
    let mut rows = 0;
    for line in errors.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let Some(status) = cells.get(1).and_then(|s| s.parse::<u16>().ok()) else {
            continue;
        };
        rows += 1;
        let code = cells[2];
        assert!(
            codes.as_array().unwrap().contains(&Value::from(code)),
            "code {code}"
        );
        // Every operation documents the status (through a shared response).
        for item in document()["paths"].as_object().unwrap().values() {
            for (method, op) in item.as_object().unwrap() {
                let has_id = op["parameters"]
                    .as_array()
                    .is_some_and(|ps| ps.iter().any(|p| p["in"] == "path"));
                let applies = match status {
                    404 => has_id,
                    409 => method == "post" || method == "delete",
                    _ => true,
                };
                if applies {
                    let r = &op["responses"][status.to_string()];
                    assert!(!r.is_null(), "{} lacks {status}", op["operationId"]);
                    let name = r["$ref"].as_str().unwrap().rsplit('/').next().unwrap();
                    assert!(responses.contains_key(name));
                }
            }
        }
    }
    assert_eq!(rows, 7, "the spec's error table");
    let limited = &responses["RateLimited"]["headers"]["Retry-After"];
    assert!(limited.is_object(), "429 documents Retry-After");
    let envelope = &schemas()["Error"]["properties"]["error"];
    for field in ["code", "type", "message", "details"] {
        assert!(envelope["properties"].get(field).is_some(), "error.{field}");
    }
}

/// `**METHOD /path**` mentions, with `:id` written as `{id}`.
fn spec_operations(line: &str) -> Vec<(String, String)> {
    line.split("**")
        .skip(1)
        .step_by(2)
        .filter_map(|s| {
            let (method, path) = s.split_once(' ')?;
            ["GET", "POST", "DELETE"].contains(&method).then(|| {
                let path = path.replace(":id", "{id}");
                (method.to_lowercase(), format!("/api/v1{path}"))
            })
        })
        .collect()
}

#[test]
fn every_spec_endpoint_and_body_field_is_documented() {
    let text = spec_text();
    let endpoints = text.split("## Endpoints").nth(1).unwrap();
    let endpoints = endpoints.split("## Authentication").next().unwrap();
    let paths = document()["paths"].as_object().unwrap();
    let (mut operations, mut fields) = (0, 0);
    let mut current: Option<&Value> = None;
    for line in endpoints.lines() {
        for (method, path) in spec_operations(line) {
            let op = paths
                .get(&path)
                .and_then(|item| item.get(&method))
                .unwrap_or_else(|| panic!("{method} {path} is in the spec, not the document"));
            current = Some(op);
            operations += 1;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 5 || cells[1] == "Body field" || cells[1].starts_with("---") {
            continue;
        }
        let op = current.expect("a body table follows its endpoint");
        let body = resolve(&op["requestBody"]["content"]["application/json"]["schema"]);
        // A body that is one of several shapes (the session request, per mode) documents
        // a field if any shape has it, and requires it if every shape does.
        let shapes: Vec<&Value> = match body["oneOf"].as_array() {
            Some(alternatives) => alternatives.iter().map(resolve).collect(),
            None => vec![body],
        };
        let at = format!("{} body field {}", op["operationId"], cells[1]);
        assert!(
            shapes
                .iter()
                .any(|b| b["properties"].get(cells[1]).is_some()),
            "{at} is not documented"
        );
        let required = shapes.iter().all(|b| {
            b["required"]
                .as_array()
                .is_some_and(|r| r.iter().any(|f| f == cells[1]))
        });
        assert_eq!(
            required,
            cells[3] == "yes",
            "{at}: required is {}",
            cells[3]
        );
        fields += 1;
    }
    assert!(
        operations >= 20,
        "only {operations} endpoints found in the spec"
    );
    assert!(fields >= 20, "only {fields} body fields found in the spec");
}
