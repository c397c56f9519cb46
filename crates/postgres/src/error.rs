//! The one place storage errors become domain `StoreError`s.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use stablepay_domain::ports::StoreError;

pub fn map_diesel_error(e: DieselError) -> StoreError {
    match e {
        DieselError::NotFound => StoreError::NotFound,
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            StoreError::Conflict(info.constraint_name().unwrap_or("unique").to_owned())
        }
        DieselError::DatabaseError(DatabaseErrorKind::SerializationFailure, _) => {
            StoreError::Conflict("serialization failure".into())
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
