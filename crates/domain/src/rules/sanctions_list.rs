//! Reading a sanctions list file the operator imports (D33): OFAC's SDN list in its
//! published XML (`sdn.xml`), where digital-currency addresses are `<id>` entries of type
//! `Digital Currency Address - <currency>`, or a plain file of one address per line
//! (`#` comments and blank lines allowed). Only EVM addresses (0x + 40 hex) are kept: the
//! same address is the same holder on every EVM chain; other currencies' addresses
//! (XBT, TRX, ...) are counted and skipped.

use std::collections::HashSet;

use crate::model::Address;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFormat {
    OfacSdnXml,
    Plain,
}

impl ListFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            ListFormat::OfacSdnXml => "ofac_sdn_xml",
            ListFormat::Plain => "plain",
        }
    }
}

/// One listed address and the list's own reference for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedAddress {
    pub address: Address,
    /// OFAC: `SDN <uid> <name>`; plain files have none.
    pub entry: Option<String>,
}

/// A list file as read: its addresses (each once) and what was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedList {
    pub format: ListFormat,
    /// OFAC's `Publish_Date`, as published.
    pub published: Option<String>,
    pub addresses: Vec<ListedAddress>,
    /// Digital-currency addresses of other (non-EVM) currencies.
    pub skipped_other_currencies: usize,
    /// Addresses listed more than once (kept once, with their first entry).
    pub duplicates: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    #[error("line {line}: {text:?} is not an EVM address (0x and 40 hex digits)")]
    NotAnAddress { line: usize, text: String },
    #[error("the file holds no address")]
    Empty,
}

/// A list's name as the operator gives it at import and in `STABLEPAY_SCREENING_LISTS`:
/// 1–40 of `a-z`, `0-9`, `_` and `-` (it names the list in every stored check).
pub fn parse_list_name(name: &str) -> Result<String, String> {
    let ok = !name.is_empty()
        && name.len() <= 40
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    if ok {
        Ok(name.to_owned())
    } else {
        Err(format!(
            "{name:?} is not a list name: use 1 to 40 of a-z, 0-9, _ and -"
        ))
    }
}

/// Reads `text` as OFAC's SDN XML when it holds `<sdnEntry>` elements, else as a plain list.
pub fn parse_list(text: &str) -> Result<ParsedList, ListError> {
    let parsed = if text.contains("<sdnEntry") {
        parse_ofac(text)
    } else {
        parse_plain(text)?
    };
    if parsed.addresses.is_empty() {
        return Err(ListError::Empty);
    }
    Ok(parsed)
}

fn evm_address(s: &str) -> Option<Address> {
    let s = s.trim();
    let hex = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    if hex.len() != 40 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    // Lists carry addresses in any case, checksummed or not: the bytes are what count.
    Address::parse(&format!("0x{}", hex.to_ascii_lowercase())).ok()
}

struct Collected {
    seen: HashSet<Address>,
    addresses: Vec<ListedAddress>,
    duplicates: usize,
}

impl Collected {
    fn new() -> Self {
        Self {
            seen: HashSet::new(),
            addresses: Vec::new(),
            duplicates: 0,
        }
    }

    fn add(&mut self, address: Address, entry: Option<String>) {
        if self.seen.insert(address) {
            self.addresses.push(ListedAddress { address, entry });
        } else {
            self.duplicates += 1;
        }
    }
}

fn parse_plain(text: &str) -> Result<ParsedList, ListError> {
    let mut collected = Collected::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let address = evm_address(line).ok_or_else(|| ListError::NotAnAddress {
            line: i + 1,
            text: line.chars().take(64).collect(),
        })?;
        collected.add(address, None);
    }
    Ok(ParsedList {
        format: ListFormat::Plain,
        published: None,
        addresses: collected.addresses,
        skipped_other_currencies: 0,
        duplicates: collected.duplicates,
    })
}

/// The text of each `<tag>…</tag>` in `s`, in order.
fn elements<'a>(s: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start + open.len()..];
        let Some(end) = after.find(&close) else { break };
        out.push(&after[..end]);
        rest = &after[end + close.len()..];
    }
    out
}

fn first<'a>(s: &'a str, tag: &str) -> Option<&'a str> {
    elements(s, tag).into_iter().next()
}

