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
            Self::Position => {
                let objects = generator.subschema_for::<PositionEvent>();
                let compact = generator.subschema_for::<CompactPositionEvent>();
                json_schema!({
                    "description": "A batch of positions: objects by default, rows with `positions=compact`.",
                    "oneOf": [objects, compact],
                })
            }
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

/// How a stream writes its position batches (`positions=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PositionForm {
    /// One object per tag, each field named (the default).
    #[default]
    Objects,
    /// One array per tag, the fields in [`COMPACT_COLUMNS`] order: about
    /// half the bytes, for clients that read many positions (the web front
    /// end).
    Compact,
}

impl PositionForm {
    /// Both forms.
    pub const ALL: [Self; 2] = [Self::Objects, Self::Compact];

    /// Its name in `positions=`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Objects => "objects",
            Self::Compact => "compact",
        }
    }

    /// The form named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|form| form.as_str() == name)
    }

    /// Its place in arrays indexed by form.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl JsonSchema for PositionForm {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PositionForm".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "enum": PositionForm::ALL.map(PositionForm::as_str),
        })
    }
}

/// The fields of a compact row, in order. `network_time_offset` counts
/// from the batch's `network_time`; `vx` and `vy` are null for a tag that
/// is not tracked.
pub const COMPACT_COLUMNS: [&str; 9] = [
    "serial_number",
    "x",
    "y",
    "z",
    "quality",
    "error_mm",
    "network_time_offset",
    "vx",
    "vy",
];

/// `position` with `positions=compact`: the batch's earliest
/// `network_time`, and one row per tag.
#[derive(Debug, Serialize)]
pub struct CompactPositionEvent<'a> {
    /// The configuration.
    pub net: &'a str,
    /// The earliest `network_time` of the batch (1/975,000 s); each row's
    /// `network_time_offset` counts from it.
    pub network_time: u64,
    /// The fields of a row, in order ([`COMPACT_COLUMNS`]).
    pub columns: [&'static str; 9],
    /// One row per tag.
    pub rows: CompactRows<'a>,
}

impl<'a> CompactPositionEvent<'a> {
    /// The compact batch of `entries`.
    pub fn new(net: &'a str, entries: &'a [PositionEntry]) -> Self {
        let network_time = entries
            .iter()
            .map(|entry| entry.network_time)
            .min()
            .unwrap_or_default();
        Self {
            net,
            network_time,
            columns: COMPACT_COLUMNS,
            rows: CompactRows {
                base: network_time,
                entries,
            },
        }
    }
}

/// The rows of a compact batch.
#[derive(Debug)]
pub struct CompactRows<'a> {
    base: u64,
    entries: &'a [PositionEntry],
}

impl Serialize for CompactRows<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut rows = serializer.serialize_seq(Some(self.entries.len()))?;
        for entry in self.entries {
            rows.serialize_element(&(
                entry.serial_number,
                entry.x,
                entry.y,
                entry.z,
                entry.quality,
                entry.error_mm,
                entry.network_time - self.base,
                entry.vx,
                entry.vy,
            ))?;
        }
        rows.end()
    }
}

impl JsonSchema for CompactPositionEvent<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CompactPositionEvent".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let serial_number = generator.subschema_for::<netcfg_model::SerialNumber>();
        let integer =
            |description: &str| serde_json::json!({"type": "integer", "description": description});
        json_schema!({
            "description": "`position` with `positions=compact`: one row per tag, its fields in `columns` order.",
            "type": "object",
            "required": ["net", "network_time", "columns", "rows"],
            "properties": {
                "net": {"type": "string", "description": "The configuration."},
                "network_time": {"type": "integer", "minimum": 0, "description": "The batch's earliest network time (1/975,000 s); each row's `network_time_offset` counts from it."},
                "columns": {"type": "array", "items": {"type": "string"}, "description": "The fields of a row, in order: serial_number, x, y, z, quality, error_mm, network_time_offset, vx, vy."},
                "rows": {
                    "type": "array",
                    "description": "One row per tag: its newest position.",
                    "items": {
                        "type": "array",
                        "prefixItems": [
                            serial_number.to_value(),
                            integer("East, mm."),
                            integer("North, mm."),
                            integer("Height, mm."),
                            integer("Quality, 0 (worst) to 10,000 (best)."),
                            integer("The 95% horizontal error estimate, mm (the tracker's, or the solver's when untracked)."),
                            integer("1/975,000 s after the batch's `network_time`."),
                            {"type": ["integer", "null"], "description": "East velocity, mm/s; null when the tag is not tracked."},
                            {"type": ["integer", "null"], "description": "North velocity, mm/s; null when the tag is not tracked."},
                        ],
                        "minItems": 9,
                        "maxItems": 9,
                    },
                },
            },
        })
    }
}

/// Writes the `position` event of `entries` of `net` in `form`.
pub fn render_positions(net: &str, entries: &[PositionEntry], form: PositionForm) -> Bytes {
    match form {
        PositionForm::Objects => render(
            EventKind::Position,
            None,
            &PositionEvent {
                net,
                positions: entries,
            },
        ),
        PositionForm::Compact => render(
            EventKind::Position,
            None,
            &CompactPositionEvent::new(net, entries),
        ),
    }
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
