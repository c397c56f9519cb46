//! `cargo xtask sign --key 0x…`: EIP-191-signs stdin exactly as a wallet's
//! `personal_sign` would, for trying wallet verification from a shell.
//! `cargo xtask sign --typed-data --key 0x…`: signs the EIP-3009 `ReceiveWithAuthorization`
//! typed data on stdin (what `GET /pay/:id/authorization` answers, or its `typed_data`) as
//! `eth_signTypedData_v4` would, for trying one-signature payments from a shell.

use std::io::Read;

use serde_json::Value;
use stablepay_domain::rules::eip191;
use stablepay_domain::rules::eip3009::{ReceiveAuthorization, TokenDomain};
use stablepay_domain::Address;

const USAGE: &str =
    "usage: cargo xtask sign [--typed-data] --key 0x<private key>   (input on stdin)";

pub fn run(args: &[String]) -> Result<(), String> {
    let (typed, key) = match args {
        [flag, key] if flag == "--key" => (false, key),
        [typed, flag, key] if typed == "--typed-data" && flag == "--key" => (true, key),
        _ => return Err(USAGE.into()),
    };
    let mut raw = [0u8; 32];
    hex::decode_to_slice(key.trim_start_matches("0x"), &mut raw)
        .map_err(|_| "--key must be 32 bytes of hex")?;
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    let address =
        eip191::address_of_private_key(&raw).ok_or("not a valid secp256k1 private key")?;
    let signature = if typed {
        let json: Value = serde_json::from_slice(&input).map_err(|e| format!("stdin: {e}"))?;
        let typed = json.get("typed_data").unwrap_or(&json);
        let digest = receive_authorization_digest(typed)?;
        eprintln!("signed ReceiveWithAuthorization as {address}");
        eip191::sign_hash(&digest, &raw)
    } else {
        eprintln!("signed {} bytes as {address}", input.len());
        eip191::sign(&input, &raw)
    };
    println!("{}", signature.ok_or("signing failed")?.to_hex());
    Ok(())
}

/// The EIP-712 digest of a `ReceiveWithAuthorization` typed-data document.
fn receive_authorization_digest(typed: &Value) -> Result<[u8; 32], String> {
    if typed["primaryType"] != "ReceiveWithAuthorization" {
        return Err("only ReceiveWithAuthorization typed data is supported".into());
    }
    let (d, m) = (&typed["domain"], &typed["message"]);
    let text = |v: &Value, what: &str| {
        v.as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("typed data: `{what}` is missing"))
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
        .ok_or_else(|| format!("typed data: `{what}` is not a number"))
    };
    let domain = TokenDomain {
        name: text(&d["name"], "domain.name")?,
        version: text(&d["version"], "domain.version")?,
        chain_id: u64::try_from(number(&d["chainId"], "domain.chainId")?)
            .map_err(|e| e.to_string())?,
        token: address(&d["verifyingContract"], "domain.verifyingContract")?,
    };
    let seconds = |v: &Value, what: &str| {
        u64::try_from(number(v, what)?).map_err(|_| format!("{what} is beyond u64"))
    };
    let nonce = hex::decode(text(&m["nonce"], "message.nonce")?.trim_start_matches("0x"))
        .ok()
        .and_then(|n| <[u8; 32]>::try_from(n).ok())
        .ok_or("message.nonce must be 32 bytes of hex")?;
    let authorization = ReceiveAuthorization {
        from: address(&m["from"], "message.from")?,
        to: address(&m["to"], "message.to")?,
        value: number(&m["value"], "message.value")?,
        valid_after: seconds(&m["validAfter"], "message.validAfter")?,
        valid_before: seconds(&m["validBefore"], "message.validBefore")?,
        nonce,
    };
    Ok(authorization.digest(&domain))
}
