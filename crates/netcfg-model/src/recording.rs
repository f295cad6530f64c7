//! Recordings of a configuration's data streams and their replay
//! (decisions §15).

use std::{fmt, str::FromStr};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::names::{ConfigName, RecordingName};

/// The longest recording asked for by `duration_s`: a week.
pub const MAX_RECORDING_S: u32 = 7 * 24 * 3_600;
/// The slowest replay.
pub const MIN_REPLAY_SPEED: f64 = 0.1;
/// The fastest replay.
pub const MAX_REPLAY_SPEED: f64 = 50.0;

/// Why a recording ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecordingEnd {
    /// Its `duration_s` passed.
    Duration,
    /// A DELETE stopped it.
    Stopped,
    /// Its configuration stopped.
    NetworkStopped,
    /// It reached the size limit of one recording.
    RecordingLimit,
    /// All recordings together reached their size limit.
    TotalLimit,
    /// The disk was (nearly) full, or a write failed.
    Disk,
    /// The server stopped (or crashed) while it recorded.
    Interrupted,
    /// It was uploaded, not recorded here.
    Uploaded,
}

/// A recording, as listed (`recording`, `recordings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Recording {
    /// Its name, unique within its configuration.
    pub name: RecordingName,
    /// Bytes of its capture file.
    pub size: u64,
    /// When its first datagram was sent (or, before any, when it started),
    /// milliseconds since the Unix epoch.
    pub started_ms: u64,
    /// From its first datagram to its last, milliseconds.
    pub duration_ms: u64,
    /// Datagrams it holds.
    pub datagrams: u64,
    /// Whether it is still recording.
    pub active: bool,
    /// Why it ended; absent while it records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<RecordingEnd>,
}

/// How fast a replay runs: 0.1 to 50 times the recording's pace, kept in
/// thousandths so that it compares exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReplaySpeed(u32);

/// A speed out of range or not a number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a replay speed is a number from 0.1 to 50")]
pub struct ReplaySpeedError;

impl ReplaySpeed {
    /// The recording's own pace.
    pub const REAL_TIME: Self = Self(1_000);

    /// The speed as a factor.
    pub fn factor(self) -> f64 {
        f64::from(self.0) / 1_000.0
    }

    /// The speed of `factor`, rounded to thousandths.
    ///
    /// # Errors
    /// Not within 0.1 to 50.
    pub fn from_factor(factor: f64) -> Result<Self, ReplaySpeedError> {
        if !(MIN_REPLAY_SPEED..=MAX_REPLAY_SPEED).contains(&factor) {
            return Err(ReplaySpeedError);
        }
        Ok(Self((factor * 1_000.0).round() as u32))
    }
}

impl Default for ReplaySpeed {
    fn default() -> Self {
        Self::REAL_TIME
    }
}

impl fmt::Display for ReplaySpeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, thousandths) = (self.0 / 1_000, self.0 % 1_000);
        if thousandths == 0 {
            return write!(f, "{whole}");
        }
        let fraction = format!("{thousandths:03}");
        write!(f, "{whole}.{}", fraction.trim_end_matches('0'))
    }
}

impl FromStr for ReplaySpeed {
    type Err = ReplaySpeedError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let plain = !text.is_empty()
            && text.len() <= 12
            && text.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        if !plain {
            return Err(ReplaySpeedError);
        }
        Self::from_factor(text.parse().map_err(|_| ReplaySpeedError)?)
    }
}

impl Serialize for ReplaySpeed {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.factor())
    }
}

impl<'de> Deserialize<'de> for ReplaySpeed {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let factor = f64::deserialize(deserializer)?;
        Self::from_factor(factor).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for ReplaySpeed {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ReplaySpeed".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "number",
            "minimum": MIN_REPLAY_SPEED,
            "maximum": MAX_REPLAY_SPEED,
            "description": "Times the recording's own pace."
        })
    }
}

/// What a `replay:` instance plays: `replay:<net_name>/<recording>`, with
/// `?speed=0.1..50` and `loop=1` optional.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReplaySource {
    /// The configuration the recording belongs to.
    pub net: ConfigName,
    /// The recording.
    pub recording: RecordingName,
    /// How fast it plays at the start.
    pub speed: ReplaySpeed,
    /// Whether it starts again at its end.
    pub looping: bool,
}

