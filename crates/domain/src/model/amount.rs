//! Money (D1): integer micro-units inside, canonical decimal strings outside.

use std::fmt;

/// Micro-units per whole unit (USDC, USDT and EURC have 6 decimals).
pub const MICROS_PER_UNIT: u64 = 1_000_000;
/// Largest accepted amount: 1,000,000,000 units.
pub const MAX_MICROS: u64 = 1_000_000_000 * MICROS_PER_UNIT;

/// A strictly positive amount of a 6-decimal stablecoin, in micro-units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount(u64);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmountError {
    #[error("must be a decimal string such as \"10\", \"10.5\" or \"0.25\"")]
    Malformed,
    #[error("must have at most 6 decimal places")]
    TooPrecise,
    #[error("must be greater than 0")]
    NotPositive,
    #[error("must be at most 1000000000")]
    TooLarge,
}

impl Amount {
    /// Parses a plain decimal string: digits, optionally `.` and 1–6 fraction digits.
    /// No sign, exponent, spaces or separators.
    pub fn parse(s: &str) -> Result<Self, AmountError> {
        Self::from_micros(parse_plain_micros(s)?)
    }

    /// Wraps micro-units, enforcing `0 < micros <= MAX_MICROS`.
    pub fn from_micros(micros: u64) -> Result<Self, AmountError> {
        match micros {
            0 => Err(AmountError::NotPositive),
            m if m > MAX_MICROS => Err(AmountError::TooLarge),
            m => Ok(Self(m)),
        }
    }

    pub fn micros(self) -> u64 {
        self.0
    }
}

/// Renders micro-units canonically ("10", "10.5", "0.1025"); zero renders as "0".
pub fn render_micros(micros: u64) -> String {
    let whole = micros / MICROS_PER_UNIT;
    let frac = micros % MICROS_PER_UNIT;
    if frac == 0 {
        whole.to_string()
    } else {
        let digits = format!("{frac:06}");
        format!("{whole}.{}", digits.trim_end_matches('0'))
    }
}

/// A plain decimal string (digits, optionally `.` and 1–6 fraction digits, at most 10
/// whole digits; no sign, exponent, spaces or separators) in micro-units, 0 included.
fn parse_plain_micros(s: &str) -> Result<u64, AmountError> {
    let (whole, frac) = match s.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (s, None),
    };
    let all_digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(whole) || frac.is_some_and(|f| !all_digits(f)) {
        return Err(AmountError::Malformed);
    }
    let frac = frac.unwrap_or("");
    if frac.len() > 6 {
        return Err(AmountError::TooPrecise);
    }
    // Strip leading zeros so long zero-padded inputs don't overflow the check below.
    let whole = whole.trim_start_matches('0');
    if whole.len() > 10 {
        return Err(AmountError::TooLarge);
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| AmountError::Malformed)?
    };
    let mut frac_micros: u64 = 0;
    for (i, b) in frac.bytes().enumerate() {
        frac_micros += u64::from(b - b'0') * 10u64.pow(5 - i as u32);
    }
    whole
        .checked_mul(MICROS_PER_UNIT)
        .and_then(|w| w.checked_add(frac_micros))
        .ok_or(AmountError::TooLarge)
}

/// A signed decimal string as the ledger writes it ("-3", "12.5", "0") in micro-units:
/// `render_signed_micros` read back, for whoever sums an export.
pub fn parse_signed_micros(s: &str) -> Result<i64, AmountError> {
    let (negative, digits) = s.strip_prefix('-').map_or((false, s), |rest| (true, rest));
    // At most 10 whole digits: well inside i64.
    let micros = parse_plain_micros(digits)? as i64;
    Ok(if negative { -micros } else { micros })
}

/// Signed micro-units as a decimal string: "-3", "12.5", "0".
pub fn render_signed_micros(micros: i64) -> String {
    let digits = render_micros(micros.unsigned_abs());
    if micros < 0 {
        format!("-{digits}")
    } else {
        digits
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render_micros(self.0))
    }
}

