//! The answer of the calculation: the `maximum_tags_calculation` payload.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{network_mode::NetworkMode, time::NetworkTime};

/// What stops the network from carrying more tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LimitingFactor {
    /// The tags' slots fill the airtime the seeders leave.
    Airtime,
    /// The schedule runs in cycles of `maximum_tag_period`: the tag period is
    /// not a whole number of cycles, so tags beacon at the whole number of
    /// cycles below it (`effective_tag_period`), and fewer fit than the tag
    /// period alone would allow.
    MaximumTagPeriod,
    /// A rule of the inputs: the seeders' timing packets alone fill the
    /// channel (too many seeders, or too short a seeder period), so no tag
    /// fits.
    Seeders,
}

/// How many tags a network carries, and the airtime breakdown behind the
/// figure. Durations are in microseconds, rounded to the nanosecond; "per tag
/// period" means per `effective_tag_period`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct MaxTagsResult {
    /// The largest number of tags the network carries at the tag period.
    pub maximum_tags: u32,
    /// What stops it from carrying more.
    pub limiting_factor: LimitingFactor,
    /// The mode the figure is for: a location is one beacon (MultiTime) or
    /// one ranging exchange (MultiRange).
    pub network_mode: NetworkMode,
    /// The period tags beacon at: the tag period rounded down to a whole
    /// number of `maximum_tag_period` cycles, in network time units.
    pub effective_tag_period: NetworkTime,
    /// `effective_tag_period` in microseconds.
    pub tag_period_us: f64,
    /// Bytes a tag sends per beacon on average: the overhead of each frame
    /// plus its sensor and user data, amortised over their periods.
    pub beacon_bytes: f64,
    /// Frames a beacon needs on average (more than 1 when its data does not
    /// fit one frame).
    pub frames_per_beacon: f64,
    /// Airtime of a tag's beacon: preamble, SFD, PHY header, data and parity.
    pub frame_airtime_us: f64,
    /// Airtime of one location: the beacon (MultiTime), or the beacon as a
    /// poll plus the anchors' responses, the final frame and the turnarounds
    /// between them (MultiRange).
    pub exchange_airtime_us: f64,
    /// The guard time each tag slot adds (see `docs/max-tags.md`).
    pub guard_time_us: f64,
    /// The downlink window each tag slot keeps.
    pub window_us: f64,
    /// The length of one tag's slot: exchange, guard and window.
    pub slot_us: f64,
    /// Airtime of one seeder timing packet.
    pub seeder_frame_airtime_us: f64,
    /// Airtime the seeders' timing packets and their guards take per tag
    /// period.
    pub seeder_airtime_us: f64,
    /// Airtime left for tags per tag period (never negative).
    pub airtime_left_for_tags_us: f64,
    /// Locations per second the network produces at `maximum_tags`.
    pub locations_per_second: f64,
}
