//! The design the code cites lives in the repository: every `Dnn` named in the sources,
//! migrations, contracts and docs is a `## Dnn — …` heading of `docs/design.md`.

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    use crate::util::root;

    /// Where citations are looked for, from the repository root.
    const CITING: &[&str] = &[
        "crates",
        "xtask/src",
        "tests",
        "migrations",
        "contracts/src",
        "contracts/test",
        "docs",
        "README.md",
        "CONTRIBUTING.md",
    ];
    const TEXT: &[&str] = &["rs", "sql", "sol", "md", "html", "js", "css", "toml", "py"];

    fn files(path: &Path, out: &mut Vec<PathBuf>) {
        if path.is_dir() {
            let Ok(entries) = std::fs::read_dir(path) else {
                return;
            };
            for entry in entries.flatten() {
                files(&entry.path(), out);
            }
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| TEXT.contains(&e))
        {
            out.push(path.to_owned());
        }
    }

    /// Every `D<1–2 digits>` standing as a word of its own (not inside hex or a name).
    fn citations(text: &str) -> BTreeSet<u32> {
        let bytes = text.as_bytes();
        let mut found = BTreeSet::new();
        for (i, _) in text.match_indices('D') {
            let before = i.checked_sub(1).map(|j| bytes[j]);
            if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
                continue;
            }
            let digits: String = text[i + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let after = bytes.get(i + 1 + digits.len());
            if (1..=2).contains(&digits.len())
                && !after.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                if let Ok(n) = digits.parse() {
                    found.insert(n);
                }
            }
        }
        found
    }

    fn defined(design: &str) -> BTreeSet<u32> {
        design
            .lines()
            .filter_map(|l| l.strip_prefix("## D"))
            .filter_map(|rest| {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            })
            .collect()
    }

    #[test]
    fn every_decision_the_code_cites_is_defined_in_docs_design() {
        let root = root();
        let design = std::fs::read_to_string(root.join("docs/design.md"))
            .expect("docs/design.md holds the design the code cites");
        let defined = defined(&design);
        let mut paths = Vec::new();
        for place in CITING {
            files(&root.join(place), &mut paths);
        }
        let mut missing: Vec<String> = Vec::new();
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for n in citations(&text).difference(&defined) {
                missing.push(format!("D{n} in {}", path.display()));
            }
        }
        assert!(
            missing.is_empty(),
            "cited but not defined in docs/design.md: {missing:#?}"
        );
        assert!(defined.len() >= 30, "docs/design.md defines {defined:?}");
    }

    #[test]
    fn citations_are_whole_words() {
        let text = "see D30 and (D7); not 0x1D3f, D123, ED25 or D_3; §D2.";
        assert_eq!(citations(text), BTreeSet::from([30, 7, 2]));
        assert_eq!(
            defined("# x\n## D1 — one\n## D12 — twelve\n### D3 no"),
            BTreeSet::from([1, 12])
        );
    }
}
