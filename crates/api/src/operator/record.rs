//! The operator commands' one output format.

use serde_json::{Map, Value};

/// One thing a command did or found, as named fields in order.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Record(Vec<(&'static str, Value)>);

impl Record {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with(mut self, name: &'static str, value: impl Into<Value>) -> Self {
        self.0.push((name, value.into()));
        self
    }

    /// The values tab-separated (`-` for none), or one JSON object of the fields.
    pub fn render(&self, json: bool) -> String {
        if json {
            let fields: Map<String, Value> = self
                .0
                .iter()
                .map(|(name, value)| ((*name).to_owned(), value.clone()))
                .collect();
            return Value::Object(fields).to_string();
        }
        self.0
            .iter()
            .map(|(_, value)| match value {
                Value::String(s) => s.clone(),
                Value::Null => "-".to_owned(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\t")
    }

    pub fn print(&self, json: bool) {
        println!("{}", self.render(json));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_record_renders_as_a_tab_separated_line_or_a_json_object() {
        let r = Record::new()
            .with("id", "key_1")
            .with("last4", "abcd")
            .with("totp", true)
            .with("fee_bps", 75u16)
            .with("revoked_at", None::<String>);
        assert_eq!(r.render(false), "key_1\tabcd\ttrue\t75\t-");
        let json: Value = serde_json::from_str(&r.render(true)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"id": "key_1", "last4": "abcd", "totp": true, "fee_bps": 75, "revoked_at": null})
        );
        assert!(!r.render(true).contains('\n'), "one line");
    }
}
