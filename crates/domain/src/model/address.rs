//! EVM addresses, transaction hashes and signatures.

use std::fmt;

use sha3::{Digest, Keccak256};

/// A 20-byte EVM address. Accepts any hex case; renders EIP-55 checksummed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Address([u8; 20]);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    #[error("must be a 0x-prefixed 40-character hex address")]
    Malformed,
    #[error("has mixed case but fails the EIP-55 checksum")]
    BadChecksum,
}

impl Address {
    pub fn from_bytes(bytes: [u8; 20]) -> Self {
        Self(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 20] {
        &self.0
    }

    pub fn parse(s: &str) -> Result<Self, AddressError> {
        let hex_part = s.strip_prefix("0x").ok_or(AddressError::Malformed)?;
        if hex_part.len() != 40 {
            return Err(AddressError::Malformed);
        }
        let mut bytes = [0u8; 20];
        hex::decode_to_slice(hex_part, &mut bytes).map_err(|_| AddressError::Malformed)?;
        let address = Self(bytes);
        let has_upper = hex_part.bytes().any(|b| b.is_ascii_uppercase());
        let has_lower = hex_part.bytes().any(|b| b.is_ascii_lowercase());
        if has_upper && has_lower && address.to_checksum() != s {
            return Err(AddressError::BadChecksum);
        }
        Ok(address)
    }

    /// Lowercase `0x…` form, used as the storage key.
    pub fn to_lower_hex(&self) -> String {
        format!("0x{}", hex::encode(self.0))
    }

    /// EIP-55 mixed-case checksum form.
    pub fn to_checksum(&self) -> String {
        let text = self.checksummed();
        std::str::from_utf8(&text).unwrap_or_default().to_owned()
    }

    /// The checksum form's ASCII bytes. A response renders the same few addresses (tokens,
    /// recipients) over and over, and the keccak behind each was 10 % of the api's CPU for
    /// a page of sessions: each thread keeps the last few thousand it rendered.
    fn checksummed(&self) -> [u8; 42] {
        const KEPT: usize = 4096;
        thread_local! {
            static RENDERED: std::cell::RefCell<std::collections::HashMap<[u8; 20], [u8; 42]>> =
                std::cell::RefCell::new(std::collections::HashMap::new());
        }
        if let Some(text) = RENDERED.with(|r| r.borrow().get(&self.0).copied()) {
            return text;
        }
        let text = self.compute_checksummed();
        RENDERED.with(|r| {
            let mut r = r.borrow_mut();
            if r.len() >= KEPT {
                r.clear();
            }
            r.insert(self.0, text);
        });
        text
    }

    fn compute_checksummed(&self) -> [u8; 42] {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut lower = [0u8; 40];
        for (i, b) in self.0.iter().enumerate() {
            lower[2 * i] = HEX[usize::from(b >> 4)];
            lower[2 * i + 1] = HEX[usize::from(b & 0x0f)];
        }
        let hash = Keccak256::digest(lower);
        let mut out = [0u8; 42];
        out[0] = b'0';
        out[1] = b'x';
        for (i, c) in lower.iter().enumerate() {
            let nibble = (hash[i / 2] >> (if i % 2 == 0 { 4 } else { 0 })) & 0x0f;
            out[i + 2] = if c.is_ascii_alphabetic() && nibble >= 8 {
                c.to_ascii_uppercase()
            } else {
                *c
            };
        }
        out
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.checksummed();
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl serde::Serialize for Address {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl utoipa::PartialSchema for Address {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::representation::schema::address()
    }
}

impl utoipa::ToSchema for Address {}

/// A 32-byte hash rendered as `0x` + 64 hex digits (transactions and blocks).
macro_rules! hash32 {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name([u8; 32]);

        impl $name {
            pub fn from_bytes(bytes: [u8; 32]) -> Self {
                Self(bytes)
            }

            pub fn as_bytes(&self) -> &[u8; 32] {
                &self.0
            }

            pub fn parse(s: &str) -> Result<Self, AddressError> {
                let hex_part = s
                    .strip_prefix("0x")
                    .filter(|h| h.len() == 64)
                    .ok_or(AddressError::Malformed)?;
                let mut bytes = [0u8; 32];
                hex::decode_to_slice(hex_part, &mut bytes).map_err(|_| AddressError::Malformed)?;
                Ok(Self(bytes))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "0x{}", hex::encode(self.0))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                crate::representation::schema::pattern_string(
                    "^0x[0-9a-fA-F]{64}$",
                    "A 32-byte hash: 0x and 64 hex digits (written in lowercase).",
                    "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
                )
            }
        }

        impl utoipa::ToSchema for $name {}
    };
}

hash32!(
    /// A transaction hash.
    TxHash
);
hash32!(
    /// A block hash: which fork a recorded block number belonged to.
    BlockHash
);

/// A hex signature (`0x` + bytes). EOA signatures are 65 bytes; ERC-1271 wallets may
/// return any length, so only the shape is checked here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature(Vec<u8>);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be a 0x-prefixed hex signature")]
pub struct SignatureError;

impl Signature {
    pub fn parse(s: &str) -> Result<Self, SignatureError> {
        let hex_part = s.strip_prefix("0x").ok_or(SignatureError)?;
        if hex_part.is_empty() || hex_part.len() > 4096 {
            return Err(SignatureError);
        }
        hex::decode(hex_part).map(Self).map_err(|_| SignatureError)
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn to_hex(&self) -> String {
        format!("0x{}", hex::encode(&self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eip55_vectors() {
        // Vectors from EIP-55.
        for s in [
            "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
            "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
            "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
            "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
        ] {
            let a = Address::parse(s).unwrap();
            assert_eq!(a.to_checksum(), s);
            assert_eq!(Address::parse(&s.to_lowercase()).unwrap(), a);
            // Rendered again (from the thread's kept forms) and through Display: the same.
            assert_eq!(a.to_checksum(), s);
            assert_eq!(a.to_string(), s);
        }
    }

    #[test]
    fn kept_checksums_agree_with_fresh_ones_past_the_cap() {
        // More addresses than a thread keeps, twice over: every answer, kept or not,
        // is the freshly computed one.
        for round in 0..2 {
            for n in 0u32..5000 {
                let mut bytes = [0xa5u8; 20];
                bytes[..4].copy_from_slice(&n.to_be_bytes());
                let a = Address::from_bytes(bytes);
                let fresh = a.compute_checksummed();
                assert_eq!(a.to_checksum().as_bytes(), &fresh[..], "round {round}, {n}");
            }
        }
    }

    #[test]
    fn rejects_bad_addresses() {
        assert_eq!(
            Address::parse("5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"),
            Err(AddressError::Malformed)
        );
        assert_eq!(
            Address::parse("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe"),
            Err(AddressError::Malformed)
        );
        assert_eq!(
            Address::parse("0xzzAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"),
            Err(AddressError::Malformed)
        );
        assert_eq!(
            Address::parse("0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"),
            Err(AddressError::BadChecksum)
        );
    }

    #[test]
    fn tx_hash_and_signature_shapes() {
        let h = format!("0x{}", "ab".repeat(32));
        assert_eq!(TxHash::parse(&h).unwrap().to_string(), h);
        assert!(TxHash::parse("0x1234").is_err());
        assert!(Signature::parse("0x").is_err());
        assert!(Signature::parse("0xzz").is_err());
        assert_eq!(Signature::parse("0x0102").unwrap().as_bytes(), &[1, 2]);
    }
}
