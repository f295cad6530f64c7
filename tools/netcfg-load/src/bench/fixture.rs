//! The bench's site: 50 surveyed anchors (10 of them seeders) and 1,000
//! tags, one device body per line in `fixtures/bench/site.jsonl`.
//!
//! The file is written from this code (`cargo xtask bench --write-fixture`)
//! and committed; the bench loads the committed file and refuses one that
//! the code would not write, so the two cannot drift apart.

use std::{fs, path::PathBuf};

use anyhow::{Context, Result, bail};

use crate::workspace;

/// Anchors on a 10 by 5 grid, 12 m apart.
const ANCHOR_COLUMNS: u32 = 10;
const ANCHOR_ROWS: u32 = 5;
const ANCHOR_SPACING_MM: u32 = 12_000;
/// Every fifth anchor is a seeder (role 3); the others are anchors (role 2).
const SEEDER_EVERY: u32 = 5;
/// Default tags (role 4).
const TAGS: u32 = 1_000;
/// People name the tags after what carries them.
const CARRIERS: [&str; 4] = ["Forklift", "Worker", "Pallet", "Trolley"];

/// The fixture's path.
pub(crate) fn path() -> PathBuf {
    workspace::root().join("fixtures/bench/site.jsonl")
}

/// The fixture's lines, as this code writes them.
pub(crate) fn generate() -> Vec<String> {
    let mut lines = Vec::new();
    for index in 0..ANCHOR_COLUMNS * ANCHOR_ROWS {
        let number = index + 1;
        let (column, row) = (index % ANCHOR_COLUMNS, index / ANCHOR_COLUMNS);
        let role = if index % SEEDER_EVERY == 0 { 3 } else { 2 };
        // Heights between 2.5 and 3.4 m, as ceilings and mounts vary.
        let z = 2_500 + (index * 137) % 900;
        lines.push(format!(
            r#"{{"serial_number":"01:04:{number:04X}","name":"Anchor {number}","disabled":false,"interfaces":[{{"identifier":0,"role_id":{role},"x":{},"y":{},"z":{z}}}]}}"#,
            column * ANCHOR_SPACING_MM,
            row * ANCHOR_SPACING_MM,
        ));
    }
    for number in 1..=TAGS {
        let carrier = CARRIERS[(number as usize) % CARRIERS.len()];
        lines.push(tag_body(
            &format!("01:05:{number:04X}"),
            &format!("{carrier} {number}"),
        ));
    }
    lines
}

/// A full, valid body of a default tag.
pub(crate) fn tag_body(serial: &str, name: &str) -> String {
    format!(
        r#"{{"serial_number":"{serial}","name":"{name}","disabled":false,"interfaces":[{{"identifier":0,"role_id":4}}]}}"#
    )
}

/// The committed fixture's lines; fails when missing or stale.
pub(crate) fn load() -> Result<Vec<String>> {
    let path = path();
    let text = fs::read_to_string(&path).with_context(|| {
        format!(
            "could not read {} (write it with `cargo xtask bench --write-fixture`)",
            path.display()
        )
    })?;
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines != generate() {
        bail!(
            "{} is not what tools/netcfg-load/src/bench/fixture.rs writes: rewrite it with `cargo xtask bench --write-fixture`",
            path.display()
        );
    }
    Ok(lines)
}

/// Writes the fixture from the code.
pub(crate) fn write() -> Result<()> {
    let path = path();
    let mut text = generate().join("\n");
    text.push('\n');
    fs::write(&path, text).with_context(|| format!("could not write {}", path.display()))?;
    eprintln!("bench: wrote {}", path.display());
    Ok(())
}

/// The serial number of a body line.
pub(crate) fn serial_of(line: &str) -> Option<&str> {
    let start = line.find(r#""serial_number":""#)? + r#""serial_number":""#.len();
    line.get(start..start + "01:05:0001".len())
}

/// The serial numbers of the fixture's tags (role 4).
pub(crate) fn tag_serials(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|line| line.contains(r#""role_id":4"#))
        .filter_map(|line| serial_of(line).map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_site_has_50_anchors_with_positions_and_1000_tags() {
        let lines = generate();
        let anchors: Vec<&String> = lines.iter().filter(|l| l.contains("01:04:")).collect();
        assert_eq!(anchors.len(), 50);
        assert!(
            anchors
                .iter()
                .all(|l| l.contains(r#""x":"#) && l.contains(r#""z":"#))
        );
        assert_eq!(tag_serials(&lines).len(), 1_000);
        let mut serials: Vec<&str> = lines.iter().filter_map(|l| serial_of(l)).collect();
        serials.sort_unstable();
        serials.dedup();
        assert_eq!(serials.len(), 1_050, "serial numbers are unique");
    }

    #[test]
    fn the_committed_fixture_is_what_the_code_writes() {
        let lines = load().unwrap();
        assert_eq!(lines.len(), 1_050);
        assert!(path().ends_with("fixtures/bench/site.jsonl"));
    }

    #[test]
    fn a_tag_body_is_a_full_device_body() {
        let body = tag_body("01:05:00FF", "Pallet 255");
        let json: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(json["serial_number"], "01:05:00FF");
        assert_eq!(json["name"], "Pallet 255");
        assert_eq!(json["disabled"], false);
        assert_eq!(json["interfaces"][0]["role_id"], 4);
        assert_eq!(serial_of(&body), Some("01:05:00FF"));
        assert_eq!(serial_of(r#"{"name":"no serial"}"#), None);
        assert_eq!(tag_serials(&[body, generate()[0].clone()]), ["01:05:00FF"]);
    }
}
