//! The one place storage errors become domain `StoreError`s.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use stablepay_domain::ports::StoreError;

pub fn map_diesel_error(e: DieselError) -> StoreError {
    match e {
        DieselError::NotFound => StoreError::NotFound,
        // Expected duplicates are handled where they can happen (`ON CONFLICT` with a typed
        // outcome); one that reaches here is a bug or an id collision.
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            StoreError::Internal(format!(
                "unique violation on {}",
                info.constraint_name().unwrap_or("a unique index")
            ))
        }
        DieselError::DatabaseError(DatabaseErrorKind::SerializationFailure, _) => {
            StoreError::Contended
        }
        DieselError::DatabaseError(DatabaseErrorKind::ClosedConnection, info) => {
            StoreError::Unavailable(info.message().to_owned())
        }
        other => StoreError::Internal(other.to_string()),
    }
}

pub(crate) fn corrupt(what: &str, value: impl std::fmt::Display) -> StoreError {
    StoreError::Internal(format!("corrupt row: {what} = {value}"))
}
