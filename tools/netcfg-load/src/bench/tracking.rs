//! Tracks (issue 48, decisions §18) on the real server, from outside: the
//! round-3 room (six anchors at 2 to 4 m in 20 m × 15 m, 30 mm timing
//! noise, 5% of measurements NLOS with a mean delay of 500 mm), with
//! standing tags of both kinds (reference tags, and tags without
//! coordinates made to stand by the simulator's `still=`, which the
//! tracker cannot tell from walkers that stopped) and walking tags.
//!
//! `GET /accuracy` gives, for each tag, the tracked (delivered) figures and
//! the per-beacon fixes' side by side: reference tags against their
//! configured position, every other tag against the simulator's true
//! position at each beacon (only that tally sees the truth). Goals:
//! - standing: tracked RMS ≤ 0.5 × the fixes' RMS, and no tracked position
//!   more than 300 mm off;
//! - walking: tracked RMS ≤ 0.75 × the fixes' RMS;
//! - `error_mm` covers 85% to 99.5% of the tracked positions, standing or
//!   walking.
//!
//! Beside them, in the same run: a tag standing on a zone's edge, tracked
//! and per fix (`tracking/edge.rs`), and the README's four-anchor room for
//! ten minutes (`tracking/readme.rs`). The turns are measured by the
//! tracker's own seeded simulation (`locate/track_tests.rs`).

mod edge;
mod readme;

use std::{path::Path, thread, time::Duration};

use anyhow::{Context, Result};

use super::{
    accuracy::{device_body, room_with_anchors},
    met, net_action, step,
};
use crate::server::{Client, Launch, Rng, Value};

/// Reference tags: serial, x, y (mm), at 1 m.
const REFERENCES: [(&str, f64, f64); 3] = [
    ("01:05:0001", 4_000.0, 3_500.0),
    ("01:05:0002", 10_000.0, 7_500.0),
    ("01:05:0003", 16_000.0, 11_500.0),
];
/// Tags without coordinates that the simulator makes stand: serial, x, y.
const STILL: [(&str, f64, f64); 3] = [
    ("01:05:0011", 6_000.0, 11_000.0),
    ("01:05:0012", 14_000.0, 4_000.0),
    ("01:05:0013", 9_000.0, 9_500.0),
];
/// Tags without coordinates that walk.
const WALKERS: [&str; 4] = ["01:05:0021", "01:05:0022", "01:05:0023", "01:05:0024"];
const TAG_HEIGHT: f64 = 1_000.0;

/// One tag's figures.
#[derive(Debug, Clone)]
struct Figures {
    serial: String,
    fixes: u64,
    rms: f64,
    max: f64,
    within: f64,
    fix_rms: f64,
    fix_max: f64,
}

impl Figures {
    fn ratio(&self) -> f64 {
        self.rms / self.fix_rms.max(f64::MIN_POSITIVE)
    }

    fn of(entry: &Value) -> Result<Self> {
        let number = |field: &str| entry[field].as_f64().with_context(|| field.to_owned());
        Ok(Self {
            serial: entry["serial_number"]
                .as_str()
                .context("a serial")?
                .to_owned(),
            fixes: entry["fixes"].as_u64().unwrap_or(0),
            rms: number("rms_mm")?,
            max: number("max_error_mm")?,
            within: number("within_estimate")?,
            fix_rms: number("fix_rms_mm")?,
            fix_max: number("fix_max_mm")?,
        })
    }
}

/// The accuracy bench's room with this bench's tags.
fn build_room(client: &Client, net: &str) -> Result<()> {
    room_with_anchors(client, net)?;
    let mut devices: Vec<String> = REFERENCES
        .iter()
        .map(|(serial, x, y)| device_body(serial, 4, [*x, *y, TAG_HEIGHT]))
        .collect();
    devices.extend(STILL.iter().map(|(serial, _, _)| tag_body(serial, 4)));
    devices.extend(WALKERS.iter().map(|serial| tag_body(serial, 4)));
    for body in devices {
        client.expect_ok("POST", &format!("/nets/{net}/devices"), Some(&body))?;
    }
    Ok(())
}

/// A tag without coordinates in tag role `role`.
fn tag_body(serial: &str, role: u64) -> String {
    format!(
        r#"{{"serial_number": "{serial}", "disabled": false, "interfaces": [{{"identifier": 0, "role_id": {role}}}]}}"#
    )
}

