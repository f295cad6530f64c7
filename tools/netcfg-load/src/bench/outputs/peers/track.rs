//! Each tag's single positions followed at the subscriber: the repeats,
//! and the holes in each tag's sequence of network times, placed in time
//! so the outage can say which span lost them.

use std::{
    collections::{HashMap, HashSet, hash_map::DefaultHasher},
    hash::{Hash, Hasher},
};

use crate::bench::events;

/// The single-position messages of each tag, followed: repeats, and gaps
/// in each tag's sequence of network times (a tag reports every
/// [`events::TAG_PERIOD_UNITS`]).
///
/// A position's network time is that of the simulator's tick that made it
/// (every 10 ms): a tick that comes late can hold two positions of a tag,
/// with one network time (and a hole before them, which the second one
/// fills). So a repeat is the same tag with the same payload, byte for
/// byte; another position of a tag at its last network time is one of
/// those and closes that hole.
#[derive(Debug, Default, Clone)]
pub(crate) struct Track {
    /// Each tag's last network time and `time_ms`, and the gap that led
    /// to it.
    last: HashMap<String, (u64, u64, Option<usize>)>,
    /// A hash of each (tag, payload) received.
    seen: HashSet<u64>,
    /// Positions received again (same tag, same payload).
    pub(crate) repeats: u64,
    /// The `time_ms` of each of those.
    pub(crate) repeated_at: Vec<u64>,
    /// Positions older than their tag's last one (not repeats).
    pub(crate) out_of_order: u64,
    /// Positions with the network time of their tag's last one (two in one
    /// late tick).
    pub(crate) same_tick: u64,
    /// Each gap: the `time_ms` of the positions either side of it, and
    /// how many positions are missing between them.
    pub(crate) gaps: Vec<(u64, u64, u64)>,
    /// The tag of each gap.
    pub(crate) gap_tags: Vec<String>,
    /// Payloads without a network time or `time_ms`.
    pub(crate) unreadable: u64,
}

impl Track {
    /// Follows one position of `serial` (its message's payload).
    pub(crate) fn record(&mut self, serial: &str, payload: &[u8]) {
        let (Some(network_time), Some(time_ms)) = (
            field_u64(payload, "network_time"),
            field_u64(payload, "time_ms"),
        ) else {
            self.unreadable += 1;
            return;
        };
        let mut hasher = DefaultHasher::new();
        (serial, payload).hash(&mut hasher);
        if !self.seen.insert(hasher.finish()) {
            self.repeats += 1;
            self.repeated_at.push(time_ms);
            return;
        }
        match self.last.get_mut(serial) {
            Some(last) if network_time < last.0 => self.out_of_order += 1,
            Some(last) if network_time == last.0 => {
                self.same_tick += 1;
                if let Some(index) = last.2
                    && let Some(gap) = self.gaps.get_mut(index)
                    && gap.2 > 0
                {
                    gap.2 -= 1;
                }
            }
            Some(last) => {
                let periods = ((network_time - last.0) as f64 / events::TAG_PERIOD_UNITS as f64)
                    .round() as u64;
                let mut gap = None;
                if periods > 1 {
                    gap = Some(self.gaps.len());
                    self.gaps.push((last.1, time_ms, periods - 1));
                    self.gap_tags.push(serial.to_owned());
                }
                *last = (network_time, time_ms, gap);
            }
            None => {
                self.last
                    .insert(serial.to_owned(), (network_time, time_ms, None));
            }
        }
    }

    /// Missing positions whose time falls in `[from_ms, to_ms)`, each
    /// placed evenly between the positions either side of its gap.
    pub(crate) fn missing(&self, from_ms: u64, to_ms: u64) -> u64 {
        let mut count = 0;
        for &(before, after, missing) in &self.gaps {
            let span = after.saturating_sub(before) as f64;
            for index in 1..=missing {
                let at = before as f64 + span * index as f64 / (missing + 1) as f64;
                if (from_ms as f64..to_ms as f64).contains(&at) {
                    count += 1;
                }
            }
        }
        count
    }

    /// Repeated positions whose time falls in `[from_ms, to_ms)`.
    pub(crate) fn repeated(&self, from_ms: u64, to_ms: u64) -> u64 {
        self.repeated_at
            .iter()
            .filter(|at| (from_ms..to_ms).contains(at))
            .count() as u64
    }
}

/// The number after `"name":` in a JSON object's text.
pub(crate) fn field_u64(json: &[u8], name: &str) -> Option<u64> {
    let pattern = format!("\"{name}\":");
    let start = json
        .windows(pattern.len())
        .position(|window| window == pattern.as_bytes())?
        + pattern.len();
    let digits: &[u8] = &json[start..];
    let end = digits
        .iter()
        .position(|byte| !byte.is_ascii_digit())
        .unwrap_or(digits.len());
    std::str::from_utf8(&digits[..end]).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_numbers_in_json_text() {
        let payload = br#"{"x":-5,"network_time":1234567,"time_ms":1764150000123}"#;
        assert_eq!(field_u64(payload, "network_time"), Some(1_234_567));
        assert_eq!(field_u64(payload, "time_ms"), Some(1_764_150_000_123));
        assert_eq!(field_u64(payload, "x"), None);
        assert_eq!(field_u64(payload, "quality"), None);
    }

    #[test]
    fn follows_each_tags_positions() {
        let period = events::TAG_PERIOD_UNITS;
        let position = |network_time: u64, time_ms: u64| {
            format!(r#"{{"x":1,"network_time":{network_time},"time_ms":{time_ms}}}"#)
        };
        let mut track = Track::default();
        // Tag a: 0, 1, (2, 3 missing), 4 a little late, 4 again, then 1.
        for (network_time, time_ms) in [
            (0, 1_000),
            (period, 1_100),
            (4 * period + period / 10, 1_400),
            (4 * period + period / 10, 1_400),
            (period, 1_100),
        ] {
            track.record("01:0D:0001", position(network_time, time_ms).as_bytes());
        }
        // Tag c: a late tick holds two positions (beacons 1 and 2, told
        // apart by their coordinates); nothing is missing.
        for (x, network_time) in [
            (1, 0),
            (2, 2 * period + period / 5),
            (3, 2 * period + period / 5),
            (4, 3 * period),
        ] {
            let payload = format!(r#"{{"x":{x},"network_time":{network_time},"time_ms":5}}"#);
            track.record("01:0D:0003", payload.as_bytes());
        }
        // Tag b: steady, a tick early or late.
        for (index, jitter) in [0u64, 9_750, 0, 9_750].into_iter().enumerate() {
            let network_time = index as u64 * period + jitter;
            track.record("01:0D:0002", position(network_time, 1_000).as_bytes());
        }
        track.record("01:0D:0002", b"{}");
        assert_eq!(track.gaps, [(1_100, 1_400, 2), (5, 5, 0)]);
        assert_eq!(
            (
                track.repeats,
                track.out_of_order,
                track.same_tick,
                track.unreadable
            ),
            (2, 0, 1, 1)
        );
        // The two missing ones sit at 1,200 and 1,300.
        assert_eq!(track.missing(1_000, 1_200), 0);
        assert_eq!(track.missing(1_200, 1_250), 1);
        assert_eq!(track.missing(1_250, 2_000), 1);
        assert_eq!(track.missing(0, u64::MAX), 2);
        assert_eq!(track.repeated(1_400, 1_401), 1);
        assert_eq!(track.repeated(0, u64::MAX), 2);
    }
}
