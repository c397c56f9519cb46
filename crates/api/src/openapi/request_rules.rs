//! Rules of requests the derives cannot place: the session request as a `oneOf` on
//! `mode`, each list's `starting_after` as the id of its items, filters' text rules, and,
//! in the operations' descriptions, the rules no schema can state (Schemathesis'
//! `positive_data_acceptance` check is excluded for exactly those operations in
//! `xtask/schemathesis.toml`).

use serde_json::{json, Map, Value};

use super::fields;

const SESSION_REQUEST: &str = "CreateCheckoutSessionRequest";

/// What a schema-valid request can still be refused for, per operation.
const UNSTATEABLE: &[(&str, &str)] = &[
    (
        "create_checkout_session",
        "Refused with 400 although the document allows it: a `recipient` that is not one of \
         your verified wallets (or none given while you have several); a `chain` other than \
         your key's (base for live keys, base-sepolia for test keys); subscription mode with \
         a test key; a `chain_plan_id` that is no plan on the key's chain, or whose token, \
         `amount` or `interval_seconds` differ from the plan's.",
    ),
    (
        "create_refund",
        "Refused although the document allows it: a `payment` that is not yours (404); a \
         `tx_hash` that is not a confirmed transfer of the payment's token from one of your \
         verified wallets to the payer, or is already recorded; an `amount` other than the \
         transfer's, or above what is left to refund (400).",
    ),
    (
        "send_test_webhook_event",
        "Refused with 400 although the document allows it: a `type` the endpoint does not \
         subscribe to (its `enabled_events`, when it names any).",
    ),
    (
        "recover_webhook_endpoint",
        "Refused with 400 although the document allows it: an endpoint that is disabled \
         (enable it first).",
    ),
    (
        "resend_webhook_event",
        "Refused with 400 although the document allows it: an event whose endpoint is \
         disabled or deleted (the spec's rule); 409 while the original or a redelivery is \
         still pending.",
    ),
    (
        "register_wallet",
        "Refused with 400 although the document allows it: an `address` in mixed case that \
         fails its EIP-55 checksum (all-lowercase or all-uppercase hex is accepted as it is).",
    ),
    (
        "list_subscriptions",
        "Refused with 400 although the document allows it: a `wallet_address` in mixed case \
         that fails its EIP-55 checksum (all-lowercase or all-uppercase hex is accepted as it \
         is).",
    ),
    (
        "revoke_wallet",
        "Refused with 400 although the document allows it: a wallet verified in live mode, \
         revoked with a test key (a leaked test key must not take live money's destination \
         out of service; use a live key or the live dashboard).",
    ),
    (
        "verify_wallet",
        "Refused with 400 although the document allows it: a `signature` that does not sign \
         the challenge for the wallet's address (an EOA's recovery or the wallet contract's \
         ERC-1271 answer), or a challenge that has expired or was used.",
    ),
];

pub(super) fn apply(doc: &mut Value) {
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        split_session_request(schemas);
    }
    let schemas = doc["components"]["schemas"].clone();
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for op in item.values_mut() {
            cursor_is_an_item_id(op, &schemas);
            if let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) {
                for p in params
                    .iter_mut()
                    .filter(|p| p["name"] == "customer_reference")
                {
                    p["schema"] = serde_json::to_value(fields::customer_reference_filter())
                        .unwrap_or_default();
                }
            }
            let id = op["operationId"].as_str().unwrap_or_default().to_owned();
            if let Some((_, rules)) = UNSTATEABLE.iter().find(|(op_id, _)| *op_id == id) {
                let text = match op["description"].as_str() {
                    Some(d) if !d.is_empty() => format!("{d}\n\n{rules}"),
                    _ => (*rules).to_owned(),
                };
                op["description"] = json!(text);
            }
        }
    }
}

/// `starting_after` takes the id of the list's item type (`cs_…` for sessions), which the
/// 200 response names: `List_X` → its items' `id`.
fn cursor_is_an_item_id(op: &mut Value, schemas: &Value) {
    let item_id = op
        .pointer("/responses/200/content/application~1json/schema/$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
        .and_then(|list| schemas[list].pointer("/properties/data/items"))
        .and_then(|item| match item["$ref"].as_str() {
            // The item inline, or by reference.
            None => item.pointer("/properties/id"),
            Some(r) => r
                .strip_prefix("#/components/schemas/")
                .and_then(|name| schemas[name].pointer("/properties/id")),
        })
        .cloned();
    let Some(item_id) = item_id else {
        return;
    };
    if let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) {
        for p in params.iter_mut().filter(|p| p["name"] == "starting_after") {
            p["schema"] = item_id.clone();
        }
    }
}

