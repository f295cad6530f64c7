use std::{borrow::Cow, fmt, str::FromStr};

use netcfg_model_derive::request_body;
use serde_json::Value;

use crate::{
    device::{Device, DeviceId, DeviceKey, Interface, read_interfaces},
    device_action::DeviceAction,
    json::{self, Fields, FromJson, deserialize_via_from_json, leaf},
    names::ItemName,
    serial::SerialNumber,
    validation::Problems,
};

/// The documented form of `interfaces`: the array. A string holding such an
/// array is accepted too (older clients send it), but not advertised: a
/// schema cannot say "a string that parses as this array".
fn interfaces_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "The device's interfaces: an array of {identifier, role_id, x, y, z} (x, y, z in mm, required for anchors (role 2) and seeders (role 3)), identifiers distinct; a string holding such an array is also accepted. Responses always give the array.",
        "type": "array",
        "minItems": 1,
        "items": {
            "type": "object",
            "required": ["identifier", "role_id"],
            "additionalProperties": false,
            "properties": {
                "identifier": {"type": "integer", "minimum": 0, "maximum": 255},
                "role_id": {"type": "integer", "minimum": 0, "maximum": 4294967295u32, "not": {"const": 1}},
                "x": {"type": "integer", "minimum": -2147483648i64, "maximum": 2147483647},
                "y": {"type": "integer", "minimum": -2147483648i64, "maximum": 2147483647},
                "z": {"type": "integer", "minimum": -2147483648i64, "maximum": 2147483647}
            },
            "if": {"properties": {"role_id": {"enum": [2, 3]}}},
            "then": {"required": ["x", "y", "z"]}
        }
    })
}

fn id_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "The device id to give the new device (1 to 9999999), as an integer or a string of digits; the next free id when not given.",
        "anyOf": [
            {"type": "integer", "minimum": 1, "maximum": 9_999_999},
            {"type": "string", "pattern": "^[1-9][0-9]{0,6}$"}
        ]
    })
}

/// Reads a device id given as an integer or as a string of digits.
fn read_device_id(value: &Value, path: &str, problems: &mut Problems) -> Option<DeviceId> {
    match value {
        Value::String(text) => match text.parse::<u32>().ok().map(DeviceId::try_from) {
            Some(Ok(id)) => Some(id),
            _ => {
                problems.push(
                    path,
                    format!("`{text}` is not a device id: ids are 1 to 9999999"),
                );
                None
            }
        },
        other => leaf(other, path, problems),
    }
}

/// `device_body`: creates (`POST`) or replaces (`PATCH`) one device.
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct DeviceBody {
    /// The device's serial number.
    pub serial_number: SerialNumber,
    /// The device's interfaces.
    #[schemars(schema_with = "interfaces_schema")]
    #[from_json(with = read_interfaces)]
    pub interfaces: Vec<Interface>,
    /// Whether the device is left out of the running network.
    pub disabled: bool,
    /// A name for people.
    pub name: Option<ItemName>,
    /// The id to give a new device.
    #[schemars(schema_with = "id_schema")]
    #[from_json(with = read_device_id)]
    pub id: Option<DeviceId>,
}

impl DeviceBody {
    /// The device this body describes, with `id` unless the body names one.
    pub fn into_device(self, id: DeviceId) -> Device {
        Device {
            id: self.id.unwrap_or(id),
            serial_number: self.serial_number,
            name: self.name,
            disabled: self.disabled,
            interfaces: self.interfaces,
        }
    }
}

/// One element of the multiple-device PATCH: the device is named by
/// `serial_number`; its other fields replace the stored ones.
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct MultipleDevicePatchBody {
    /// The device to change.
    pub serial_number: SerialNumber,
    /// Its new interfaces.
    #[schemars(schema_with = "interfaces_schema")]
    #[from_json(with = read_interfaces)]
    pub interfaces: Vec<Interface>,
    /// Whether it is left out of the running network.
    pub disabled: bool,
    /// Its new name.
    pub name: Option<ItemName>,
}

/// The body of `PATCH /nets/{net_name}/devices`: one `device_body`, or an
/// array of [`MultipleDevicePatchBody`] (each device at most once).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum DevicesPatchBody {
    /// One device, named by its serial number.
    Single(DeviceBody),
    /// Several devices.
    Multiple(Vec<MultipleDevicePatchBody>),
}

