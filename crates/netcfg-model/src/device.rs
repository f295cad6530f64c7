//! Devices and their radio interfaces.

use crate::schema::fixed_schema;
use serde_with::{DeserializeFromStr, SerializeDisplay};
use std::{fmt, str::FromStr};

use serde_json::Value;

use crate::{
    json::{self, Fields, FromJson},
    names::ItemName,
    role::RoleId,
    serial::SerialNumber,
    validation::{Problems, Validate, join},
};

/// A device's integer id within a configuration: 1 to 9,999,999.
///
/// The upper bound keeps ids shorter than the 8-digit form of a serial
/// number, so a [`DeviceKey`] is never ambiguous.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "u32", into = "u32")]
pub struct DeviceId(u32);

/// A device id outside 1 to 9,999,999.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a device id: ids are 1 to 9999999")]
pub struct DeviceIdError(pub u64);

impl DeviceId {
    /// The largest device id.
    pub const MAX: u32 = 9_999_999;

    /// The integer value.
    pub const fn get(self) -> u32 {
        self.0
    }
}

impl TryFrom<u32> for DeviceId {
    type Error = DeviceIdError;
    fn try_from(value: u32) -> Result<Self, Self::Error> {
        if (1..=Self::MAX).contains(&value) {
            Ok(Self(value))
        } else {
            Err(DeviceIdError(value.into()))
        }
    }
}

impl From<DeviceId> for u32 {
    fn from(id: DeviceId) -> u32 {
        id.0
    }
}

impl fmt::Display for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

fixed_schema!(DeviceId, {"type": "integer", "minimum": 1, "maximum": 9_999_999, "description": "A device's integer id within its configuration."});

/// How a request names a device: by serial number or by integer id.
///
/// Text of the form `XX:XX:XXXX` or 8 hexadecimal digits is a serial
/// number; 1 to 7 decimal digits are an id.
///
/// ```
/// use netcfg_model::{DeviceKey, SerialNumber};
/// assert!(matches!("01:04:0719".parse(), Ok(DeviceKey::Serial(_))));
/// assert!(matches!("01040719".parse(), Ok(DeviceKey::Serial(_))));
/// assert!(matches!("42".parse(), Ok(DeviceKey::Id(_))));
/// assert!("0".parse::<DeviceKey>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, SerializeDisplay, DeserializeFromStr)]
pub enum DeviceKey {
    /// The device's serial number.
    Serial(SerialNumber),
    /// The device's id within the configuration.
    Id(DeviceId),
}

/// Text that is neither a serial number nor a device id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a device key: give a serial number (XX:XX:XXXX) or a device id (1 to 9999999)"
)]
pub struct DeviceKeyError(String);

impl FromStr for DeviceKey {
    type Err = DeviceKeyError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = || DeviceKeyError(text.chars().take(40).collect());
        if let Ok(serial) = text.parse::<SerialNumber>() {
            return Ok(Self::Serial(serial));
        }
        if text.is_empty() || text.len() > 7 || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(error());
        }
        let value: u32 = text.parse().map_err(|_| error())?;
        DeviceId::try_from(value).map(Self::Id).map_err(|_| error())
    }
}

impl fmt::Display for DeviceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Serial(serial) => serial.fmt(f),
            Self::Id(id) => id.fmt(f),
        }
    }
}

fixed_schema!(DeviceKey, {
    "type": "string",
    "description": "A device's serial number (XX:XX:XXXX or 8 hex digits) or its integer id (1 to 9999999).",
    "pattern": "^([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8}|[1-9][0-9]{0,6})$"
});

/// A radio interface of a device. Coordinates are in millimetres.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Interface {
    /// The interface's identifier on its device, 0 to 255 (usually 0).
    pub identifier: u8,
    /// The role of this interface.
    pub role_id: RoleId,
    /// East coordinate in mm; required for anchors and seeders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    /// North coordinate in mm; required for anchors and seeders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    /// Height in mm; required for anchors and seeders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z: Option<i32>,
}

impl Interface {
    /// The position of the interface, when all three coordinates are known.
    pub fn position(&self) -> Option<[i32; 3]> {
        Some([self.x?, self.y?, self.z?])
    }
}

impl FromJson for Interface {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        let mut fields = Fields::open(value, path, problems)?;
        let identifier = fields.required("identifier", problems);
        let role_id = fields.required("role_id", problems);
        let x = fields.optional("x", problems);
        let y = fields.optional("y", problems);
        let z = fields.optional("z", problems);
        let interface = Self {
            identifier: identifier?,
            role_id: role_id?,
            x,
            y,
            z,
        };
        fields.finish(problems).then_some(interface)
    }
}