impl serde::Serialize for Amount {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl utoipa::PartialSchema for Amount {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::representation::schema::pattern_string(
            crate::representation::schema::DECIMAL_PATTERN,
            "A token amount as a decimal string (at most 6 decimal places), never a JSON number.",
            "12.5",
        )
    }
}

impl utoipa::ToSchema for Amount {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn signed_amounts_render_as_exact_decimal_strings() {
        assert_eq!(render_signed_micros(-3_000_000), "-3");
        assert_eq!(render_signed_micros(12_500_000), "12.5");
        assert_eq!(render_signed_micros(-10_000), "-0.01");
        assert_eq!(render_signed_micros(0), "0");
        assert_eq!(render_signed_micros(i64::MIN), "-9223372036854.775808");
    }

    #[test]
    fn signed_amounts_read_back_exactly() {
        assert_eq!(parse_signed_micros("12.375999"), Ok(12_375_999));
        assert_eq!(parse_signed_micros("-3"), Ok(-3_000_000));
        assert_eq!(parse_signed_micros("0.5"), Ok(500_000));
        assert_eq!(parse_signed_micros("0"), Ok(0));
        assert!(parse_signed_micros("1.0000001").is_err());
        assert!(parse_signed_micros("").is_err());
        assert!(parse_signed_micros("--1").is_err());
        for m in [-12_500_000, -10_000, 0, 1, 999_999_999_999_999] {
            assert_eq!(parse_signed_micros(&render_signed_micros(m)), Ok(m));
        }
    }

    #[test]
    fn parses_the_shapes_the_spec_names() {
        assert_eq!(Amount::parse("10").unwrap().micros(), 10_000_000);
        assert_eq!(Amount::parse("10.5").unwrap().micros(), 10_500_000);
        assert_eq!(Amount::parse("10.25").unwrap().micros(), 10_250_000);
        assert_eq!(Amount::parse("0.000001").unwrap().micros(), 1);
        assert_eq!(Amount::parse("1000000000").unwrap().micros(), MAX_MICROS);
        assert_eq!(Amount::parse("007.50").unwrap().to_string(), "7.5");
    }

    #[test]
    fn rejects_everything_else() {
        for bad in [
            "", ".", "1.", ".5", "-1", "+1", "1e6", " 1", "1 ", "1,000", "0x10", "١", "1.2.3",
        ] {
            assert_eq!(Amount::parse(bad), Err(AmountError::Malformed), "{bad:?}");
        }
        assert_eq!(Amount::parse("1.0000001"), Err(AmountError::TooPrecise));
        assert_eq!(Amount::parse("0"), Err(AmountError::NotPositive));
        assert_eq!(Amount::parse("0.000000"), Err(AmountError::NotPositive));
        assert_eq!(
            Amount::parse("1000000000.000001"),
            Err(AmountError::TooLarge)
        );
        assert_eq!(
            Amount::parse("99999999999999999999999"),
            Err(AmountError::TooLarge)
        );
    }

    #[test]
    fn renders_canonically() {
        assert_eq!(render_micros(10_000_000), "10");
        assert_eq!(render_micros(10_500_000), "10.5");
        assert_eq!(render_micros(102_500), "0.1025");
        assert_eq!(render_micros(0), "0");
    }

    proptest! {
        #[test]
        fn parse_render_round_trips(m in 1..=MAX_MICROS) {
            let a = Amount::from_micros(m).unwrap();
            prop_assert_eq!(Amount::parse(&a.to_string()), Ok(a));
        }

        #[test]
        fn more_than_six_decimals_never_parse(whole in 0u64..1_000_000, frac in "[0-9]{7,12}") {
            prop_assert_eq!(Amount::parse(&format!("{whole}.{frac}")), Err(AmountError::TooPrecise));
        }
    }
}
