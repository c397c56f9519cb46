//! Resource ids (D3): UUIDv7 inside, `prefix_` + 22 fixed-width base62 characters outside.
//!
//! UUIDv7 sorts by creation time, so `ORDER BY id DESC` is newest first and the id itself
//! is the pagination cursor. Anything that does not parse (wrong prefix, wrong length,
//! synthetic `cs_test_…` ids) is simply "no such resource".

use std::fmt;
use std::str::FromStr;

use uuid::Uuid;

use super::Timestamp;

/// The base62 digits in value order (ids, API key and signing-secret bodies).
const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// 62^22 > 2^128, so 22 digits hold any UUID.
const WIDTH: usize = 22;

/// `len` random base62 characters from the thread's CSPRNG (secret bodies).
pub fn random_base62(len: usize) -> String {
    use rand::Rng;
    let mut rng = rand::thread_rng();
    (0..len)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
        .collect()
}

/// 62^10, the largest power of 62 below 2^64: a u128 splits into two 10-digit u64 chunks
/// and a 2-digit rest, so rendering takes two 128-bit divisions instead of 44 (it runs for
/// every id of every response).
const CHUNK: u128 = 839_299_365_868_340_224;

/// Renders a u128 as exactly 22 base62 digits (left-padded with `0`).
pub fn base62_encode(value: u128) -> String {
    let mut out = [b'0'; WIDTH];
    let (high, low) = (value / CHUNK, (value % CHUNK) as u64);
    let (top, middle) = ((high / CHUNK) as u64, (high % CHUNK) as u64);
    for (digits, mut chunk) in out.rchunks_mut(10).zip([low, middle, top]) {
        for slot in digits.iter_mut().rev() {
            *slot = ALPHABET[(chunk % 62) as usize];
            chunk /= 62;
        }
    }
    out.iter().map(|&b| b as char).collect()
}

/// Parses exactly 22 base62 digits; `None` on any other input or on overflow.
pub fn base62_decode(s: &str) -> Option<u128> {
    if s.len() != WIDTH {
        return None;
    }
    s.bytes().try_fold(0u128, |acc, b| {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'A'..=b'Z' => b - b'A' + 10,
            b'a'..=b'z' => b - b'a' + 36,
            _ => return None,
        };
        acc.checked_mul(62)?.checked_add(u128::from(digit))
    })
}

/// A UUIDv7 whose millisecond is exactly `at`'s, so an id sorts where its `created_at`
/// does (D3: `ORDER BY id DESC` is newest first). `Uuid::now_v7` reads the system clock
/// again and never goes back, so under concurrency an id could sort after a row stamped a
/// millisecond later. After the millisecond come 42 bits of a process-wide count (from a
/// random start), so ids this process makes at the same time keep the order they were
/// made in, whatever other times it stamps in between, then 32 random bits.
fn uuid_v7_at(at: Timestamp) -> Uuid {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static START: OnceLock<u64> = OnceLock::new();
    static MADE: AtomicU64 = AtomicU64::new(0);
    let start = *START.get_or_init(|| rand::random::<u64>() >> 24);
    let count =
        u128::from(start.wrapping_add(MADE.fetch_add(1, Ordering::Relaxed)) & ((1 << 42) - 1));
    let ms = u128::from(
        u64::try_from(at.as_datetime().timestamp_millis()).unwrap_or(0) & ((1 << 48) - 1),
    );
    let tail = count << 32 | u128::from(rand::random::<u32>());
    let (rand_a, rand_b) = (tail >> 62, tail & ((1 << 62) - 1));
    Uuid::from_u128(ms << 80 | 0x7 << 76 | rand_a << 64 | 0b10 << 62 | rand_b)
}

/// The id string did not parse as this kind of id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not a valid {prefix}_ id")]
pub struct IdError {
    pub prefix: &'static str,
    pub value: String,
}

/// What every resource id offers generically (pagination cursors, id filters).
pub trait TypedId: Sized + Copy {
    /// The prefix without its underscore (`cs`, `pay`, …).
    const PREFIX: &'static str;
    /// What the id names, for messages (`checkout session`, `payment`, …).
    const NOUN: &'static str;
    fn parse_str(s: &str) -> Result<Self, IdError>;
    fn as_uuid(&self) -> Uuid;
}

macro_rules! resource_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal, $noun:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Uuid);

        impl $name {
            pub const PREFIX: &'static str = $prefix;

            /// A fresh id stamped with the wall clock (tests, operator commands).
            pub fn generate() -> Self {
                Self::generate_at(Timestamp::new(chrono::Utc::now()))
            }

            /// A fresh id that sorts at `at`: pass the `created_at` it is stored with.
            pub fn generate_at(at: Timestamp) -> Self {
                Self(uuid_v7_at(at))
            }

            pub fn from_uuid(uuid: Uuid) -> Self {
                Self(uuid)
            }

            pub fn uuid(&self) -> Uuid {
                self.0
            }

            pub fn parse(s: &str) -> Result<Self, IdError> {
                s.strip_prefix(concat!($prefix, "_"))
                    .and_then(base62_decode)
                    .map(|n| Self(Uuid::from_u128(n)))
                    .ok_or_else(|| IdError { prefix: $prefix, value: s.to_owned() })
            }
        }

        impl TypedId for $name {
            const PREFIX: &'static str = $prefix;
            const NOUN: &'static str = $noun;

            fn parse_str(s: &str) -> Result<Self, IdError> {
                Self::parse(s)
            }

            fn as_uuid(&self) -> Uuid {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}_{}", $prefix, base62_encode(self.0.as_u128()))
            }
        }

        impl FromStr for $name {
            type Err = IdError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                crate::representation::schema::id_string($prefix, $noun)
            }
        }

        impl utoipa::ToSchema for $name {}
    };
}

