//! EIP-3009 `ReceiveWithAuthorization` as Circle's FiatToken v2.2 (real USDC on Base)
//! defines it (D23): the typed data a wallet signs with `eth_signTypedData_v4`, its digest,
//! and who signed it. The token's EIP-712 domain is {name, version, chainId,
//! verifyingContract}, with the token's own name and version ("2" for USDC).

use serde_json::{json, Value};

use crate::model::{Address, Signature};
use crate::rules::eip191;
use crate::rules::eip712::{keccak, word_address, word_uint, PaymentIntent};

const DOMAIN_TYPE: &str =
    "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)";
const RECEIVE_TYPE: &str = "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)";
const TRANSFER_TYPE: &str = "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)";

/// A token's EIP-712 domain, as its `DOMAIN_SEPARATOR()` commits to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenDomain {
    pub name: String,
    pub version: String,
    pub chain_id: u64,
    pub token: Address,
}

impl TokenDomain {
    pub fn separator(&self) -> [u8; 32] {
        let words = [
            keccak(DOMAIN_TYPE.as_bytes()),
            keccak(self.name.as_bytes()),
            keccak(self.version.as_bytes()),
            word_uint(u128::from(self.chain_id)),
            word_address(&self.token),
        ];
        keccak(&words.concat())
    }
}

/// `receiveWithAuthorization(from, to, value, validAfter, validBefore, nonce, signature)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiveAuthorization {
    pub from: Address,
    /// The payee, which must also be the caller: the `CheckoutRouter`.
    pub to: Address,
    /// Token base units.
    pub value: u128,
    pub valid_after: u64,
    pub valid_before: u64,
    /// The session's ref (D23): one signature pays one session only.
    pub nonce: [u8; 32],
}

impl ReceiveAuthorization {
    /// What a payer signs to pay `intent` through `router` (D23): net + fee to the router,
    /// valid until the intent's deadline, with the session ref as its nonce.
    pub fn paying(payer: Address, router: Address, intent: &PaymentIntent) -> Self {
        Self {
            from: payer,
            to: router,
            value: intent.net_amount + intent.fee_amount,
            valid_after: 0,
            valid_before: intent.deadline,
            nonce: intent.reference,
        }
    }

    pub fn struct_hash(&self) -> [u8; 32] {
        authorization_hash(RECEIVE_TYPE, self)
    }

    /// The EIP-712 digest the payer signs.
    pub fn digest(&self, domain: &TokenDomain) -> [u8; 32] {
        typed_digest(domain, &self.struct_hash())
    }

    /// Exactly what `eth_signTypedData_v4` takes (integers as decimal strings, addresses
    /// checksummed, the nonce as 0x-hex).
    pub fn typed_data(&self, domain: &TokenDomain) -> Value {
        let field = |name: &str, ty: &str| json!({ "name": name, "type": ty });
        json!({
            "types": {
                "EIP712Domain": [
                    field("name", "string"),
                    field("version", "string"),
                    field("chainId", "uint256"),
                    field("verifyingContract", "address"),
                ],
                "ReceiveWithAuthorization": [
                    field("from", "address"),
                    field("to", "address"),
                    field("value", "uint256"),
                    field("validAfter", "uint256"),
                    field("validBefore", "uint256"),
                    field("nonce", "bytes32"),
                ],
            },
            "primaryType": "ReceiveWithAuthorization",
            "domain": {
                "name": domain.name,
                "version": domain.version,
                // A number, as wallets compare it with the connected chain.
                "chainId": domain.chain_id,
                "verifyingContract": domain.token.to_string(),
            },
            "message": {
                "from": self.from.to_string(),
                "to": self.to.to_string(),
                "value": self.value.to_string(),
                "validAfter": self.valid_after.to_string(),
                "validBefore": self.valid_before.to_string(),
                "nonce": format!("0x{}", hex::encode(self.nonce)),
            },
        })
    }

