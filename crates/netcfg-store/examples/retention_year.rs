//! A year of a busy site in minutes (decisions §20; `cargo xtask bench
//! --only retention` runs it in release): one configuration of 50 anchors
//! and the default retention, day after simulated day 1,000 changes (each
//! a PATCH's worth: an anchor renamed and moved) and notifications from
//! the 50 devices, written by four threads so that commits group as the
//! server's do. After each day it waits until the writer has pruned back
//! within the bounds (the time a real day leaves it), and measures the
//! file (with its write-ahead log). The goal: under 500 MB all year.
//!
//! A real day brings 4,320,000 notifications (one a second from 50
//! devices); a simulated one brings [`NOTIFICATIONS_A_DAY`], stamped with
//! the time they are written (the pruner's clock is the real one, so a
//! simulated day's own time would make its notifications older than 90
//! days, and pruned as such, for most of the year). What the file holds
//! is the same: the count bound (50,000) is passed within 17 minutes of a
//! real day and again every simulated day, so every day ends with the
//! newest 50,000 or fewer. The history's ages are the real clock's too:
//! with 1,000 changes a day its count bound (100,000) is passed on day
//! 100, long before its age bound (365 days).
//!
//! Run: `cargo run --release -p netcfg-store --example retention_year --
//! <data dir> [days]`.

#![allow(clippy::print_stdout, reason = "a benchmark prints its figures")]

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use netcfg_model::{
    DeviceKey, Instance, Level, SerialNumber, body::DeviceBody, time::clock::wall_clock_ms,
};
use netcfg_store::{NewNotification, Retention, Store, StoreOptions};

const ANCHORS: u32 = 50;
const CHANGES_A_DAY: u32 = 1_000;
const NOTIFICATIONS_A_DAY: u64 = 20_000;
/// Notifications added in one call (a burst of the engine's).
const BURST: u64 = 50;
const WRITERS: u32 = 4;
const GOAL_BYTES: u64 = 500 * 1024 * 1024;

type Error = Box<dyn std::error::Error + Send + Sync>;

fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .ok_or("usage: retention_year <data dir> [days]")?,
    );
    let days: u64 = args.next().map_or(Ok(365), |days| days.parse())?;
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    let retention = Retention::default();
    let store = Store::open_with(
        &dir,
        StoreOptions {
            retention,
            ..StoreOptions::default()
        },
    )?;
    let name = "year".parse()?;
    store.create(&name, Instance::ServerDefault)?;
    let net = store.net(&name)?;
    for anchor in 0..ANCHORS {
        net.create_device(anchor_body(anchor, 0, 0))?;
    }
    let file = dir.join("year.sqlite");
    let counts =
        rusqlite::Connection::open_with_flags(&file, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    println!(
        "retention: {days} days of {CHANGES_A_DAY} changes and {NOTIFICATIONS_A_DAY} notifications from {ANCHORS} devices, default bounds ({} changes, {} notifications)",
        retention.history_keep, retention.notifications_keep
    );
    let started = Instant::now();
    let (mut largest, mut waited) = (0_u64, Duration::ZERO);
    for day in 0..days {
        std::thread::scope(|scope| {
            let writers: Vec<_> = (0..WRITERS)
                .map(|writer| {
                    let net = &net;
                    scope.spawn(move || write_day(net, day, writer))
                })
                .collect();
            writers
                .into_iter()
                .try_for_each(|writer| writer.join().map_err(|_| "a writer panicked")?)
        })?;
        let catching_up = Instant::now();
        while over_bounds(&counts, &retention)? {
            std::thread::sleep(Duration::from_millis(20));
        }
        waited += catching_up.elapsed();
        let size = size_on_disk(&file);
        largest = largest.max(size);
        if (day + 1) % 30 == 0 || day + 1 == days {
            let (history, notifications) = kept(&counts)?;
            println!(
                "retention: day {:3}: {:6.1} MB on disk, {history} changes and {notifications} notifications kept ({:.0} s so far)",
                day + 1,
                mb(size),
                started.elapsed().as_secs_f64()
            );
        }
    }
    let verdict = if largest < GOAL_BYTES {
        "met"
    } else {
        "NOT met"
    };
    println!(
        "retention: the largest the file was at a day's end: {:.1} MB ({verdict}, goal < {:.0} MB); {:.0} s in all, {:.1} s of it waiting for the pruning ({:.0} ms a simulated day)",
        mb(largest),
        mb(GOAL_BYTES),
        started.elapsed().as_secs_f64(),
        waited.as_secs_f64(),
        waited.as_secs_f64() * 1000.0 / days.max(1) as f64,
    );
    Ok(())
}

/// One writer's share of a day: its changes, then its notifications.
fn write_day(net: &netcfg_store::Net, day: u64, writer: u32) -> Result<(), Error> {
    for change in (writer..CHANGES_A_DAY).step_by(WRITERS as usize) {
        let anchor = change % ANCHORS;
        let key = DeviceKey::Serial(serial(anchor));
        net.replace_device(key, anchor_body(anchor, day, change))?;
    }
    let share = NOTIFICATIONS_A_DAY / u64::from(WRITERS);
    for burst in 0..share / BURST {
        let new = (0..BURST)
            .map(|index| {
                let anchor = (burst * BURST + index) as u32 % ANCHORS;
                NewNotification {
                    level: Level::Warning,
                    message: format!(
                        "Anchor {} lost 3 of its last 20 sync beacons from the seeder",
                        serial(anchor)
                    ),
                    serial_number: Some(serial(anchor)),
                    timestamp_ms: wall_clock_ms(),
                }
            })
            .collect();
        net.add_notifications(new)?;
    }
    Ok(())
}

fn serial(anchor: u32) -> SerialNumber {
    SerialNumber::from_u32(0x0104_0000 + anchor)
}

/// An anchor with a name and position that tell the day and the change.
fn anchor_body(anchor: u32, day: u64, change: u32) -> DeviceBody {
    let body = serde_json::json!({
        "serial_number": serial(anchor).to_string(),
        "name": format!("Anchor {anchor} day {day} change {change}"),
        "disabled": false,
        "interfaces": [{"identifier": 0, "role_id": 2,
                        "x": 1000 * anchor + change % 100, "y": (day % 50) * 10, "z": 2500}]
    });
    serde_json::from_value(body).expect("a valid anchor")
}

fn kept(counts: &rusqlite::Connection) -> rusqlite::Result<(u64, u64)> {
    counts.query_row(
        "SELECT (SELECT count(*) FROM history), (SELECT count(*) FROM notifications)",
        [],
        |row| {
            let count = |index| row.get::<_, i64>(index).map(i64::unsigned_abs);
            Ok((count(0)?, count(1)?))
        },
    )
}

fn over_bounds(counts: &rusqlite::Connection, retention: &Retention) -> rusqlite::Result<bool> {
    let (history, notifications) = kept(counts)?;
    Ok(history > retention.history_keep || notifications > retention.notifications_keep)
}

/// The file and its write-ahead log.
fn size_on_disk(file: &Path) -> u64 {
    let wal = file.with_extension("sqlite-wal");
    [file, wal.as_path()]
        .iter()
        .filter_map(|path| std::fs::metadata(path).ok())
        .map(|metadata| metadata.len())
        .sum()
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1_048_576.0
}