resource_id!(/// `cs_…` checkout session.
    CheckoutSessionId, "cs", "checkout session");
resource_id!(/// `plink_…` reusable payment link (D34).
    PaymentLinkId, "plink", "payment link");
resource_id!(/// `pay_…` payment.
    PaymentId, "pay", "payment");
resource_id!(/// `cus_…` customer (D7).
    CustomerId, "cus", "customer");
resource_id!(/// `re_…` refund.
    RefundId, "re", "refund");
resource_id!(/// `rr_…` refund request (D32).
    RefundRequestId, "rr", "refund request");
resource_id!(/// `sub_…` subscription.
    SubscriptionId, "sub", "subscription");
resource_id!(/// `att_…` payment attempt.
    PaymentAttemptId, "att", "payment attempt");
resource_id!(/// `evt_…` webhook event (and envelope id).
    EventId, "evt", "webhook event");
resource_id!(/// `wa_…` webhook delivery attempt.
    WebhookAttemptId, "wa", "webhook attempt");
resource_id!(/// `we_…` webhook endpoint.
    WebhookEndpointId, "we", "webhook endpoint");
resource_id!(/// `mer_…` merchant (operator-facing).
    MerchantId, "mer", "merchant");
resource_id!(/// `wal_…` settlement wallet.
    WalletId, "wal", "wallet");
resource_id!(/// `key_…` API key (operator-facing; never the secret).
    ApiKeyId, "key", "API key");
resource_id!(/// `txn_…` balance transaction, one ledger entry (D32).
    BalanceTransactionId, "txn", "balance transaction");
resource_id!(/// `aud_…` audit log entry (D32).
    AuditEventId, "aud", "audit event");
resource_id!(/// `usr_…` dashboard user (D21).
    DashboardUserId, "usr", "dashboard user");

/// The resource a lookup did not find, named for the 404's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no such {noun}: '{id}'")]
pub struct Missing {
    pub noun: &'static str,
    pub id: String,
}

impl Missing {
    pub fn of<T: TypedId + fmt::Display>(id: T) -> Self {
        Self {
            noun: T::NOUN,
            id: id.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rendered_ids_have_prefix_and_fixed_width() {
        let id = CheckoutSessionId::generate();
        let s = id.to_string();
        assert!(s.starts_with("cs_"));
        assert_eq!(s.len(), 3 + 22);
        assert_eq!(CheckoutSessionId::parse(&s), Ok(id));
    }

    #[test]
    fn wrong_prefix_synthetic_and_garbage_do_not_parse() {
        let pay = PaymentId::generate().to_string();
        assert!(CheckoutSessionId::parse(&pay).is_err());
        assert!(CheckoutSessionId::parse("cs_test_a1b2c3d4e5f6g7h8i9j0kl").is_err());
        assert!(CheckoutSessionId::parse("cs_").is_err());
        assert!(
            CheckoutSessionId::parse("cs_zzzzzzzzzzzzzzzzzzzzzz").is_err(),
            "overflow"
        );
        assert!(CheckoutSessionId::parse("cs_000000000000000000000!").is_err());
    }

    #[test]
    fn later_ids_sort_after_earlier_ones() {
        let a = PaymentId::generate();
        let b = PaymentId::generate();
        assert!(b.uuid() > a.uuid());
        assert!(
            b.to_string() > a.to_string(),
            "base62 alphabet is in ASCII order"
        );
    }

    #[test]
    fn ids_carry_the_millisecond_they_are_made_at_and_no_later_one() {
        let later = Timestamp::new(chrono::Utc::now());
        let earlier = later.plus_seconds(-1);
        // Other tests of this process stamp ids meanwhile; the order holds regardless.
        let a = PaymentId::generate_at(later);
        let b = PaymentId::generate_at(later);
        let c = PaymentId::generate_at(earlier);
        assert!(b.uuid() > a.uuid(), "same millisecond: counted up");
        assert!(
            c.uuid() < a.uuid(),
            "an earlier time sorts earlier, made after or not"
        );
        for (id, at) in [(a, later), (b, later), (c, earlier)] {
            assert_eq!(id.uuid().get_version_num(), 7);
            let (secs, nanos) = id.uuid().get_timestamp().expect("v7").to_unix();
            let ms = i64::try_from(secs).unwrap() * 1000 + i64::from(nanos / 1_000_000);
            assert_eq!(ms, at.as_datetime().timestamp_millis());
        }
    }

    #[test]
    fn base62_renders_the_chunk_edges() {
        for n in [
            0,
            61,
            62,
            CHUNK - 1,
            CHUNK,
            CHUNK * CHUNK - 1,
            CHUNK * CHUNK,
            u128::MAX,
        ] {
            assert_eq!(base62_decode(&base62_encode(n)), Some(n), "{n}");
        }
        assert_eq!(base62_encode(0), "0".repeat(22));
        assert_eq!(base62_encode(62), format!("{}10", "0".repeat(20)));
        assert_eq!(base62_encode(u128::MAX), "7n42DGM5Tflk9n8mt7Fhc7");
    }

    proptest! {
        #[test]
        fn base62_round_trips(n in any::<u128>()) {
            prop_assert_eq!(base62_decode(&base62_encode(n)), Some(n));
        }
    }
}
