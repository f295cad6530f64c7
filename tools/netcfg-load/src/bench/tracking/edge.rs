//! A tag standing on a zone's edge (hysteresis 0, no dwell), twice at the
//! same point: once in the default tag role (tracked) and once in a role
//! with tracking off (its per-beacon fixes). Each one's enters and exits
//! are counted from the zone events of the stream. Goal (issue 48): the
//! tracked tag crosses at most a third as often.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    thread,
};

use anyhow::{Context, Result};

use super::super::{met, sse};
use crate::server::Client;

const TRACKED: &str = "01:05:0031";
const PER_FIX: &str = "01:05:0032";
/// On the zone's west edge (x = 12 m), at the tags' height (mm).
const POINT: [f64; 3] = [12_000.0, 9_000.0, 1_000.0];
const ZONE: &str = r#"{"name": "edge", "polygon": [[12000, 6000], [16000, 6000], [16000, 12000], [12000, 12000]], "hysteresis_mm": 0, "dwell_ms": 0}"#;

/// Enters and exits seen, by serial number.
#[derive(Debug, Default, Clone)]
pub(super) struct Crossings(Arc<Mutex<HashMap<String, u64>>>);

impl Crossings {
    fn of(&self, serial: &str) -> u64 {
        crate::sync::lock(&self.0).get(serial).copied().unwrap_or(0)
    }
}

/// Adds the zone, the role without tracking and both tags to `net`; the
/// simulator's `still=` entries that make them stand.
pub(super) fn add(client: &Client, net: &str) -> Result<Vec<String>> {
    client.expect_ok("POST", &format!("/nets/{net}/zones"), Some(ZONE))?;
    let role = client
        .expect_ok(
            "POST",
            &format!("/nets/{net}/roles"),
            Some(r#"{"name": "per fix", "network_period": 97500}"#),
        )?
        .payload("role")?["id"]
        .as_u64()
        .context("the new role's id")?;
    client.expect_ok(
        "PATCH",
        &format!("/nets/{net}/roles/{role}"),
        Some(r#"{"tracking": "off"}"#),
    )?;
    for (serial, role) in [(TRACKED, 4), (PER_FIX, role)] {
        let body = super::tag_body(serial, role);
        client.expect_ok("POST", &format!("/nets/{net}/devices"), Some(&body))?;
    }
    let [x, y, z] = POINT;
    Ok([TRACKED, PER_FIX]
        .iter()
        .map(|serial| format!("{serial}:{x}:{y}:{z}"))
        .collect())
}

/// Counts the zone events of `net` from now on, on a thread of its own.
pub(super) fn count(port: u16, net: &str) -> Result<Crossings> {
    let mut reader = sse::open(port, &format!("/nets/{net}/events?types=zone"))?;
    let crossings = Crossings::default();
    let counted = crossings.clone();
    thread::spawn(move || {
        sse::each_event(
            &mut reader,
            || (),
            |event, ()| {
                let Some(data) = sse::data(event) else {
                    return;
                };
                if let Some(serial) = data["serial_number"].as_str() {
                    *crate::sync::lock(&counted.0)
                        .entry(serial.to_owned())
                        .or_default() += 1;
                }
            },
        );
    });
    Ok(crossings)
}

pub(super) fn print(crossings: &Crossings) {
    let tracked = crossings.of(TRACKED);
    let per_fix = crossings.of(PER_FIX);
    let ratio = tracked as f64 / (per_fix as f64).max(1.0);
    println!(
        "  a tag standing on a zone's edge: {tracked} enters and exits tracked, {per_fix} per fix = {ratio:.3} (goal <= 1/3: {})",
        met(per_fix > 0 && ratio <= 1.0 / 3.0)
    );
}
