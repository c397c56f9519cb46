//! Schemas of request fields whose rules the derive cannot say: fields that accept more
//! than one JSON type, and text, URLs and amounts whose every rule is a pattern. Each
//! pattern accepts exactly what the field's parser accepts (Schemathesis'
//! `positive_data_acceptance` check holds the document to that), so a client can validate
//! a request before sending it.

use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type};
use utoipa::openapi::RefOr;

use stablepay_domain::rules::validation::{
    CUSTOMER_REFERENCE_MAX, DESCRIPTION_MAX, REASON_MAX, TITLE_MAX, URL_MAX,
};

fn of(kind: Type) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(SchemaType::Type(kind))
}

/// `kind` or JSON `null`.
fn nullable(kind: Type) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(SchemaType::from_iter([kind, Type::Null]))
}

pub fn chain_selector() -> Schema {
    OneOfBuilder::new()
        .item(of(Type::Integer).enum_values(Some([8453, 84532])))
        .item(of(Type::String).enum_values(Some(["base", "base-sepolia", "8453", "84532"])))
        .item(of(Type::Null))
        .into()
}

pub fn plan_id() -> Schema {
    OneOfBuilder::new()
        .item(of(Type::String).pattern(Some("^[0-9]{1,39}$")))
        .item(of(Type::Integer).minimum(Some(1)))
        .item(of(Type::Null))
        .into()
}

/// A character text fields accept: anything but a control character other than tab, line
/// feed and carriage return.
const TEXT_CHAR: &str = r"[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]";
/// A text character that is not white space either.
const VISIBLE_CHAR: &str = r"[^\s\u0000-\u001F\u007F-\u009F]";

/// Text of at most `max` characters without control characters; `required_visible` text
/// must also hold something other than white space.
fn text(max: usize, required_visible: bool, description: &str) -> ObjectBuilder {
    let pattern = if required_visible {
        format!("^{TEXT_CHAR}*{VISIBLE_CHAR}{TEXT_CHAR}*$")
    } else {
        format!("^{TEXT_CHAR}*$")
    };
    nullable(Type::String)
        .min_length(required_visible.then_some(1))
        .max_length(Some(max))
        .pattern(Some(pattern))
        .description(Some(description))
}

pub fn title() -> Schema {
    text(
        TITLE_MAX,
        true,
        "Shown to the buyer: not only white space, no control characters.",
    )
    .schema_type(SchemaType::Type(Type::String))
    .into()
}

pub fn description() -> Schema {
    text(DESCRIPTION_MAX, false, "No control characters.").into()
}

pub fn reason() -> Schema {
    text(REASON_MAX, false, "No control characters.").into()
}

pub fn customer_reference() -> Schema {
    text(
        CUSTOMER_REFERENCE_MAX,
        true,
        "Your own id for the buyer: not only white space, no control characters.",
    )
    .into()
}

/// The same rule as a query filter (never `null` there).
pub fn customer_reference_filter() -> RefOr<Schema> {
    text(
        CUSTOMER_REFERENCE_MAX,
        true,
        "Sessions of this customer reference.",
    )
    .schema_type(SchemaType::Type(Type::String))
    .into()
}

/// A host label of at most 63 letters, digits and inner hyphens, starting with a character
/// of `first`, that does not begin `xn--` in any case: such a label is punycode, which the
/// URL parser decodes and refuses when it is invalid, and no pattern can check that
/// (written without lookahead, which not every pattern engine has).
fn label(first: &str) -> String {
    const ANY: &str = "[A-Za-z0-9-]";
    const END: &str = "[A-Za-z0-9]";
    let not_x = first.replace("a-z", "a-wyz").replace("A-Z", "A-WYZ");
    [
        format!("{not_x}(?:{ANY}{{0,61}}{END})?"),
        format!("[Xx](?:[A-MO-Za-mo-z0-9]|[A-MO-Za-mo-z0-9-]{ANY}{{0,60}}{END})?"),
        format!("[Xx][Nn](?:{END}(?:{ANY}{{0,59}}{END})?)?"),
        format!("[Xx][Nn]-{END}(?:{ANY}{{0,58}}{END})?"),
    ]
    .join("|")
}

