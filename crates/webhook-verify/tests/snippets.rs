//! The Node.js and Python snippets in `snippets/` must give the same verdict as the Rust
//! verifier on every case below. `node` and `python3` are required: CI has both, and a
//! skipped test would hide a regression, so a missing interpreter fails the test.
//!
//! The cases are also written to `vectors.json`, which the SDKs' own tests run
//! (`sdks/typescript`, `sdks/python`): this test fails when the file is not what the cases
//! are now (`STABLEPAY_UPDATE_VECTORS=1` rewrites it).

use std::io::Write;
use std::process::{Command, Stdio};

use base64::Engine;
use stablepay_domain::rules::webhook_signing::{signature_header, v1_signature};
use stablepay_webhook_verify::verify;

const S: &str = "whsec_test";
const T: i64 = 1_700_000_000;
const BODY: &[u8] = br#"{"id":"evt_1"}"#;
/// The vector from webhook_signing.rs (computed independently with openssl).
const VECTOR: &str =
    "t=1700000000,v1=c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925";

struct Case {
    name: &'static str,
    header: String,
    body: Vec<u8>,
    secrets: Vec<&'static str>,
    tolerance: i64,
    now: i64,
    /// What the case is meant to show; the Rust verifier must agree, so no case is vacuous.
    want: bool,
}

/// A case with body `BODY`, secrets `[S]`, tolerance 300 and clock `T`.
fn c(name: &'static str, header: impl Into<String>, want: bool) -> Case {
    let (header, body, secrets) = (header.into(), BODY.to_vec(), vec![S]);
    Case {
        name,
        header,
        body,
        secrets,
        tolerance: 300,
        now: T,
        want,
    }
}

