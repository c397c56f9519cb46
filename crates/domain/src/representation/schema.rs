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

/// `prefix_` and the 22 base62 digits of a 128-bit id (D3).
pub fn id_string(prefix: &str, noun: &str) -> RefOr<Schema> {
    string()
        .pattern(Some(format!(
            "^{prefix}_{}$",
            at_most_base62(BASE62_U128_MAX)
        )))
        .description(Some(format!("A {noun} id (`{prefix}_…`).")))
        .examples([format!("{prefix}_7Q3j8bX2kLmN4pR9sT1vWy")])
        .into()
}

/// An EVM address. The custom format `evm-address` names the rule a pattern cannot state:
/// mixed case must be the EIP-55 checksum (`Address::parse`); all-lowercase and
/// all-uppercase hex carry no checksum and are accepted as they are.
pub fn address() -> RefOr<Schema> {
    string()
        .pattern(Some("^0x[0-9a-fA-F]{40}$"))
        .format(Some(SchemaFormat::Custom("evm-address".into())))
        .description(Some(
            "An EVM address: 0x and 40 hex digits. Accepted in lowercase, in uppercase, or in \
             mixed case when that is its EIP-55 checksum (format `evm-address`); always \
             written with the checksum.",
        ))
        .examples(["0x8d12A197cB00D4747a1fe03395095ce2A5CC6819"])
        .into()
}

/// `u128::MAX` in the 22 base62 digits ids are written with.
const BASE62_U128_MAX: &str = "7n42DGM5Tflk9n8mt7Fhc7";
const BASE62_DIGITS: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A regex for the base62 strings of `max`'s width that are at most `max`: ids are fixed
/// width, and a width-22 string above `u128::MAX` is no id (a pattern that let it through
/// would promise the parser accepts it).
fn at_most_base62(max: &str) -> String {
    // The alphabet below `c` as a class of up to three ranges (0-9, A-Z, a-z in order).
    let class_below = |c: char| -> Option<String> {
        let i = BASE62_DIGITS.find(c).filter(|i| *i > 0)?;
        let last = &BASE62_DIGITS[i - 1..i];
        let mut class = format!("[0-{}", if i > 10 { "9" } else { last });
        if i > 10 {
            class += &format!("A-{}", if i > 36 { "Z" } else { last });
        }
        if i > 36 {
            class += &format!("a-{last}");
        }
        Some(class + "]")
    };
    let width = max.len();
    let mut alternatives = Vec::new();
    for (i, c) in max.char_indices() {
        if let Some(class) = class_below(c) {
            let rest = width - i - 1;
            let tail = match rest {
                0 => String::new(),
                n => format!("[0-9A-Za-z]{{{n}}}"),
            };
            alternatives.push(format!("{}{class}{tail}", &max[..i]));
        }
    }
    alternatives.push(max.to_owned());
    format!("(?:{})", alternatives.join("|"))
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parses(digits: &str) -> bool {
        crate::PaymentId::parse(&format!("pay_{digits}")).is_ok()
    }

    fn id_pattern() -> regex::Regex {
        regex::Regex::new(&format!("^{}$", at_most_base62(BASE62_U128_MAX))).unwrap()
    }

    #[test]
    fn the_id_pattern_stops_at_u128_max() {
        let re = id_pattern();
        for (digits, is_id) in [
            ("7n42DGM5Tflk9n8mt7Fhc7", true),
            ("7n42DGM5Tflk9n8mt7Fhc6", true),
            ("7n42DGM5Tflk9n8mt7Fhc8", false),
            ("7n42DGM5Tflk9n8mt7Fhd0", false),
            ("7o0000000000000000000", false),
            ("0000000000000000000000", true),
            ("6zzzzzzzzzzzzzzzzzzzzz", true),
            ("8000000000000000000000", false),
            ("000000000000000000000", false),
        ] {
            assert_eq!(re.is_match(digits), is_id, "{digits}");
            assert_eq!(parses(digits), is_id, "{digits}");
        }
    }

    proptest! {
        #[test]
        fn the_id_pattern_accepts_exactly_what_parses(digits in "[0-7][0-9A-Za-z]{21}") {
            prop_assert_eq!(id_pattern().is_match(&digits), parses(&digits));
        }
    }
}
