//! Redaction of RPC URLs in error text: provider URLs carry API keys in their path
//! (`…/v2/<key>`), query (`?apikey=…`) or userinfo (`https://user:pass@host`), and
//! transport errors quote the URL they failed on.

/// URL schemes that are redacted (matched case-insensitively). `https://` precedes
/// `http://` so the longer one wins; no scheme here is a prefix of another at one position.
const SCHEMES: [&str; 4] = ["https://", "http://", "wss://", "ws://"];

/// Replaces every http(s)/ws(s) URL in `text` by its scheme and host (with port, if any):
/// `https://user:pass@host:8545/v2/KEY?apikey=K` becomes `https://host:8545/…`. The `/…`
/// marks that something was removed. A URL runs to the next whitespace or quote character;
/// punctuation that ends a sentence (`)`, `,`, `.`, …) right after it is kept as text.
pub fn redact_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((start, scheme_len)) = find_scheme(rest) {
        // `start` is the index of an ASCII byte, hence a char boundary.
        let (before, from_url) = rest.split_at(start);
        out.push_str(before);
        let run_len = from_url
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`'))
            .unwrap_or(from_url.len());
        let (run, _) = from_url.split_at(run_len);
        // The trimmed characters are ASCII and the scheme ends with '/', which stops the trim.
        let url = run.trim_end_matches(|c: char| {
            matches!(c, ')' | ']' | '}' | ',' | '.' | ';' | ':' | '!' | '?')
        });
        out.push_str(&scheme_and_host(url, scheme_len));
        let (_, after) = from_url.split_at(url.len());
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The first position in `s` where a scheme of `SCHEMES` starts, with that scheme's length.
fn find_scheme(s: &str) -> Option<(usize, usize)> {
    let bytes = s.as_bytes();
    (0..bytes.len()).find_map(|i| {
        SCHEMES.iter().find_map(|scheme| {
            bytes
                .get(i..i + scheme.len())
                .filter(|window| window.eq_ignore_ascii_case(scheme.as_bytes()))
                .map(|_| (i, scheme.len()))
        })
    })
}

/// `url` (which starts with a scheme of `scheme_len` ASCII bytes) reduced to scheme and host.
fn scheme_and_host(url: &str, scheme_len: usize) -> String {
    let (scheme, after_scheme) = url.split_at(scheme_len);
    let authority_len = after_scheme
        .find(['/', '?', '#', '\\'])
        .unwrap_or(after_scheme.len());
    let (authority, tail) = after_scheme.split_at(authority_len);
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_userinfo, host)| host);
    let removed = !tail.is_empty() || host.len() != authority.len();
    format!("{scheme}{host}{}", if removed { "/…" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::redact_urls;

    #[test]
    fn vectors() {
        let cases = [
            // key in the path
            (
                "https://base-mainnet.g.alchemy.com/v2/SECRETKEY",
                "https://base-mainnet.g.alchemy.com/…",
            ),
            // key in the query
            (
                "https://api.example.com?apikey=SECRET",
                "https://api.example.com/…",
            ),
            (
                "https://rpc.example.com/rpc?apikey=SECRET&x=1#frag",
                "https://rpc.example.com/…",
            ),
            // userinfo, with and without a path; the port is kept
            ("https://user:pass@host.example", "https://host.example/…"),
            (
                "http://user:p%40ss@127.0.0.1:8545/KEY",
                "http://127.0.0.1:8545/…",
            ),
            // websockets, and a scheme in capitals
            ("wss://ws.example.com/v3/SECRET", "wss://ws.example.com/…"),
            ("ws://localhost:8546/SECRET", "ws://localhost:8546/…"),
            ("HTTPS://Host.Example/KEY", "HTTPS://Host.Example/…"),
            // nothing to remove: unchanged
            ("http://127.0.0.1:8545", "http://127.0.0.1:8545"),
            // two URLs in one text
            (
                "primary https://a.example/v2/K1 failed, fallback wss://b.example/K2 too",
                "primary https://a.example/… failed, fallback wss://b.example/… too",
            ),
            // the shape of a reqwest transport error
            (
                "eth_blockNumber: error sending request for url (https://base-mainnet.g.alchemy.com/v2/SECRETKEY): connection refused",
                "eth_blockNumber: error sending request for url (https://base-mainnet.g.alchemy.com/…): connection refused",
            ),
            // end of a sentence: `)`, `,` and `.` stay text
            (
                "(see https://h.example/v2/KEY), then https://h.example/?apikey=K.",
                "(see https://h.example/…), then https://h.example/….",
            ),
            ("(http://h.example)", "(http://h.example)"),
            // quoted (Debug output), and a URL inside a URL's query
            (
                r#"url: "https://h.example/KEY""#,
                r#"url: "https://h.example/…""#,
            ),
            (
                "https://h.example/?next=https://i.example/KEY2",
                "https://h.example/…",
            ),
            // a bare scheme, and non-ASCII text around a URL
            ("https://", "https://"),
            ("é https://h.example/KEY é", "é https://h.example/… é"),
            // no URL: unchanged
            ("", ""),
            (
                "timed out after 5s: connection reset (code -32000)",
                "timed out after 5s: connection reset (code -32000)",
            ),
            ("http:/not-a-url and https:x", "http:/not-a-url and https:x"),
        ];
        for (text, want) in cases {
            assert_eq!(redact_urls(text), want, "redact_urls({text:?})");
        }
    }

    #[test]
    fn no_secret_survives() {
        let text = "a https://u:PASSWORD@h.example/v2/KEYPATH?apikey=KEYQUERY#KEYFRAG, \
                    b ws://h.example/KEYWS) c HTTP://h.example:80/KEYCAPS.";
        let redacted = redact_urls(text);
        for secret in [
            "PASSWORD", "KEYPATH", "KEYQUERY", "KEYFRAG", "KEYWS", "KEYCAPS", "u:",
        ] {
            assert!(!redacted.contains(secret), "{secret} in {redacted:?}");
        }
    }
}
