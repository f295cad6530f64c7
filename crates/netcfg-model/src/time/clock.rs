//! The clocks, each function named for the clock it reads, and the one
//! way a time stamp is written in UTC.
//!
//! The model's own logic never reads a clock: its functions take time
//! stamps as numbers, so they stay pure and testable. The layers above
//! read the clocks here rather than each keeping its own copy, so that a
//! "now" always means the clock its name says.

use std::{
    sync::OnceLock,
    time::{Instant, SystemTime, UNIX_EPOCH},
};

use chrono::{DateTime, Utc};

/// Now by the wall clock, in milliseconds since the Unix epoch (0 before
/// it, the largest value past `u64`'s range). The clock of every time
/// stamp that leaves the process: notifications, history, events.
pub fn wall_clock_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// [`wall_clock_ms`] as a signed count, as SQLite and the schedules keep it.
pub fn wall_clock_ms_signed() -> i64 {
    i64::try_from(wall_clock_ms()).unwrap_or(i64::MAX)
}

/// Now by the wall clock, in microseconds since the Unix epoch (a
/// capture's time stamps).
pub fn wall_clock_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX)
        })
}

/// Milliseconds by the monotonic clock since the process first asked:
/// never goes back when the wall clock is set, and fits an atomic. For
/// "how long since", never for a time stamp.
pub fn monotonic_ms() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn utc(ms: u64) -> DateTime<Utc> {
    i64::try_from(ms)
        .ok()
        .and_then(DateTime::from_timestamp_millis)
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// `ms` since the Unix epoch in UTC, to the millisecond:
/// `2026-11-21T07:31:00.123Z`.
pub fn utc_timestamp(ms: u64) -> String {
    utc(ms).format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// `ms` since the Unix epoch in UTC, to the second, for file names:
/// `20261121T073100Z`.
pub fn utc_file_stamp(ms: u64) -> String {
    utc(ms).format("%Y%m%dT%H%M%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00.000Z");
        // A leap day.
        assert_eq!(utc_timestamp(1_709_210_096_789), "2024-02-29T12:34:56.789Z");
        assert_eq!(utc_file_stamp(1_709_210_096_789), "20240229T123456Z");
    }

    #[test]
    fn the_monotonic_clock_never_goes_back_and_the_wall_clock_is_past_2026() {
        let first = monotonic_ms();
        assert!(monotonic_ms() >= first);
        assert!(wall_clock_ms() > 1_767_225_600_000, "after 2026-01-01");
        assert_eq!(wall_clock_us() / 1_000_000, wall_clock_ms() / 1_000);
    }
}