impl ReplaySource {
    /// Reads the text after `replay:`.
    ///
    /// # Errors
    /// Each problem, said in words.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (path, query) = match text.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (text, None),
        };
        let Some((net, recording)) = path.split_once('/') else {
            return Err("a replay names `replay:<net_name>/<recording>`".to_owned());
        };
        let net: ConfigName = net.parse().map_err(|error| format!("{error}"))?;
        let recording: RecordingName = recording.parse().map_err(|error| format!("{error}"))?;
        let mut speed = ReplaySpeed::REAL_TIME;
        let mut looping = false;
        for pair in query.into_iter().flat_map(|query| query.split('&')) {
            match pair.split_once('=') {
                Some(("speed", value)) => {
                    speed = value.parse().map_err(|error| format!("{error}"))?;
                }
                Some(("loop", "1" | "true")) => looping = true,
                Some(("loop", "0" | "false")) => looping = false,
                Some(("loop", _)) => return Err("`loop` is 0 or 1".to_owned()),
                _ => {
                    return Err(format!(
                        "`{}` is not a replay parameter (speed, loop)",
                        pair.chars().take(40).collect::<String>()
                    ));
                }
            }
        }
        Ok(Self {
            net,
            recording,
            speed,
            looping,
        })
    }
}

impl fmt::Display for ReplaySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.net, self.recording)?;
        let mut separator = '?';
        if self.speed != ReplaySpeed::REAL_TIME {
            write!(f, "{separator}speed={}", self.speed)?;
            separator = '&';
        }
        if self.looping {
            write!(f, "{separator}loop=1")?;
        }
        Ok(())
    }
}

/// Where a running replay stands (`GET .../replay`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReplayState {
    /// The configuration the recording belongs to.
    pub net: ConfigName,
    /// The recording played.
    pub recording: RecordingName,
    /// How fast it plays.
    pub speed: ReplaySpeed,
    /// Whether it is paused.
    pub paused: bool,
    /// Whether it starts again at its end.
    #[serde(rename = "loop")]
    pub looping: bool,
    /// Where it is, milliseconds from the recording's first datagram.
    pub position_ms: u64,
    /// The recording's length, milliseconds.
    pub duration_ms: u64,
    /// Whether it played to its end (and does not loop).
    pub finished: bool,
    /// Datagrams played since the start.
    pub datagrams: u64,
    /// Times it started again from the beginning.
    pub loops: u64,
}

/// What a replay is asked to change; `None` keeps what it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplayControl {
    /// Pauses (true) or resumes (false).
    pub paused: Option<bool>,
    /// A new speed.
    pub speed: Option<ReplaySpeed>,
    /// Jumps to this point, milliseconds from the recording's first
    /// datagram (past its end: to its end).
    pub position_ms: Option<u64>,
    /// Starts again at the end, or not.
    pub looping: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_source_reads_and_writes_back() {
        let source = ReplaySource::parse("site/night_1?speed=2.5&loop=1").unwrap();
        assert_eq!(source.net.as_str(), "site");
        assert_eq!(source.recording.as_str(), "night_1");
        assert_eq!(source.speed.factor(), 2.5);
        assert!(source.looping);
        assert_eq!(source.to_string(), "site/night_1?speed=2.5&loop=1");
        let plain = ReplaySource::parse("site/r").unwrap();
        assert_eq!(plain.to_string(), "site/r");
        assert_eq!(
            ReplaySource::parse("site/r?speed=0.1").unwrap().to_string(),
            "site/r?speed=0.1"
        );
    }

    #[test]
    fn a_bad_replay_source_says_why() {
        for (text, says) in [
            ("site", "replay:<net_name>/<recording>"),
            ("../x/r", "configuration name"),
            ("site/a/b", "recording name"),
            ("site/r?speed=51", "0.1 to 50"),
            ("site/r?speed=0.01", "0.1 to 50"),
            ("site/r?speed=-1", "0.1 to 50"),
            ("site/r?speed=NaN", "0.1 to 50"),
            ("site/r?loop=2", "0 or 1"),
            ("site/r?colour=red", "not a replay parameter"),
        ] {
            let error = ReplaySource::parse(text).unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
    }

    #[test]
    fn speeds_print_plainly() {
        for (text, shown) in [("1", "1"), ("0.25", "0.25"), ("50", "50"), ("10.0", "10")] {
            assert_eq!(text.parse::<ReplaySpeed>().unwrap().to_string(), shown);
        }
    }
}