pub(crate) fn measure(binary: &Path, dir: &Path, seconds: u32) -> Result<()> {
    let launch = Launch::new(
        binary,
        &dir.join("tracking"),
        &dir.join("server-tracking.log"),
    );
    let server = launch.start()?;
    let client = server.client();
    let readme_started = readme::start(&client)?;
    let net = "room";
    build_room(&client, net)?;
    let run_seconds = (seconds * 24).max(60);
    let seed = Rng::seed_from_clock() % 1_000_000_000;
    let mut still: Vec<String> = STILL
        .iter()
        .map(|(serial, x, y)| format!("{serial}:{x}:{y}:{TAG_HEIGHT}"))
        .collect();
    still.extend(edge::add(&client, net)?);
    let instance = format!(
        "sim?toa_noise_mm=30&nlos=0.05&nlos_bias_mm=500&seed={seed}&still={}",
        still.join(";")
    );
    let body = format!(r#"{{"name": "{net}", "instance": "{instance}"}}"#);
    client.expect_ok("PATCH", &format!("/nets/{net}"), Some(&body))?;
    step(&format!(
        "tracking: {} reference, {} still and {} walking tags for {run_seconds} s (seed {seed})",
        REFERENCES.len(),
        STILL.len(),
        WALKERS.len()
    ));
    let crossings = edge::count(server.port(), net)?;
    net_action(&client, net, "start")?;
    thread::sleep(Duration::from_secs(u64::from(run_seconds)));
    let accuracy = client
        .expect_ok("GET", &format!("/nets/{net}/accuracy"), None)?
        .payload("accuracy")?;
    net_action(&client, net, "stop")?;
    let figures: Vec<Figures> = accuracy
        .as_array()
        .context("accuracy is a list")?
        .iter()
        .map(Figures::of)
        .collect::<Result<_>>()?;
    print(&figures)?;
    edge::print(&crossings);
    readme::finish(&client, readme_started)
}

fn print(figures: &[Figures]) -> Result<()> {
    let standing: Vec<&str> = REFERENCES
        .iter()
        .chain(STILL.iter())
        .map(|(serial, _, _)| *serial)
        .collect();
    let pick = |serials: &[&str]| -> Result<Vec<&Figures>> {
        serials
            .iter()
            .map(|serial| {
                figures
                    .iter()
                    .find(|figure| figure.serial == *serial)
                    .with_context(|| format!("no accuracy for {serial}"))
            })
            .collect()
    };
    let standing = pick(&standing)?;
    let walking = pick(&WALKERS)?;
    println!("tracking (issue 48): tracked against per-fix, each tag (mm)");
    for (kind, tags) in [("standing", &standing), ("walking", &walking)] {
        for tag in tags.iter() {
            println!(
                "  {kind} {}: {} positions; RMS {:.1} tracked / {:.1} per fix = {:.3}; largest {:.0} / {:.0}; within error_mm {:.1}%",
                tag.serial,
                tag.fixes,
                tag.rms,
                tag.fix_rms,
                tag.ratio(),
                tag.max,
                tag.fix_max,
                100.0 * tag.within
            );
        }
    }
    let worst = |tags: &[&Figures], of: fn(&Figures) -> f64| {
        tags.iter()
            .map(|tag| of(tag))
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let standing_ratio = worst(&standing, Figures::ratio);
    let standing_max = worst(&standing, |tag| tag.max);
    let walking_ratio = worst(&walking, Figures::ratio);
    let every: Vec<&Figures> = standing.iter().chain(walking.iter()).copied().collect();
    let least_within = -worst(&every, |tag| -tag.within);
    let most_within = worst(&every, |tag| tag.within);
    println!(
        "  standing: worst tracked / per-fix RMS {standing_ratio:.3} (goal <= 0.5: {}); largest tracked error {standing_max:.0} mm (goal <= 300: {})",
        met(standing_ratio <= 0.5),
        met(standing_max <= 300.0)
    );
    println!(
        "  walking: worst tracked / per-fix RMS {walking_ratio:.3} (goal <= 0.75: {})",
        met(walking_ratio <= 0.75)
    );
    println!(
        "  within their own error_mm: {:.1}% to {:.1}% (goal 85% to 99.5%: {})",
        100.0 * least_within,
        100.0 * most_within,
        met(least_within >= 0.85 && most_within <= 0.995)
    );
    Ok(())
}
