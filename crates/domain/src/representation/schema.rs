//! OpenAPI schemas of the value types whose JSON form is written by hand (ids, amounts,
//! addresses, times, vocabularies), so the generated document says exactly what
//! `Serialize` writes. The resources derive theirs.

use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaFormat, SchemaType, Type};
use utoipa::openapi::{KnownFormat, RefOr};

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(SchemaType::Type(Type::String))
}

/// A string matching `pattern`, described and with one example.
pub fn pattern_string(pattern: &str, description: &str, example: &str) -> RefOr<Schema> {
    string()
        .pattern(Some(pattern))
        .description(Some(description))
        .examples([example])
        .into()
}

/// `prefix_` and the base62 of a 128-bit id (D3).
pub fn id_string(prefix: &str, noun: &str) -> RefOr<Schema> {
    string()
        .pattern(Some(format!("^{prefix}_[0-9A-Za-z]{{1,22}}$")))
        .description(Some(format!("A {noun} id (`{prefix}_…`).")))
        .examples([format!("{prefix}_7Q3j8bX2kLmN4pR9sT1vWy")])
        .into()
}

/// One of a fixed set of strings.
pub fn string_enum<'a>(
    values: impl IntoIterator<Item = &'a str>,
    description: &str,
) -> RefOr<Schema> {
    string()
        .enum_values(Some(values))
        .description(Some(description))
        .into()
}

/// An RFC 3339 UTC time with milliseconds, as every `*_at` field renders it.
pub fn timestamp() -> RefOr<Schema> {
    string()
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
        .description(Some("An RFC 3339 time in UTC with milliseconds."))
        .examples(["2026-11-24T09:30:00.000Z"])
        .into()
}

/// Decimal strings of token units: never JSON numbers (money is exact). Leading zeros
/// are accepted on input (`Amount::parse` reads "012.5"), never written.
pub const DECIMAL_PATTERN: &str = r"^[0-9]+(\.[0-9]{1,6})?$";

/// An integer drawn from a fixed set.
pub fn integer_enum(values: &[u64], description: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::Integer))
        .enum_values(Some(values.iter().copied()))
        .description(Some(description))
        .into()
}
