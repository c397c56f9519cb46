//! Timestamps (D4): UTC, millisecond precision, `YYYY-MM-DDTHH:MM:SS.mmmZ`.

use std::fmt;

use chrono::{DateTime, SubsecRound, Utc};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    /// Truncates to milliseconds so what is stored is exactly what is rendered.
    pub fn new(at: DateTime<Utc>) -> Self {
        Self(at.trunc_subsecs(3))
    }

    /// 1970-01-01T00:00:00Z, the earliest time anything can be.
    pub const UNIX_EPOCH: Self = Self(DateTime::<Utc>::UNIX_EPOCH);

    pub fn as_datetime(&self) -> DateTime<Utc> {
        self.0
    }

    pub fn unix_seconds(&self) -> i64 {
        self.0.timestamp()
    }

    /// A chain time (unix seconds); `None` outside chrono's range.
    pub fn from_unix_seconds(seconds: i64) -> Option<Self> {
        DateTime::from_timestamp(seconds, 0).map(Self)
    }

    /// Exactly an RFC 3339 / ISO 8601 time with an offset (`2026-11-23T10:00:00Z`,
    /// `2026-11-23T11:00:00.250+01:00`), no surrounding spaces, as the API renders,
    /// accepts and documents timestamps.
    pub fn parse(s: &str) -> Option<Self> {
        DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|t| Self::new(t.with_timezone(&Utc)))
    }

    pub fn plus_seconds(&self, seconds: i64) -> Self {
        Self(self.0 + chrono::Duration::seconds(seconds))
    }
}

/// A configured duration: "30", "30s", "500ms", "2m", "1h", "1d". The one grammar every
/// `STABLEPAY_*` duration uses.
pub fn parse_duration(s: &str) -> Option<std::time::Duration> {
    use std::time::Duration;
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: u64 = n.parse().ok()?;
    let secs = match unit {
        "" | "s" => return Some(Duration::from_secs(n)),
        "ms" => return Some(Duration::from_millis(n)),
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    Some(Duration::from_secs(n.checked_mul(secs)?))
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Written field by field: chrono's `format` re-parses its pattern on every call,
        // and every response renders several timestamps per object.
        use chrono::{Datelike, Timelike};
        let t = &self.0;
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            t.year(),
            t.month(),
            t.day(),
            t.hour(),
            t.minute(),
            t.second(),
            t.timestamp_subsec_millis().min(999)
        )
    }
}

impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl utoipa::PartialSchema for Timestamp {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::representation::schema::timestamp()
    }
}

impl utoipa::ToSchema for Timestamp {}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn renders_milliseconds_in_utc() {
        let t = Utc.timestamp_opt(1_700_000_000, 123_456_789).unwrap();
        assert_eq!(Timestamp::new(t).to_string(), "2023-11-14T22:13:20.123Z");
        let whole = Utc.timestamp_opt(1_700_000_000, 0).unwrap();
        assert_eq!(
            Timestamp::new(whole).to_string(),
            "2023-11-14T22:13:20.000Z"
        );
    }
}
