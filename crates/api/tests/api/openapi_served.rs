//! The served OpenAPI document, and the routes it names answering as it says.

use serde_json::Value;

use crate::support::spawn_app;

#[tokio::test]
async fn the_document_is_public_and_every_operation_it_names_is_routed() {
    let app = spawn_app().await;
    let res = app
        .client
        .get(format!("{}/api/v1/openapi.json", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/json"));
    let served: Value = res.json().await.unwrap();
    assert_eq!(&served, stablepay_api::openapi::document());

    // Without a key, every documented operation is 401 (a route the document invented
    // would be 404 or 405); with a key, an unknown id is a 404 in the envelope.
    let id_for = |param: &Value| -> String {
        let schema = &served["components"]["schemas"][param["schema"]["$ref"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()];
        let example = schema["examples"][0].as_str().unwrap();
        example.to_owned()
    };
    let mut operations = 0;
    for (path, item) in served["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let mut url = path.clone();
            for p in op["parameters"].as_array().into_iter().flatten() {
                if p["in"] == "path" {
                    url = url.replace(&format!("{{{}}}", p["name"].as_str().unwrap()), &id_for(p));
                }
            }
            let url = format!("{}{url}", app.base);
            let m = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let res = app.client.request(m.clone(), &url).send().await.unwrap();
            assert_eq!(res.status(), 401, "{method} {path} without a key");
            if path.contains('{') {
                let res = app
                    .client
                    .request(m, &url)
                    .bearer_auth(&app.a.test_key)
                    .header("content-type", "application/json")
                    .body("{}")
                    .send()
                    .await
                    .unwrap();
                let status = res.status().as_u16();
                let body: Value = res.json().await.unwrap();
                // POSTs with a required body field may fail validation first.
                assert!(
                    status == 404 || (status == 400 && method == "post"),
                    "{method} {path} with an unknown id: {status} {body}"
                );
                assert!(op["responses"][status.to_string()].is_object());
            }
            operations += 1;
        }
    }
    assert_eq!(operations, 44);
}

/// Fails unless `value` carries every property the document's `schema` requires, the
/// nested objects it names by `$ref` too (a field the code skips when empty must not be
/// required: Schemathesis found `custom_amount` without `currency` that way).
pub(crate) fn assert_has_required(schema: &str, value: &Value) {
    let doc = stablepay_api::openapi::document();
    let s = &doc["components"]["schemas"][schema];
    assert!(s.is_object(), "no schema {schema}");
    for name in s["required"].as_array().into_iter().flatten() {
        let name = name.as_str().unwrap();
        assert!(
            value.get(name).is_some(),
            "{schema} requires `{name}`, absent from {value}"
        );
    }
    for (name, p) in s["properties"].as_object().into_iter().flatten() {
        let nested = p["oneOf"]
            .as_array()
            .into_iter()
            .flatten()
            .chain([p])
            .find_map(|alt| alt["$ref"].as_str());
        match (nested, value.get(name)) {
            (Some(r), Some(v)) if v.is_object() => {
                assert_has_required(r.rsplit('/').next().unwrap(), v)
            }
            _ => {}
        }
    }
}