/// A host name whose last label starts with a letter (a numeric last label would be read
/// as an IPv4 address).
fn host() -> String {
    format!(
        r"(?:(?:{})\.)*(?:{})",
        label("[A-Za-z0-9]"),
        label("[A-Za-z]")
    )
}

const PORT: &str = r"(?::[0-9]{1,4})?";
/// Path, query and fragment, in URL characters (RFC 3986's unreserved, sub-delims, `:@%/?`).
const REST: &str = r"(?:/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)?(?:\?[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*)?(?:#[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*)?";

/// Where the buyer is sent afterwards: an absolute http(s) URL.
pub fn redirect_url() -> Schema {
    nullable(Type::String)
        .max_length(Some(URL_MAX))
        .pattern(Some(format!("^https?://{}{PORT}{REST}$", host())))
        .description(Some("An absolute http(s) URL, at most 2000 characters."))
        .into()
}

/// A webhook target: https, or http to localhost; no credentials.
fn webhook_url_builder() -> ObjectBuilder {
    of(Type::String)
        .max_length(Some(URL_MAX))
        .pattern(Some(format!(
            r"^(?:https://{}|http://(?:localhost|127\.0\.0\.1|\[::1\])){PORT}{REST}$",
            host()
        )))
        .description(Some(
            "An absolute https URL (http only to localhost, 127.0.0.1 or [::1]), without \
             credentials, at most 2000 characters.",
        ))
}

pub fn webhook_url() -> Schema {
    webhook_url_builder().into()
}

pub fn webhook_url_update() -> Schema {
    webhook_url_builder()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .into()
}

/// A request amount: a decimal string above 0 and at most 1,000,000,000 with at most 6
/// decimal places (leading zeros allowed). The alternatives: a whole part of 1–9
/// significant digits; exactly 1000000000; or a zero whole part and a fraction that is
/// not all zeros.
pub const POSITIVE_AMOUNT_PATTERN: &str = concat!(
    r"^(?:0*[1-9][0-9]{0,8}(?:\.[0-9]{1,6})?",
    r"|0*1000000000(?:\.0{1,6})?",
    r"|0+\.(?:[1-9][0-9]{0,5}|0[1-9][0-9]{0,4}|00[1-9][0-9]{0,3}|000[1-9][0-9]{0,2}|0000[1-9][0-9]?|00000[1-9]))$",
);

pub fn positive_amount() -> Schema {
    nullable(Type::String)
        .pattern(Some(POSITIVE_AMOUNT_PATTERN))
        .description(Some(
            "A decimal string above 0 and at most 1000000000, at most 6 decimal places; \
             never a JSON number.",
        ))
        .examples(["12.5"])
        .into()
}

/// `positive_amount` where the amount is required: never null.
pub fn required_positive_amount() -> Schema {
    of(Type::String)
        .pattern(Some(POSITIVE_AMOUNT_PATTERN))
        .description(Some(
            "A decimal string above 0 and at most 1000000000, at most 6 decimal places; \
             never a JSON number.",
        ))
        .examples(["12.5"])
        .into()
}

