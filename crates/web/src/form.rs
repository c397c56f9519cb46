//! An urlencoded form body, parsed once.

#[derive(Debug, Default, Clone)]
pub struct Form {
    pairs: Vec<(String, String)>,
}

impl Form {
    pub fn parse(body: &[u8]) -> Self {
        Self {
            pairs: url::form_urlencoded::parse(body)
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        }
    }

    /// The first value of a field, as sent.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value, trimmed; `None` when absent or blank (an optional field left empty).
    pub fn text(&self, name: &str) -> Option<String> {
        self.get(name)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    }

    /// Every value of a repeated field (checkboxes).
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_blank_and_repeated() {
        let f = Form::parse(b"a=1&b=++&e=x&e=y&t=%20hi%20");
        assert_eq!(f.get("a"), Some("1"));
        assert_eq!(f.text("b"), None);
        assert_eq!(f.text("t").as_deref(), Some("hi"));
        assert_eq!(f.all("e"), vec!["x", "y"]);
        assert_eq!(f.get("missing"), None);
    }
}