    /// The domain and authorization of a `ReceiveWithAuthorization` typed-data document, as
    /// `typed_data` writes it (integers as numbers or decimal strings): what a wallet, or a
    /// tool standing in for one, signs.
    pub fn from_typed_data(typed: &Value) -> Result<(TokenDomain, Self), String> {
        if typed["primaryType"] != "ReceiveWithAuthorization" {
            return Err("primaryType must be ReceiveWithAuthorization".into());
        }
        let (d, m) = (&typed["domain"], &typed["message"]);
        let text = |v: &Value, what: &str| {
            v.as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("`{what}` is missing"))
        };
        let address = |v: &Value, what: &str| {
            Address::parse(&text(v, what)?.to_lowercase()).map_err(|e| format!("{what}: {e}"))
        };
        let number = |v: &Value, what: &str| -> Result<u128, String> {
            match v {
                Value::Number(n) => n.as_u64().map(u128::from),
                Value::String(s) => s.parse().ok(),
                _ => None,
            }
            .ok_or_else(|| format!("`{what}` is not a number"))
        };
        let seconds = |v: &Value, what: &str| {
            u64::try_from(number(v, what)?).map_err(|_| format!("{what} is beyond u64"))
        };
        let nonce = hex::decode(text(&m["nonce"], "message.nonce")?.trim_start_matches("0x"))
            .ok()
            .and_then(|n| <[u8; 32]>::try_from(n).ok())
            .ok_or("message.nonce must be 32 bytes of hex")?;
        let domain = TokenDomain {
            name: text(&d["name"], "domain.name")?,
            version: text(&d["version"], "domain.version")?,
            chain_id: seconds(&d["chainId"], "domain.chainId")?,
            token: address(&d["verifyingContract"], "domain.verifyingContract")?,
        };
        let authorization = Self {
            from: address(&m["from"], "message.from")?,
            to: address(&m["to"], "message.to")?,
            value: number(&m["value"], "message.value")?,
            valid_after: seconds(&m["validAfter"], "message.validAfter")?,
            valid_before: seconds(&m["validBefore"], "message.validBefore")?,
            nonce,
        };
        Ok((domain, authorization))
    }

    /// Whether `signature` is `from`'s signature of this authorization (an EOA's: a
    /// smart-contract payer is checked on-chain by the simulation instead).
    pub fn signed_by_payer(&self, domain: &TokenDomain, signature: &Signature) -> bool {
        eip191::recover_hash(&self.digest(domain), signature) == Some(self.from)
    }
}

/// `transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, signature)`:
/// the same fields as `ReceiveAuthorization` under another type name, callable by anyone
/// (x402's "exact" scheme, D29: the relayer sends it to a session's deposit address).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferAuthorization {
    pub from: Address,
    pub to: Address,
    /// Token base units.
    pub value: u128,
    pub valid_after: u64,
    pub valid_before: u64,
    /// Chosen by the payer (x402 clients draw 32 random bytes).
    pub nonce: [u8; 32],
}

impl TransferAuthorization {
    pub fn struct_hash(&self) -> [u8; 32] {
        let as_fields = ReceiveAuthorization {
            from: self.from,
            to: self.to,
            value: self.value,
            valid_after: self.valid_after,
            valid_before: self.valid_before,
            nonce: self.nonce,
        };
        authorization_hash(TRANSFER_TYPE, &as_fields)
    }

    pub fn digest(&self, domain: &TokenDomain) -> [u8; 32] {
        typed_digest(domain, &self.struct_hash())
    }

    /// Whether `signature` is `from`'s (an EOA's; a contract payer's is left to the
    /// simulation, as for `ReceiveAuthorization`).
    pub fn signed_by_payer(&self, domain: &TokenDomain, signature: &Signature) -> bool {
        eip191::recover_hash(&self.digest(domain), signature) == Some(self.from)
    }
}

fn authorization_hash(type_string: &str, a: &ReceiveAuthorization) -> [u8; 32] {
    let words = [
        keccak(type_string.as_bytes()),
        word_address(&a.from),
        word_address(&a.to),
        word_uint(a.value),
        word_uint(u128::from(a.valid_after)),
        word_uint(u128::from(a.valid_before)),
        a.nonce,
    ];
    keccak(&words.concat())
}

fn typed_digest(domain: &TokenDomain, struct_hash: &[u8; 32]) -> [u8; 32] {
    let mut bytes = Vec::with_capacity(66);
    bytes.extend_from_slice(b"\x19\x01");
    bytes.extend_from_slice(&domain.separator());
    bytes.extend_from_slice(struct_hash);
    keccak(&bytes)
}

