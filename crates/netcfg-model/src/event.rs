//! The live events' payloads (decisions §8, §13, §14): the JSON objects that
//! the server's event stream carries in its `data:` lines and its outputs
//! publish over MQTT and webhooks, one type each, so both speak alike.

use schemars::JsonSchema;
use serde::Serialize;

use crate::{Connectivity, DeviceStatus, Notification, SerialNumber, Synchronisation};

/// `notification`: a new notification of `net`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct NotificationEvent<'a> {
    /// The configuration whose network raised it.
    pub net: &'a str,
    /// The notification, as `GET /nets/{net_name}/notifications/{identifier}` gives it.
    #[serde(flatten)]
    pub notification: &'a Notification,
}

/// What happened to a configuration (`state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StateChange {
    /// It was created (also by a copy or an upload).
    Created,
    /// It was deleted.
    Deleted,
    /// It was renamed (to `renamed_to`).
    Renamed,
    /// Its network started; its link is up.
    Started,
    /// Its network stopped.
    Stopped,
    /// Its link to the network interface device went down.
    LinkDown,
}

/// `state`: a configuration was created, deleted, renamed, started or
/// stopped, or its link went down.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StateEvent {
    /// The configuration (its name before a rename).
    pub net: String,
    /// What happened.
    pub state: StateChange,
    /// The new name, for a rename.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renamed_to: Option<String>,
}

/// What happened to a device (`device`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeviceHappening {
    /// It joined the network.
    Joined,
    /// It went silent.
    Lost,
    /// It reported a change of its health: status, connectivity or synchronisation.
    Health,
}

/// `device`: a device of `net` joined, was lost, or reported health.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DeviceEvent {
    /// The configuration.
    pub net: String,
    /// The device.
    pub serial_number: SerialNumber,
    /// What happened.
    pub event: DeviceHappening,
    /// Its connectivity now.
    pub connectivity: Connectivity,
    /// Its synchronisation now.
    pub synchronisation: Synchronisation,
    /// Its latest status report, if any.
    pub status: Option<DeviceStatus>,
}

/// One tag's position in a `position` batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PositionEntry {
    /// The tag.
    pub serial_number: SerialNumber,
    /// East, mm.
    pub x: i32,
    /// North, mm.
    pub y: i32,
    /// Height, mm.
    pub z: i32,
    /// Quality, 0 (worst) to 10,000 (best).
    pub quality: u16,
    /// The 95% horizontal error estimate, mm: the tracker's, or the
    /// solver's when the tag is not tracked.
    pub error_mm: u32,
    /// When the network solved it, in units of 1/975,000 s.
    pub network_time: u64,
    /// East velocity, mm/s (tracked tags only, decisions §18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vx: Option<i32>,
    /// North velocity, mm/s (tracked tags only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vy: Option<i32>,
}

/// `position`: the newest position of each tag of `net` that moved since
/// this client's previous batch.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PositionEvent<'a> {
    /// The configuration.
    pub net: &'a str,
    /// Each tag's newest position.
    pub positions: &'a [PositionEntry],
}

/// Entering or leaving (`zone`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ZoneHappening {
    /// The tag entered the zone.
    Enter,
    /// The tag left it.
    Exit,
}

/// `zone`: a tag of `net` entered or left a zone (decisions §13). Never
/// dropped the way positions are.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ZoneEvent {
    /// The configuration.
    pub net: String,
    /// The zone's name.
    pub zone: String,
    /// The tag.
    pub serial_number: SerialNumber,
    /// Entering or leaving.
    pub event: ZoneHappening,
    /// The tag's position that decided it: east, mm.
    pub x: i32,
    /// North, mm.
    pub y: i32,
    /// Height, mm.
    pub z: i32,
    /// The network time of that position, in units of 1/975,000 s; 0 when
    /// a change of the zone decided it.
    pub network_time: u64,
    /// When, in milliseconds since the Unix epoch.
    pub time_ms: u64,
}
