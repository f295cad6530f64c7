//! What each event carries (its `data:` object) and how an event is written
//! on the wire. The types are the contract the OpenAPI document describes.

use actix_web::web::Bytes;
use netcfg_model::{Connectivity, DeviceStatus, Notification, SerialNumber, Synchronisation};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;

/// The events a stream can carry, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A new notification.
    Notification,
    /// A configuration was created, deleted, renamed, started or stopped,
    /// or its link went down.
    State,
    /// A device joined, was lost, or its health changed.
    Device,
    /// A batch of positions.
    Position,
    /// A resource of a configuration changed through the API.
    Change,
    /// The client fell behind and missed events: reload the state.
    Resync,
    /// A tag entered or left a zone.
    Zone,
}

impl EventKind {
    /// Every kind.
    pub const ALL: [Self; 7] = [
        Self::Notification,
        Self::State,
        Self::Device,
        Self::Position,
        Self::Change,
        Self::Resync,
        Self::Zone,
    ];

    /// The event's name on the wire (`event:`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Notification => "notification",
            Self::State => "state",
            Self::Device => "device",
            Self::Position => "position",
            Self::Change => "change",
            Self::Resync => "resync",
            Self::Zone => "zone",
        }
    }

    /// The kind named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }

    /// The schema of this kind's `data:` object.
    fn schema(self, generator: &mut SchemaGenerator) -> Schema {
        match self {
            Self::Notification => generator.subschema_for::<NotificationEvent<'static>>(),
            Self::State => generator.subschema_for::<StateEvent>(),
            Self::Device => generator.subschema_for::<DeviceEvent>(),
            Self::Position => generator.subschema_for::<PositionEvent>(),
            Self::Change => generator.subschema_for::<ChangeEvent>(),
            Self::Resync => generator.subschema_for::<ResyncEvent>(),
            Self::Zone => generator.subschema_for::<ZoneEvent>(),
        }
    }
}

/// A set of event kinds (`types=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventKinds(u8);

impl EventKinds {
    /// Every kind.
    pub fn all() -> Self {
        Self(
            EventKind::ALL
                .iter()
                .fold(0, |bits, kind| bits | kind.bit()),
        )
    }

    /// No kind.
    pub fn none() -> Self {
        Self(0)
    }

    /// The set with `kind` added.
    pub fn with(self, kind: EventKind) -> Self {
        Self(self.0 | kind.bit())
    }

    /// Whether `kind` is in the set.
    pub fn contains(self, kind: EventKind) -> bool {
        self.0 & kind.bit() != 0
    }
}

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
    /// The solver's own 95% horizontal error estimate, mm.
    pub error_mm: u32,
    /// When the network solved it, in units of 1/975,000 s.
    pub network_time: u64,
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

/// `change`: a resource of `net` changed through the API.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangeEvent {
    /// The configuration.
    pub net: String,
    /// The resource: the route's path template (for example
    /// `/nets/{net_name}/devices/{device_key}`).
    pub resource: String,
    /// The request's method.
    pub method: String,
    /// The request's path.
    pub path: String,
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

/// `resync`: this client fell behind and missed events; reload the state.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ResyncEvent {
    /// Why.
    pub reason: String,
}

/// Writes one event: `event:`, `id:` if any, and `data:` (one JSON line).
pub fn render<T: Serialize>(kind: EventKind, id: Option<&str>, data: &T) -> Bytes {
    let mut text = Vec::with_capacity(128);
    text.extend_from_slice(b"event: ");
    text.extend_from_slice(kind.as_str().as_bytes());
    if let Some(id) = id {
        text.extend_from_slice(b"\nid: ");
        text.extend_from_slice(id.as_bytes());
    }
    text.extend_from_slice(b"\ndata: ");
    // Derived Serialize of strings and numbers: writing to a Vec cannot fail,
    // and JSON escapes every newline, so the data stays on one line.
    let _ = serde_json::to_writer(&mut text, data);
    text.extend_from_slice(b"\n\n");
    Bytes::from(text)
}

/// The comment that keeps an idle connection open.
pub const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// The schema of one event of a stream: its `event` name, `id` (for
/// notifications) and `data` object, one alternative per kind.
pub fn stream_schema(generator: &mut SchemaGenerator) -> Schema {
    let alternatives: Vec<Schema> = EventKind::ALL
        .into_iter()
        .map(|kind| {
            let data = kind.schema(generator);
            let mut properties = serde_json::Map::new();
            properties.insert("event".into(), serde_json::json!({"const": kind.as_str()}));
            if kind == EventKind::Notification {
                properties.insert(
                    "id".into(),
                    serde_json::json!({
                        "type": "string",
                        "description": "The notification's identifier (on `/events`: `{net}:{identifier}`); send it back as `Last-Event-ID` to resume after it."
                    }),
                );
            }
            properties.insert("data".into(), data.to_value());
            json_schema!({
                "title": kind.as_str(),
                "type": "object",
                "required": ["event", "data"],
                "properties": properties,
            })
        })
        .collect();
    json_schema!({
        "description": "Server-Sent Events: each event has an `event:` name, an `id:` for notifications, and a `data:` line holding one JSON object; a comment line (`: keep-alive`) comes every 15 s.",
        "oneOf": alternatives,
    })
}
