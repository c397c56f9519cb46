//! Field-level validation errors, collected so a client sees every problem at once.

/// One invalid field: the spec's `details` entry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// A non-empty list of field errors.
#[derive(Debug, Clone, PartialEq, Eq, Default, thiserror::Error)]
#[error("{}", summary(.0))]
pub struct ValidationErrors(pub Vec<FieldError>);

fn summary(errors: &[FieldError]) -> String {
    match errors {
        [] => "invalid request".to_owned(),
        [one] => format!("{}: {}", one.field, one.message),
        [first, rest @ ..] => format!(
            "{}: {} (and {} more)",
            first.field,
            first.message,
            rest.len()
        ),
    }
}

impl ValidationErrors {
    pub fn single(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self(vec![FieldError::new(field, message)])
    }

    pub fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.push(FieldError::new(field, message));
    }

    /// Records the error of `result` under `field` and returns the value, if any.
    pub fn check<T, E: std::fmt::Display>(
        &mut self,
        field: &str,
        result: Result<T, E>,
    ) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(e) => {
                self.push(field, e.to_string());
                None
            }
        }
    }

    /// Whether `field` is already reported.
    /// Whether `field`, or a field inside it (`price.amount` for `price`), was reported.
    pub fn has(&self, field: &str) -> bool {
        self.0.iter().any(|f| {
            f.field
                .strip_prefix(field)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_result(self) -> Result<(), Self> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self)
        }
    }
}
