//! `cargo xtask sign --key 0x…`: EIP-191-signs stdin exactly as a wallet's
//! `personal_sign` would, for trying wallet verification from a shell.

use std::io::Read;

use stablepay_domain::rules::eip191;

pub fn run(args: &[String]) -> Result<(), String> {
    let key = match args {
        [flag, key] if flag == "--key" => key,
        _ => {
            return Err("usage: cargo xtask sign --key 0x<private key>   (message on stdin)".into())
        }
    };
    let mut raw = [0u8; 32];
    hex::decode_to_slice(key.trim_start_matches("0x"), &mut raw)
        .map_err(|_| "--key must be 32 bytes of hex")?;
    let mut message = Vec::new();
    std::io::stdin()
        .read_to_end(&mut message)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    let address =
        eip191::address_of_private_key(&raw).ok_or("not a valid secp256k1 private key")?;
    let signature = eip191::sign(&message, &raw).ok_or("signing failed")?;
    eprintln!("signed {} bytes as {address}", message.len());
    println!("{}", signature.to_hex());
    Ok(())
}