/// A hex signature: `0x` and 1–2048 bytes.
pub fn signature() -> Schema {
    of(Type::String)
        .pattern(Some("^0x(?:[0-9a-fA-F]{2}){1,2048}$"))
        .description(Some(
            "The signature of the challenge message: 0x and hex bytes (65 for an EOA; \
             any length an ERC-1271 wallet returns, up to 2048).",
        ))
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use stablepay_domain::rules::validation::redirect_url as parse_redirect;
    use stablepay_domain::{Amount, WebhookUrl};

    fn pattern_of(schema: Schema) -> regex::Regex {
        let value = serde_json::to_value(schema).unwrap();
        regex::Regex::new(value["pattern"].as_str().unwrap()).unwrap()
    }

    #[test]
    fn the_amount_pattern_is_the_parser() {
        let re = pattern_of(positive_amount());
        for s in [
            "1",
            "0.000001",
            "000.1",
            "999999999.999999",
            "1000000000",
            "1000000000.000000",
            "0",
            "0.0",
            "000.000000",
            "1000000000.000001",
            "1000000001",
            "1.1234567",
            ".5",
            "5.",
            "1e3",
            "-1",
            " 1",
            "0.0000001",
        ] {
            assert_eq!(re.is_match(s), Amount::parse(s).is_ok(), "{s:?}");
        }
    }

    #[test]
    fn url_patterns_only_match_urls_the_parsers_take() {
        let redirect = pattern_of(redirect_url());
        let webhook = pattern_of(webhook_url());
        for s in [
            "https://shop.example/thanks?order=1#top",
            "http://localhost:3000/ok",
            "https://a.b-c.example:8443/x/y;z=1",
            "http://127.0.0.1:4242/hooks",
            "http://example.com/hooks",
            "https://a.1/",
            "https://user:pw@example.com/",
            "ftp://example.com",
            "",
            "/relative",
            // Punycode: the parser refuses invalid labels; the pattern takes no `xn--`.
            "http://XN-------aaAaA.A",
            "https://a.xn--zz",
            "https://xn--bcher-kva.example/",
        ] {
            if redirect.is_match(s) {
                assert!(parse_redirect(s).is_ok(), "{s:?}");
            }
            if webhook.is_match(s) {
                assert!(WebhookUrl::parse(s).is_ok(), "{s:?}");
            }
        }
        for s in [
            "https://x.example",
            "https://xn.example",
            "https://xna.example",
            "https://xn-a.example",
            "https://x-n.example",
            "https://a.xn",
            "https://9.b",
        ] {
            assert!(redirect.is_match(s), "{s:?}");
            assert!(parse_redirect(s).is_ok(), "{s:?}");
        }
        for s in [
            "https://xn--a.example",
            "https://XN--bcher-kva.example",
            "https://a.xN--b",
        ] {
            assert!(!redirect.is_match(s), "{s:?}");
        }
        assert!(redirect.is_match("https://shop.example/thanks?order=1#top"));
        assert!(webhook.is_match("http://127.0.0.1:4242/hooks"));
        assert!(!webhook.is_match("http://example.com/hooks"));
    }
}

#[cfg(test)]
mod generated {
    //! Strings drawn from each pattern (as a fuzzer draws them) parse.
    use super::*;
    use proptest::prelude::*;
    use proptest::string::string_regex;
    use stablepay_domain::rules::validation::{bounded_text, redirect_url as parse_redirect};
    use stablepay_domain::{Amount, WebhookUrl};

    fn drawn(schema: Schema) -> impl Strategy<Value = String> {
        let value = serde_json::to_value(schema).unwrap();
        let pattern = value["pattern"].as_str().unwrap();
        let unanchored = pattern.trim_start_matches('^').trim_end_matches('$');
        string_regex(unanchored).unwrap()
    }

    proptest! {
        #[test]
        fn amounts(s in drawn(positive_amount())) {
            prop_assert!(Amount::parse(&s).is_ok(), "{s:?}");
        }

        #[test]
        fn redirect_urls(s in drawn(redirect_url())) {
            prop_assume!(s.chars().count() <= URL_MAX);
            prop_assert!(parse_redirect(&s).is_ok(), "{s:?}");
        }

        #[test]
        fn webhook_urls(s in drawn(webhook_url())) {
            prop_assume!(s.chars().count() <= URL_MAX);
            prop_assert!(WebhookUrl::parse(&s).is_ok(), "{s:?}");
        }

        #[test]
        fn titles(s in drawn(title())) {
            prop_assume!(s.chars().count() <= TITLE_MAX);
            prop_assert!(bounded_text(&s, 1, TITLE_MAX).is_ok(), "{s:?}");
        }

        #[test]
        fn descriptions(s in drawn(description())) {
            prop_assume!(s.chars().count() <= DESCRIPTION_MAX);
            prop_assert!(bounded_text(&s, 0, DESCRIPTION_MAX).is_ok(), "{s:?}");
        }
    }
}