/// One body per mode: payment mode requires `amount` and takes no plan fields;
/// subscription mode requires `chain_plan_id`.
fn split_session_request(schemas: &mut Map<String, Value>) {
    let Some(derived) = schemas.get(SESSION_REQUEST).cloned() else {
        return;
    };
    let common = derived["properties"].clone();
    let variant = |mode: &str, required: &[&str], change: &dyn Fn(&mut Value)| {
        let mut properties = common.clone();
        properties["mode"] = json!({ "type": "string", "enum": [mode] });
        change(&mut properties);
        json!({
            "type": "object",
            "additionalProperties": false,
            "properties": properties,
            "required": required,
        })
    };
    let payment = variant("payment", &["mode", "title", "amount"], &|p| {
        if let Some(amount) = p.get_mut("amount") {
            // Required, and a string: `null` means no amount.
            amount["type"] = json!("string");
            amount["description"] = json!("The price, in the session's currency.");
        }
        p["chain_plan_id"] = json!({ "type": "null", "description": "Subscription mode only." });
        p["interval_seconds"] = json!({ "type": "null", "description": "Subscription mode only." });
    });
    let subscription = variant("subscription", &["mode", "title", "chain_plan_id"], &|p| {
        if let Some(plan) = p.get_mut("chain_plan_id").and_then(|v| v.get_mut("oneOf")) {
            // Required and not null.
            if let Some(alternatives) = plan.as_array_mut() {
                alternatives.retain(|a| a["type"] != "null");
            }
        }
        if let Some(amount) = p.get_mut("amount") {
            amount["description"] = json!("If given, must equal the plan's amount.");
        }
    });
    schemas.insert("PaymentSessionRequest".into(), payment);
    schemas.insert("SubscriptionSessionRequest".into(), subscription);
    let mut top = json!({
        "oneOf": [
            { "$ref": "#/components/schemas/PaymentSessionRequest" },
            { "$ref": "#/components/schemas/SubscriptionSessionRequest" },
        ],
        "discriminator": {
            "propertyName": "mode",
            "mapping": {
                "payment": "#/components/schemas/PaymentSessionRequest",
                "subscription": "#/components/schemas/SubscriptionSessionRequest",
            },
        },
    });
    if let Some(d) = derived.get("description") {
        top["description"] = d.clone();
    }
    schemas.insert(SESSION_REQUEST.into(), top);
}

#[cfg(test)]
mod tests {
    use super::super::document;
    use serde_json::Value;

    #[test]
    fn each_list_pages_by_its_own_ids() {
        let doc = document();
        let cursor = |path: &str| {
            doc["paths"][path]["get"]["parameters"]
                .as_array()
                .and_then(|ps| ps.iter().find(|p| p["name"] == "starting_after"))
                .map(|p| p["schema"].clone())
                .unwrap_or(Value::Null)
        };
        assert_eq!(
            cursor("/api/v1/checkout/sessions")["$ref"],
            "#/components/schemas/CheckoutSessionId"
        );
        assert_eq!(
            cursor("/api/v1/webhook_events/{id}/attempts")["$ref"],
            "#/components/schemas/WebhookAttemptId"
        );
    }

    #[test]
    fn the_session_request_is_one_of_two_modes() {
        let schemas = &document()["components"]["schemas"];
        let payment = &schemas["PaymentSessionRequest"];
        assert_eq!(payment["properties"]["mode"]["enum"][0], "payment");
        assert!(payment["required"]
            .as_array()
            .is_some_and(|r| r.iter().any(|f| f == "amount")));
        assert_eq!(payment["properties"]["interval_seconds"]["type"], "null");
        let subscription = &schemas["SubscriptionSessionRequest"];
        assert!(subscription["required"]
            .as_array()
            .is_some_and(|r| r.iter().any(|f| f == "chain_plan_id")));
        assert_eq!(
            schemas["CreateCheckoutSessionRequest"]["oneOf"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
    }
}
