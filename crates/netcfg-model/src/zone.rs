//! Zones (decisions.md §13): named areas of the floor, with the rules that
//! decide when a tag enters and leaves them and what the tag is told then.
//! The geometry and the live tracking are in [`crate::geofence`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{
    DeviceAction, RoleId, SerialNumber,
    geofence::{Fence, FenceId, MAX_POINTS, MIN_POINTS, Polygon, PolygonError},
    names::ItemName,
};

/// The default hysteresis, mm.
pub const DEFAULT_HYSTERESIS_MM: u32 = 150;
/// The largest hysteresis, mm: 10 m.
pub const MAX_HYSTERESIS_MM: u32 = 10_000;
/// The longest dwell, ms: an hour.
pub const MAX_DWELL_MS: u32 = 3_600_000;
/// The most tags or roles a zone may name.
pub const MAX_ZONE_FILTER: usize = 1_000;

macro_rules! bounded_u32 {
    ($name:ident, $max:expr, $unit:literal, $error:ident, $what:literal) => {
        #[doc = concat!("A ", $what, ", 0 to [`", stringify!($max), "`] ", $unit, ".")]
        #[derive(
            Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
        )]
        #[serde(try_from = "u32", into = "u32")]
        pub struct $name(u32);

        impl $name {
            /// The value.
            pub const fn get(self) -> u32 {
                self.0
            }
        }

        #[doc = concat!("A ", $what, " out of range.")]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
        #[error("{0} is out of range: at most {max} {unit}", max = $max, unit = $unit)]
        pub struct $error(pub u32);

        impl TryFrom<u32> for $name {
            type Error = $error;
            fn try_from(value: u32) -> Result<Self, Self::Error> {
                if value > $max {
                    Err($error(value))
                } else {
                    Ok(Self(value))
                }
            }
        }

        impl From<$name> for u32 {
            fn from(value: $name) -> Self {
                value.0
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "integer",
                    "minimum": 0,
                    "maximum": $max,
                    "description": concat!($what, ", ", $unit, ".")
                })
            }
        }
    };
}

pub(crate) use bounded_u32;

bounded_u32!(
    HysteresisMm,
    MAX_HYSTERESIS_MM,
    "mm",
    HysteresisOutOfRange,
    "hysteresis"
);
bounded_u32!(DwellMs, MAX_DWELL_MS, "ms", DwellOutOfRange, "dwell time");

impl HysteresisMm {
    /// 150 mm.
    pub const DEFAULT: Self = Self(DEFAULT_HYSTERESIS_MM);
}

/// A zone's outline: a simple polygon of 3 to 1,000 `[x, y]` points, mm.
#[derive(Debug, Clone, PartialEq)]
pub struct ZonePolygon(Polygon);

impl ZonePolygon {
    /// The outline through `points`, or why it is none.
    pub fn new(points: Vec<[i32; 2]>) -> Result<Self, PolygonError> {
        Polygon::new(points).map(Self)
    }

    /// The polygon.
    pub fn polygon(&self) -> &Polygon {
        &self.0
    }

    /// Its points.
    pub fn points(&self) -> &[[i32; 2]] {
        self.0.points()
    }
}

impl Eq for ZonePolygon {}

impl Serialize for ZonePolygon {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.points().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ZonePolygon {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let points = Vec::<[i32; 2]>::deserialize(deserializer)?;
        Self::new(points).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for ZonePolygon {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ZonePolygon".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "array",
            "description": "A simple polygon (no edge crosses another), [x, y] points in mm, closed back to the first.",
            "minItems": MIN_POINTS,
            "maxItems": MAX_POINTS,
            "items": {
                "type": "array",
                "minItems": 2,
                "maxItems": 2,
                "items": {"type": "integer", "format": "int32", "minimum": i32::MIN, "maximum": i32::MAX}
            }
        })
    }
}

/// A zone of a configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Zone {
    /// Unique name within the configuration.
    pub name: ItemName,
    /// The zone's number, given when it was added and kept through renames:
    /// the zone's id in the User stream's TagZoneInfo and GeofencerZoneInfo.
    pub zone_id: FenceId,
    /// Its outline.
    pub polygon: ZonePolygon,
    /// The lowest height inside, mm; none: no floor.
    pub z_min: Option<i32>,
    /// The highest height inside, mm; none: no ceiling.
    pub z_max: Option<i32>,
    /// How far inside a tag must be to enter, and outside to leave, mm.
    pub hysteresis_mm: HysteresisMm,
    /// How long a tag must stay inside before it enters, ms.
    pub dwell_ms: DwellMs,
    /// The tags it applies to; empty: every tag.
    pub tags: Vec<SerialNumber>,
    /// The roles it applies to; empty: every role.
    pub roles: Vec<RoleId>,
    /// The action sent to a tag that enters.
    pub on_enter: Option<DeviceAction>,
    /// The action sent to a tag that leaves.
    pub on_exit: Option<DeviceAction>,
}

impl Zone {
    /// The zone as the live tracker sees it.
    pub fn fence(&self) -> Fence {
        Fence {
            id: self.zone_id,
            polygon: self.polygon.polygon().clone(),
            z_min: self.z_min,
            z_max: self.z_max,
            hysteresis_mm: self.hysteresis_mm.get(),
            dwell_ms: self.dwell_ms.get(),
            tags: self.tags.clone(),
            roles: self.roles.clone(),
        }
    }
}

/// A tag inside a zone, as `GET .../zones/{zone_name}/occupancy` lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ZoneOccupant {
    /// The tag.
    pub serial_number: SerialNumber,
    /// When it entered, in milliseconds since the Unix epoch.
    pub since_ms: u64,
}

impl From<crate::geofence::Occupant> for ZoneOccupant {
    fn from(occupant: crate::geofence::Occupant) -> Self {
        Self {
            serial_number: occupant.serial_number,
            since_ms: occupant.since_ms,
        }
    }
}