#[rustfmt::skip] // one case per line
fn cases() -> Vec<Case> {
    let good = signature_header(&[S], T, BODY);
    let sig = v1_signature(S, T, BODY);
    let rotated = signature_header(&["whsec_new", "whsec_old"], T, BODY);
    let bin: Vec<u8> = (0..=255u8).chain("é€\0".bytes()).collect();
    let mut flipped = bin.clone();
    flipped[7] ^= 1;
    let bin_header = signature_header(&[S], T, &bin);
    let non_ascii = signature_header(&["whsec_é"], T, BODY);
    vec![
        c("valid", &good, true),
        Case { now: T + 100, ..c("shared vector", VECTOR, true) },
        Case { secrets: vec!["whsec_new"], ..c("rotation: new secret alone", &rotated, true) },
        Case { secrets: vec!["whsec_old"], ..c("rotation: old secret alone", &rotated, true) },
        c("rotation: neither secret", &rotated, false),
        Case { secrets: vec!["whsec_other", S], ..c("second of two secrets", &good, true) },
        Case { secrets: vec![], ..c("no secrets", &good, false) },
        Case { body: br#"{"id":"evt_2"}"#.to_vec(), ..c("tampered body", &good, false) },
        Case { secrets: vec!["whsec_other"], ..c("wrong secret", &good, false) },
        Case { now: T + 301, ..c("too old", &good, false) },
        Case { now: T - 301, ..c("too far in the future", &good, false) },
        Case { now: T + 300, ..c("exactly tolerance old", &good, true) },
        Case { now: T - 300, ..c("exactly tolerance ahead", &good, true) },
        Case { tolerance: 0, ..c("zero tolerance, same second", &good, true) },
        Case { tolerance: 0, now: T + 1, ..c("zero tolerance, 1 s off", &good, false) },
        c("malformed: garbage", "garbage", false),
        c("malformed: empty", "", false),
        c("malformed: t=abc", "t=abc,v1=00", false),
        c("malformed: missing v1", format!("t={T}"), false),
        c("malformed: missing t", format!("v1={sig}"), false),
        c("malformed: trailing comma", format!("{good},"), false),
        c("malformed: space inside t", format!("t= {T},v1={sig}"), false),
        c("malformed: underscores in t", format!("t=1_700_000_000,v1={sig}"), false),
        c("non-hex v1", format!("t={T},v1={}", "zz".repeat(32)), false),
        c("valid v1 next to a non-hex v1", format!("{good},v1=xyz"), false),
        c("space inside v1", format!("t={T},v1={} {}", &sig[..32], &sig[32..]), false),
        c("v1 too short", format!("t={T},v1={}", &sig[..62]), false),
        c("v1 too long", format!("{good}00"), false),
        c("v1 of odd length", format!("t={T},v1={}", &sig[..63]), false),
        c("empty v1", format!("t={T},v1="), false),
        c("uppercase hex v1", format!("t={T},v1={}", sig.to_uppercase()), true),
        c("spaces around entries", format!(" t={T} , v1={sig} "), true),
        c("unknown scheme ignored", format!("t={T},v0=abc,v1={sig}"), true),
        c("t with a leading zero", format!("t=0{T},v1={sig}"), true),
        Case { body: bin, ..c("binary body", &bin_header, true) },
        Case { body: flipped, ..c("binary body, one bit flipped", &bin_header, false) },
        Case { secrets: vec!["whsec_é"], ..c("non-ASCII secret", non_ascii, true) },
    ]
}

/// Runs `program snippets/<script>` with `input` on stdin; returns its stdout lines.
fn run(program: &str, script: &str, input: &str) -> Vec<String> {
    let path = format!("{}/snippets/{script}", env!("CARGO_MANIFEST_DIR"));
    let mut child = Command::new(program)
        .arg(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run `{program}` ({e}): the webhook snippets need Node.js and Python 3")
        });
    let written = child
        .stdin
        .take()
        .map(|mut stdin| stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("wait for the snippet");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "`{program} {path}` failed ({}):\n{stderr}",
        out.status
    );
    written
        .expect("stdin is piped")
        .expect("write the cases to the snippet");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// One case as the snippets read it (and as `vectors.json` holds it, with `name`, `want`).
fn case_json(c: &Case) -> serde_json::Value {
    serde_json::json!({
        "name": c.name,
        "header": c.header,
        "body_b64": base64::engine::general_purpose::STANDARD.encode(&c.body),
        "secrets": c.secrets,
        "tolerance": c.tolerance,
        "now": c.now,
        "want": c.want,
    })
}

#[test]
fn the_vector_file_holds_every_case() {
    let path = format!("{}/vectors.json", env!("CARGO_MANIFEST_DIR"));
    let cases: Vec<_> = cases().iter().map(case_json).collect();
    let text = serde_json::to_string_pretty(&serde_json::json!({
        "description": "Svc-Signature cases: verify(header, base64-decoded body, secrets, tolerance, now) must return want. Written by crates/webhook-verify/tests/snippets.rs; run by the SDKs' tests.",
        "cases": cases,
    }))
    .expect("cases serialise")
        + "\n";
    if std::env::var_os("STABLEPAY_UPDATE_VECTORS").is_some() {
        std::fs::write(&path, &text).expect("write vectors.json");
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        stored == text,
        "{path} is not what the cases are now: run STABLEPAY_UPDATE_VECTORS=1 cargo test -p stablepay-webhook-verify"
    );
}

#[test]
fn node_and_python_snippets_agree_with_the_rust_verifier() {
    let cases = cases();
    let (mut input, mut expected) = (String::new(), Vec::new());
    for c in &cases {
        let rust = verify(&c.header, &c.body, &c.secrets, c.tolerance, c.now).is_ok();
        assert_eq!(
            rust, c.want,
            "case {:?}: the Rust verifier says {rust}",
            c.name
        );
        expected.push(rust.to_string());
        input.push_str(&format!("{}\n", case_json(c)));
    }
    for (program, script) in [("node", "verify.js"), ("python3", "verify.py")] {
        let got = run(program, script, &input);
        assert_eq!(
            got.len(),
            cases.len(),
            "{script}: want one line per case, got {got:?}"
        );
        let mismatches: Vec<String> = cases
            .iter()
            .zip(&expected)
            .zip(&got)
            .filter(|((_, want), got)| want != got)
            .map(|((c, want), got)| {
                format!("  {:?}: Rust says {want}, {script} says {got}", c.name)
            })
            .collect();
        assert!(
            mismatches.is_empty(),
            "{script} disagrees with Rust:\n{}",
            mismatches.join("\n")
        );
    }
}
