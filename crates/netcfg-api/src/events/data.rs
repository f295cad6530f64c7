//! What each event carries (its `data:` object) and how an event is written
//! on the wire. The types are the contract the OpenAPI document describes.

use actix_web::web::Bytes;
pub use netcfg_model::event::{
    DeviceEvent, DeviceHappening, NotificationEvent, PositionEntry, PositionEvent, StateChange,
    StateEvent, ZoneEvent, ZoneHappening,
};
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
