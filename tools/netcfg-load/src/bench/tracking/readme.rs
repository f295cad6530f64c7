//! The README's four-anchor room (its first session from a script: four
//! anchors around 10 m × 8 m, a walking tag and a reference tag standing at
//! 4 m, 3 m), on the simulator as a new user gets it (`sim`, its default
//! noise and NLOS), for ten minutes. Goal (issue 48): no tracked position
//! of the reference tag more than 500 mm off. A careful new user saw
//! single fixes of it up to 2 m off before tracks.

use std::{
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result};

use super::super::{accuracy::device_body, create_net, met, net_action, step};
use crate::server::Client;

/// How long the room runs: the goal's ten minutes.
pub(super) const RUN: Duration = Duration::from_secs(600);
const NET: &str = "readme";
/// The README's anchors: serial, role, x, y, z (mm).
const ANCHORS: [(&str, u8, f64, f64, f64); 4] = [
    ("01:04:0001", 3, 0.0, 0.0, 2_500.0),
    ("01:04:0002", 2, 10_000.0, 0.0, 3_000.0),
    ("01:04:0003", 2, 10_000.0, 8_000.0, 2_500.0),
    ("01:04:0004", 2, 0.0, 8_000.0, 3_000.0),
];
const WALKER: &str = "01:05:0001";
const REFERENCE: &str = "01:05:0002";
const REFERENCE_AT: [f64; 3] = [4_000.0, 3_000.0, 1_000.0];

/// The room, built and started: when it started.
pub(super) fn start(client: &Client) -> Result<Instant> {
    create_net(client, NET)?;
    let mut bodies: Vec<String> = ANCHORS
        .iter()
        .map(|(serial, role, x, y, z)| device_body(serial, *role, [*x, *y, *z]))
        .collect();
    bodies.push(super::tag_body(WALKER, 4));
    bodies.push(device_body(REFERENCE, 4, REFERENCE_AT));
    for body in bodies {
        client.expect_ok("POST", &format!("/nets/{NET}/devices"), Some(&body))?;
    }
    step(&format!(
        "tracking: the README's room beside it, for {} s",
        RUN.as_secs()
    ));
    net_action(client, NET, "start")?;
    Ok(Instant::now())
}

/// Waits out the room's ten minutes, then prints its reference tag's
/// figures against the goal.
pub(super) fn finish(client: &Client, started: Instant) -> Result<()> {
    thread::sleep(RUN.saturating_sub(started.elapsed()));
    let accuracy = client
        .expect_ok("GET", &format!("/nets/{NET}/accuracy"), None)?
        .payload("accuracy")?;
    net_action(client, NET, "stop")?;
    let reference = accuracy
        .as_array()
        .context("accuracy is a list")?
        .iter()
        .find(|entry| entry["serial_number"] == REFERENCE)
        .context("no accuracy for the README's reference tag")?;
    let number = |field: &str| reference[field].as_f64().with_context(|| field.to_owned());
    let largest = number("max_error_mm")?;
    println!(
        "  the README's room, {} s: reference tag {} positions; largest tracked error {largest:.0} mm (per fix {:.0}; goal <= 500: {}); RMS {:.1} tracked / {:.1} per fix",
        RUN.as_secs(),
        reference["fixes"].as_u64().unwrap_or(0),
        number("fix_max_mm")?,
        met(largest <= 500.0),
        number("rms_mm")?,
        number("fix_rms_mm")?,
    );
    Ok(())
}