impl FromJson for DevicesPatchBody {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        if !value.is_array() {
            return DeviceBody::from_json_at(value, path, problems).map(Self::Single);
        }
        json::distinct_array(
            value,
            path,
            problems,
            MultipleDevicePatchBody::from_json_at,
            |count| (count == 0).then(|| "give at least one device".to_owned()),
            |body| body.serial_number,
            |body| {
                let what = format!("device {}", body.serial_number);
                ("serial_number".to_owned(), what)
            },
        )
        .map(Self::Multiple)
    }
}

impl schemars::JsonSchema for DevicesPatchBody {
    fn schema_name() -> Cow<'static, str> {
        "DevicesPatchBody".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let single = generator.subschema_for::<DeviceBody>();
        let each = generator.subschema_for::<MultipleDevicePatchBody>();
        schemars::json_schema!({
            "description": "One device_body, or an array of devices (each named by serial_number, each once).",
            "anyOf": [
                single,
                {"type": "array", "minItems": 1, "items": each}
            ]
        })
    }
}

/// Which devices `multiple_device_delete_body` deletes.
#[derive(
    Debug, Clone, PartialEq, Eq, serde_with::SerializeDisplay, serde_with::DeserializeFromStr,
)]
pub enum DeviceSelection {
    /// Every device of the configuration.
    All,
    /// These devices, each named once.
    Keys(Vec<DeviceKey>),
}

/// A `delete` text that selects no devices properly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DeviceSelectionError(String);

impl FromStr for DeviceSelection {
    type Err = DeviceSelectionError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.trim() == "all" {
            return Ok(Self::All);
        }
        let mut keys = Vec::new();
        let mut errors = Vec::new();
        for item in text.split(',').map(str::trim) {
            match item.parse::<DeviceKey>() {
                // A key given twice deletes its device once.
                Ok(key) if keys.contains(&key) => {}
                Ok(key) => keys.push(key),
                Err(error) => errors.push(error.to_string()),
            }
        }
        if errors.is_empty() {
            Ok(Self::Keys(keys))
        } else {
            Err(DeviceSelectionError(format!(
                "give `all` or device keys separated by commas: {}",
                errors.join("; ")
            )))
        }
    }
}

impl fmt::Display for DeviceSelection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::All => f.write_str("all"),
            Self::Keys(keys) => {
                for (position, key) in keys.iter().enumerate() {
                    if position > 0 {
                        f.write_str(",")?;
                    }
                    key.fmt(f)?;
                }
                Ok(())
            }
        }
    }
}

impl schemars::JsonSchema for DeviceSelection {
    fn schema_name() -> Cow<'static, str> {
        "DeviceSelection".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "`all`, or device keys (serial numbers or ids) separated by commas.",
            "pattern": "^\\s*(all|([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8}|[1-9][0-9]{0,6})(\\s*,\\s*([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8}|[1-9][0-9]{0,6}))*)\\s*$",
            "examples": ["01:04:0719,01:04:071A", "all"]
        })
    }
}

/// `multiple_device_delete_body`: deletes several devices, or all.
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct MultipleDeviceDeleteBody {
    /// `all`, or device keys separated by commas.
    pub delete: DeviceSelection,
}

/// `multi_device_command_body`: one action, with its parameters, sent to
/// several devices.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct MultiDeviceCommandBody {
    /// The action and its parameters.
    #[serde(flatten)]
    pub action: DeviceAction,
    /// The devices, each named once; at least one.
    #[schemars(length(min = 1), extend("uniqueItems" = true))]
    pub serial_numbers: Vec<SerialNumber>,
}

impl FromJson for MultiDeviceCommandBody {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        let mut fields = Fields::open(value, path, problems)?;
        let action = DeviceAction::read_fields(&mut fields, problems);
        let serial_numbers = fields.required_with("serial_numbers", problems, serial_numbers);
        let clean = fields.finish(problems);
        let body = Self {
            action: action?,
            serial_numbers: serial_numbers?,
        };
        clean.then_some(body)
    }
}

/// The devices of a command: at least one, each once.
fn serial_numbers(value: &Value, path: &str, problems: &mut Problems) -> Option<Vec<SerialNumber>> {
    json::distinct_array(
        value,
        path,
        problems,
        leaf,
        |count| (count == 0).then(|| "give at least one serial number".to_owned()),
        |serial| *serial,
        |serial| (String::new(), format!("device {serial}")),
    )
}

deserialize_via_from_json!(DevicesPatchBody, MultiDeviceCommandBody);