impl Validate for Interface {
    fn validate_at(&self, path: &str, problems: &mut Problems) {
        if self.role_id == RoleId::RESERVED {
            problems.push(
                join(path, "role_id"),
                "role 1 is reserved and never assigned",
            );
        }
        if self.role_id.needs_position() {
            for (axis, value) in [("x", self.x), ("y", self.y), ("z", self.z)] {
                if value.is_none() {
                    problems.push(
                        join(path, axis),
                        "an anchor or seeder interface must have x, y and z (mm)",
                    );
                }
            }
        }
    }
}

/// The `interfaces` of a device body: a JSON array of interface objects, or
/// a string that holds such an array. Either way at least one interface, with
/// distinct identifiers.
pub(crate) fn read_interfaces(
    value: &Value,
    path: &str,
    problems: &mut Problems,
) -> Option<Vec<Interface>> {
    let parsed_text;
    let array = match value {
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(inner) => {
                parsed_text = inner;
                &parsed_text
            }
            Err(error) => {
                problems.push(
                    path,
                    format!("the string does not hold a JSON array of interfaces: {error}"),
                );
                return None;
            }
        },
        Value::Array(_) => value,
        other => {
            problems.push(
                path,
                format!(
                    "expected an array of interfaces (or a string holding one), found {}",
                    json::kind(other)
                ),
            );
            return None;
        }
    };
    // Rule problems are recorded but the interface is kept, so that a repeated
    // identifier is still found beside them.
    let mut clean = true;
    let interfaces = json::elements(array, path, problems, |item, item_path, problems| {
        let interface = Interface::from_json_at(item, item_path, problems)?;
        let mut found = Problems::new();
        interface.validate_at(item_path, &mut found);
        clean &= found.is_empty();
        problems.extend(found);
        Some(interface)
    })?;
    clean &= json::check_unique(
        &interfaces,
        path,
        problems,
        |interface| interface.identifier,
        |interface| {
            (
                "identifier".to_owned(),
                format!("interface identifier {}", interface.identifier),
            )
        },
    );
    if interfaces.is_empty() {
        problems.push(path, "a device has at least one interface");
        clean = false;
    }
    let interfaces: Option<Vec<Interface>> = interfaces.into_iter().collect();
    interfaces.filter(|_| clean)
}

/// A device of a configuration.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Device {
    /// The device's id within the configuration.
    pub id: DeviceId,
    /// The device's serial number, unique within the configuration.
    pub serial_number: SerialNumber,
    /// A name for people; optional.
    #[serde(default)]
    pub name: Option<ItemName>,
    /// A disabled device is kept in the configuration but not pushed to the network.
    pub disabled: bool,
    /// The device's radio interfaces.
    pub interfaces: Vec<Interface>,
}

impl Device {
    /// The interface with `identifier`, if the device has it.
    pub fn interface(&self, identifier: u8) -> Option<&Interface> {
        self.interfaces
            .iter()
            .find(|interface| interface.identifier == identifier)
    }

    /// True when `key` names this device.
    pub fn is_named_by(&self, key: DeviceKey) -> bool {
        match key {
            DeviceKey::Serial(serial) => self.serial_number == serial,
            DeviceKey::Id(id) => self.id == id,
        }
    }
}

/// A device the network hears that the configuration does not hold.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct UnconfiguredDevice {
    /// The device's serial number.
    pub serial_number: SerialNumber,
    /// The configuration whose network heard it, if any.
    #[serde(default)]
    pub heard_by: Option<crate::names::ConfigName>,
    /// When it was last heard, in milliseconds since the Unix epoch.
    pub last_seen_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn interfaces_come_as_an_array_or_a_string_holding_one() {
        let array = json!([{"identifier": 0, "role_id": 2, "x": 0, "y": 1000, "z": 2500}]);
        let text = Value::String(array.to_string());
        let mut problems = Problems::new();
        let from_array = read_interfaces(&array, "interfaces", &mut problems).unwrap();
        let from_text = read_interfaces(&text, "interfaces", &mut problems).unwrap();
        assert_eq!(from_array, from_text);
        assert!(problems.is_empty());
    }

    #[test]
    fn an_anchor_without_coordinates_and_a_repeated_identifier_are_both_reported() {
        let value = json!([{"identifier": 0, "role_id": 2}, {"identifier": 0, "role_id": 4}]);
        // The first interface breaks a rule; the repeat is still reported.
        let mut problems = Problems::new();
        assert!(read_interfaces(&value, "interfaces", &mut problems).is_none());
        assert_eq!(
            problems.paths(),
            [
                "interfaces[0].x",
                "interfaces[0].y",
                "interfaces[0].z",
                "interfaces[1].identifier"
            ]
        );
    }

    #[test]
    fn device_keys_are_never_ambiguous() {
        assert!(matches!("9999999".parse(), Ok(DeviceKey::Id(_))));
        assert!(matches!("99999999".parse(), Ok(DeviceKey::Serial(_))));
        assert!("10000000000".parse::<DeviceKey>().is_err());
        assert!("-1".parse::<DeviceKey>().is_err());
        assert!("0x10".parse::<DeviceKey>().is_err());
    }
}
