//! Reading one variable: blank counts as unset; a value that does not parse names the
//! variable and what was expected.

use std::time::Duration;

#[derive(Debug, thiserror::Error)]
#[error("configuration error: {var}: {problem}")]
pub struct ConfigError {
    pub var: String,
    pub problem: String,
}

impl ConfigError {
    pub fn new(var: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            var: var.into(),
            problem: problem.into(),
        }
    }
}

/// The variable's value, `None` when unset or blank.
pub fn optional(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The variable's value, or an error saying `why_needed`.
pub fn required(name: &str, why_needed: &str) -> Result<String, ConfigError> {
    optional(name).ok_or_else(|| ConfigError::new(name, why_needed))
}

/// A number (any `FromStr`), `default` when unset.
pub fn number<T: std::str::FromStr>(name: &str, default: T) -> Result<T, ConfigError> {
    match optional(name) {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse()
            .map_err(|_| ConfigError::new(name, format!("`{v}` is not a valid number"))),
    }
}

/// A duration such as `30s`, `500ms`, `2m`, `1d`, `default` when unset.
pub fn duration(name: &str, default: Duration) -> Result<Duration, ConfigError> {
    match optional(name) {
        None => Ok(default),
        Some(v) => stablepay_domain::parse_duration(&v).ok_or_else(|| {
            ConfigError::new(
                name,
                format!("`{v}` is not a duration (e.g. 30s, 500ms, 2m)"),
            )
        }),
    }
}

/// `true`/`1`/`yes` or `false`/`0`/`no`; unset is false.
pub fn flag(name: &str) -> Result<bool, ConfigError> {
    match optional(name)
        .as_deref()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        None | Some("false" | "0" | "no") => Ok(false),
        Some("true" | "1" | "yes") => Ok(true),
        Some(other) => Err(ConfigError::new(
            name,
            format!("`{other}` is not true or false"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Each test uses its own variable names: the process environment is shared.
    #[test]
    fn blank_is_unset_and_bad_values_name_the_variable() {
        std::env::set_var("STABLEPAY_CONFIG_TEST_BLANK", "  ");
        assert_eq!(optional("STABLEPAY_CONFIG_TEST_BLANK"), None);
        assert_eq!(number("STABLEPAY_CONFIG_TEST_BLANK", 7u32).unwrap(), 7);
        std::env::set_var("STABLEPAY_CONFIG_TEST_NUMBER", "seven");
        let e = number("STABLEPAY_CONFIG_TEST_NUMBER", 7u32).unwrap_err();
        assert_eq!(e.var, "STABLEPAY_CONFIG_TEST_NUMBER");
        std::env::set_var("STABLEPAY_CONFIG_TEST_DURATION", "90s");
        assert_eq!(
            duration("STABLEPAY_CONFIG_TEST_DURATION", Duration::ZERO).unwrap(),
            Duration::from_secs(90)
        );
        std::env::set_var("STABLEPAY_CONFIG_TEST_FLAG", "maybe");
        assert!(flag("STABLEPAY_CONFIG_TEST_FLAG").is_err());
        assert!(!flag("STABLEPAY_CONFIG_TEST_UNSET_FLAG").unwrap());
    }
}
