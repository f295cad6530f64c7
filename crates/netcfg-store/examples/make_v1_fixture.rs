//! Writes `fixtures/store/v1.sqlite`: a configuration file of schema version
//! 1 (the frozen `src/schema/v1.sql`) holding `fixtures/store/v1-sample.sql`.
//! The migration test opens it and compares it with `v1-expected.json`.
//!
//! Run: `cargo run -p netcfg-store --example make_v1_fixture`. The output is
//! committed; rerun only if the sample changes (never the v1 schema).

#![allow(
    clippy::print_stdout,
    reason = "a command-line helper reports what it wrote"
)]

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/store");
    let target = fixtures.join("v1.sqlite");
    if target.exists() {
        std::fs::remove_file(&target)?;
    }
    let sample = std::fs::read_to_string(fixtures.join("v1-sample.sql"))?;
    let conn = rusqlite::Connection::open(&target)?;
    conn.execute_batch(&format!(
        "PRAGMA journal_mode = DELETE; BEGIN; PRAGMA application_id = {}; {} {} PRAGMA user_version = 1; COMMIT; VACUUM;",
        netcfg_store::APPLICATION_ID,
        include_str!("../src/schema/v1.sql"),
        sample
    ))?;
    drop(conn);
    println!("wrote {}", target.display());
    Ok(())
}
