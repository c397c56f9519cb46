//! Pure functions: fee arithmetic, field validation, signatures.

pub mod eip191;
pub mod fees;
pub mod validation;
pub mod webhook_signing;