/// The signature as FiatToken checks it: v = 27/28 (a wallet's 0/1 is the same signature).
pub fn on_chain_signature(signature: &Signature) -> Signature {
    let mut bytes = signature.as_bytes().to_vec();
    if let Some(v @ (0 | 1)) = bytes.last().copied() {
        if let Some(last) = bytes.last_mut() {
            *last = v + 27;
        }
    }
    Signature::from_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn authorization() -> (TokenDomain, ReceiveAuthorization) {
        let key = [0x42u8; 32];
        let domain = TokenDomain {
            name: "USD Coin".into(),
            version: "2".into(),
            chain_id: 84532,
            token: Address::from_bytes([0xaa; 20]),
        };
        let auth = ReceiveAuthorization {
            from: eip191::address_of_private_key(&key).unwrap(),
            to: Address::from_bytes([0xbb; 20]),
            value: 12_500_000,
            valid_after: 0,
            valid_before: 1_900_000_000,
            nonce: [0x11; 32],
        };
        (domain, auth)
    }

    #[test]
    fn the_payers_signature_is_recognised_and_nobody_elses() {
        let (domain, auth) = authorization();
        let sig = eip191::sign_hash(&auth.digest(&domain), &[0x42u8; 32]).unwrap();
        assert!(auth.signed_by_payer(&domain, &sig));
        let other = eip191::sign_hash(&auth.digest(&domain), &[0x43u8; 32]).unwrap();
        assert!(!auth.signed_by_payer(&domain, &other));
        // Bound to every field and to the domain.
        let more = ReceiveAuthorization {
            value: auth.value + 1,
            ..auth.clone()
        };
        assert!(!more.signed_by_payer(&domain, &sig));
        let elsewhere = TokenDomain {
            chain_id: 8453,
            ..domain.clone()
        };
        assert!(!auth.signed_by_payer(&elsewhere, &sig));
        // v = 0/1 from a wallet is the same signature, sent on-chain as 27/28.
        let mut low_v = sig.as_bytes().to_vec();
        low_v[64] -= 27;
        let low_v = Signature::from_bytes(low_v);
        assert!(auth.signed_by_payer(&domain, &low_v));
        assert_eq!(on_chain_signature(&low_v), sig);
    }

    #[test]
    fn typed_data_is_what_eth_sign_typed_data_v4_takes() {
        let (domain, auth) = authorization();
        let td = auth.typed_data(&domain);
        assert_eq!(td["primaryType"], "ReceiveWithAuthorization");
        assert_eq!(td["domain"]["version"], "2");
        assert_eq!(td["domain"]["chainId"], 84532);
        assert_eq!(td["message"]["value"], "12500000");
        assert_eq!(td["message"]["nonce"], format!("0x{}", "11".repeat(32)));
        let fields: Vec<&str> = td["types"]["ReceiveWithAuthorization"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            fields,
            ["from", "to", "value", "validAfter", "validBefore", "nonce"]
        );
        assert_eq!(
            ReceiveAuthorization::from_typed_data(&td),
            Ok((domain, auth))
        );
    }

    /// Vectors signed outside this project (Python eth-account; see the file's note).
    #[test]
    fn signatures_from_an_outside_library_are_recognised() {
        let file: Value =
            serde_json::from_str(include_str!("../../../../contracts/vectors/eip3009.json"))
                .unwrap();
        let v = &file["vectors"]["receiveWithAuthorization"];
        let m = &v["typedData"]["message"];
        let addr = |v: &Value| Address::parse(&v.as_str().unwrap().to_lowercase()).unwrap();
        let hex32 = |v: &Value| -> [u8; 32] {
            hex::decode(v.as_str().unwrap().trim_start_matches("0x"))
                .unwrap()
                .try_into()
                .unwrap()
        };
        let d = &file["domain"];
        let domain = TokenDomain {
            name: d["name"].as_str().unwrap().into(),
            version: d["version"].as_str().unwrap().into(),
            chain_id: d["chainId"].as_u64().unwrap(),
            token: addr(&d["verifyingContract"]),
        };
        assert_eq!(domain.separator(), hex32(&file["domainSeparator"]));
        let auth = ReceiveAuthorization {
            from: addr(&m["from"]),
            to: addr(&m["to"]),
            value: m["value"].as_str().unwrap().parse().unwrap(),
            valid_after: m["validAfter"].as_str().unwrap().parse().unwrap(),
            valid_before: m["validBefore"].as_str().unwrap().parse().unwrap(),
            nonce: hex32(&m["nonce"]),
        };
        assert_eq!(auth.struct_hash(), hex32(&v["structHash"]));
        assert_eq!(auth.digest(&domain), hex32(&v["digest"]));
        assert_eq!(auth.typed_data(&domain)["message"], *m);
        assert_eq!(auth.typed_data(&domain)["types"], v["typedData"]["types"]);
        let sig = Signature::parse(v["signature"].as_str().unwrap()).unwrap();
        assert!(auth.signed_by_payer(&domain, &sig));
        assert_eq!(auth.from, addr(&file["signer"]["address"]));

        let v = &file["vectors"]["transferWithAuthorization"];
        let m = &v["typedData"]["message"];
        let transfer = TransferAuthorization {
            from: addr(&m["from"]),
            to: addr(&m["to"]),
            value: m["value"].as_str().unwrap().parse().unwrap(),
            valid_after: m["validAfter"].as_str().unwrap().parse().unwrap(),
            valid_before: m["validBefore"].as_str().unwrap().parse().unwrap(),
            nonce: hex32(&m["nonce"]),
        };
        assert_eq!(transfer.struct_hash(), hex32(&v["structHash"]));
        assert_eq!(transfer.digest(&domain), hex32(&v["digest"]));
        let sig = Signature::parse(v["signature"].as_str().unwrap()).unwrap();
        assert!(transfer.signed_by_payer(&domain, &sig));
    }
}
