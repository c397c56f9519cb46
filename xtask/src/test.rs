//! `cargo xtask test`: fmt --check, clippy -D warnings, every test, against a throwaway
//! PostgreSQL.

use crate::pg::Postgres;
use crate::util::{cargo, run as run_cmd};

pub fn run(extra: &[String]) -> Result<(), String> {
    println!("xtask: cargo fmt --check");
    run_cmd(cargo().args(["fmt", "--all", "--", "--check"]))?;
    println!("xtask: cargo clippy -D warnings");
    run_cmd(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--all-features",
        "--",
        "-D",
        "warnings",
    ]))?;
    let pg = Postgres::provision("test")?;
    println!("xtask: cargo test");
    let result = run_cmd(
        cargo()
            .args(["test", "--workspace", "--all-features"])
            .args(extra)
            .env("DATABASE_URL", &pg.url),
    );
    drop(pg);
    result
}
