//! `cargo xtask sign --key 0x…`: EIP-191-signs stdin exactly as a wallet's
//! `personal_sign` would, for trying wallet verification from a shell.
//! `cargo xtask sign --typed-data --key 0x…`: signs the EIP-3009 `ReceiveWithAuthorization`
//! typed data on stdin (what `GET /pay/:id/authorization` answers, or its `typed_data`) as
//! `eth_signTypedData_v4` would, for trying one-signature payments from a shell.

use std::io::Read;

use serde_json::Value;
use stablepay_domain::rules::eip191;
use stablepay_domain::rules::eip3009::ReceiveAuthorization;

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
    let (domain, authorization) =
        ReceiveAuthorization::from_typed_data(typed).map_err(|e| format!("typed data: {e}"))?;
    Ok(authorization.digest(&domain))
}