fn unescape(s: &str) -> String {
    s.trim()
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

const DIGITAL_CURRENCY: &str = "Digital Currency Address - ";

fn parse_ofac(text: &str) -> ParsedList {
    let mut collected = Collected::new();
    let mut skipped = 0;
    for entry in elements(text, "sdnEntry") {
        // The entry's own uid and name come before its lists of ids, programs, addresses.
        let head = entry.split("<idList>").next().unwrap_or(entry);
        let uid = first(head, "uid").map(str::trim).unwrap_or("?");
        let name = [first(head, "firstName"), first(head, "lastName")]
            .into_iter()
            .flatten()
            .map(unescape)
            .collect::<Vec<_>>()
            .join(" ");
        for id in elements(entry, "id") {
            let is_currency =
                first(id, "idType").is_some_and(|t| t.trim().starts_with(DIGITAL_CURRENCY));
            if !is_currency {
                continue;
            }
            match first(id, "idNumber").and_then(evm_address) {
                Some(address) => collected.add(address, Some(format!("SDN {uid} {name}"))),
                None => skipped += 1,
            }
        }
    }
    ParsedList {
        format: ListFormat::OfacSdnXml,
        published: first(text, "Publish_Date").map(|d| d.trim().to_owned()),
        addresses: collected.addresses,
        skipped_other_currencies: skipped,
        duplicates: collected.duplicates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SDN: &str = r#"<?xml version="1.0" standalone="yes"?>
<sdnList xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/XML">
  <publshInformation>
    <Publish_Date>11/26/2026</Publish_Date>
    <Record_Count>3</Record_Count>
  </publshInformation>
  <sdnEntry>
    <uid>36</uid>
    <lastName>AEROCARIBBEAN AIRLINES</lastName>
    <sdnType>Entity</sdnType>
    <programList><program>CUBA</program></programList>
  </sdnEntry>
  <sdnEntry>
    <uid>30518</uid>
    <firstName>Roman</firstName>
    <lastName>SEMENOV &amp; CO</lastName>
    <sdnType>Individual</sdnType>
    <idList>
      <id>
        <uid>70001</uid>
        <idType>Digital Currency Address - ETH</idType>
        <idNumber>0xdcbEfACaa3F5B2E9aa4A0A9f8E8bE5CE51dC5a5c</idNumber>
      </id>
      <id>
        <uid>70002</uid>
        <idType>Digital Currency Address - XBT</idType>
        <idNumber>1BQAPyku1ZibWGAgd8QePpW1vAKHowqLez</idNumber>
      </id>
      <id>
        <uid>70003</uid>
        <idType>Digital Currency Address - USDT</idType>
        <idNumber>0x7f367cc41522ce07553e823bf3be79a889debe1b</idNumber>
      </id>
      <id>
        <uid>70004</uid>
        <idType>Passport</idType>
        <idNumber>0x0000000000000000000000000000000000000001</idNumber>
      </id>
    </idList>
  </sdnEntry>
  <sdnEntry>
    <uid>30519</uid>
    <lastName>TORNADO CASH</lastName>
    <idList>
      <id>
        <uid>70010</uid>
        <idType>Digital Currency Address - ETH</idType>
        <idNumber>0x7F367CC41522CE07553E823BF3BE79A889DEBE1B</idNumber>
      </id>
    </idList>
  </sdnEntry>
</sdnList>"#;

    #[test]
    fn ofac_xml_keeps_evm_currency_addresses_with_their_entry() {
        let list = parse_list(SDN).unwrap();
        assert_eq!(list.format, ListFormat::OfacSdnXml);
        assert_eq!(list.published.as_deref(), Some("11/26/2026"));
        let entries: Vec<(String, Option<&str>)> = list
            .addresses
            .iter()
            .map(|a| (a.address.to_string().to_lowercase(), a.entry.as_deref()))
            .collect();
        assert_eq!(
            entries,
            vec![
                (
                    "0xdcbefacaa3f5b2e9aa4a0a9f8e8be5ce51dc5a5c".into(),
                    Some("SDN 30518 Roman SEMENOV & CO")
                ),
                (
                    "0x7f367cc41522ce07553e823bf3be79a889debe1b".into(),
                    Some("SDN 30518 Roman SEMENOV & CO")
                ),
            ]
        );
        // The bitcoin address is skipped; the passport number is no currency address; the
        // same address under another entry (in another case) is one address.
        assert_eq!((list.skipped_other_currencies, list.duplicates), (1, 1));
    }

    #[test]
    fn plain_lists_take_one_address_per_line_and_refuse_anything_else() {
        let text = "# sanctioned_addresses_ETH\n0x098B716B8Aaf21512996dC57EB0615e2383E2f96\n\n  0x098b716b8aaf21512996dc57eb0615e2383e2f96  \n0xa7e5d5a720f06526557c513402f2e6b5fa20b008\n";
        let list = parse_list(text).unwrap();
        assert_eq!(list.format, ListFormat::Plain);
        assert_eq!((list.addresses.len(), list.duplicates), (2, 1));
        assert!(list.addresses.iter().all(|a| a.entry.is_none()));
        assert_eq!(
            parse_list("0x098b716b8aaf21512996dc57eb0615e2383e2f96\nbc1qexample\n"),
            Err(ListError::NotAnAddress {
                line: 2,
                text: "bc1qexample".into()
            })
        );
        assert_eq!(parse_list("# nothing\n\n"), Err(ListError::Empty));
        assert_eq!(
            parse_list("0x12\n").unwrap_err(),
            ListError::NotAnAddress {
                line: 1,
                text: "0x12".into()
            }
        );
    }
}
