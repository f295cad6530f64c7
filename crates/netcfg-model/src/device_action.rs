//! Device actions (commands to devices) and their replies.

use crate::schema::fixed_schema;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::fmt;

use serde_json::Value;

use crate::{
    cache::DeviceAttributes,
    json::{Fields, FromJson, deserialize_via_from_json},
    serial::SerialNumber,
    validation::Problems,
};

/// The name of a device action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeviceActionName {
    /// Resets the device's network state without rebooting.
    SoftReset,
    /// Reboots the device.
    HardReset,
    /// Sets a temporary LED behaviour.
    SetLed,
    /// Clears LED behaviour related to errors.
    ClearDeviceError,
    /// Readies the device for ship mode.
    ShipMode,
    /// Returns the list of persistent property ids of the device.
    GetPropertyList,
    /// Returns the value of one persistent property.
    GetProperty,
    /// Sets the value of one persistent property.
    SetProperty,
    /// Returns the device's attributes.
    GetDeviceAttributes,
}

impl DeviceActionName {
    /// Every action, in the seed's order.
    pub const ALL: [Self; 9] = [
        Self::SoftReset,
        Self::HardReset,
        Self::SetLed,
        Self::ClearDeviceError,
        Self::ShipMode,
        Self::GetPropertyList,
        Self::GetProperty,
        Self::SetProperty,
        Self::GetDeviceAttributes,
    ];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SoftReset => "soft_reset",
            Self::HardReset => "hard_reset",
            Self::SetLed => "set_led",
            Self::ClearDeviceError => "clear_device_error",
            Self::ShipMode => "ship_mode",
            Self::GetPropertyList => "get_property_list",
            Self::GetProperty => "get_property",
            Self::SetProperty => "set_property",
            Self::GetDeviceAttributes => "get_device_attributes",
        }
    }
}

impl fmt::Display for DeviceActionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An LED colour for `set_led`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LedColor {
    /// Red.
    Red,
    /// Green.
    Green,
    /// Blue.
    Blue,
    /// Magenta.
    Magenta,
    /// Yellow.
    Yellow,
    /// White.
    White,
}

/// How the LED shows its colour.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LedMode {
    /// Steadily on.
    #[default]
    Solid,
    /// Flashing.
    Flash,
}

/// How long a `set_led` behaviour lasts: 5 to 1800 seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub struct LedTimeout(u16);

/// A LED timeout outside 5 to 1800 s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a LED timeout: use 5 to 1800 seconds")]
pub struct LedTimeoutError(pub u32);

impl LedTimeout {
    /// The timeout when none is given: 30 s.
    pub const DEFAULT: Self = Self(30);

    /// The timeout in seconds.
    pub const fn seconds(self) -> u16 {
        self.0
    }
}

impl TryFrom<u32> for LedTimeout {
    type Error = LedTimeoutError;
    fn try_from(seconds: u32) -> Result<Self, Self::Error> {
        match u16::try_from(seconds) {
            Ok(value @ 5..=1800) => Ok(Self(value)),
            _ => Err(LedTimeoutError(seconds)),
        }
    }
}

impl From<LedTimeout> for u32 {
    fn from(timeout: LedTimeout) -> u32 {
        timeout.0.into()
    }
}

fixed_schema!(LedTimeout, {"type": "integer", "minimum": 5, "maximum": 1800, "description": "Seconds the LED behaviour lasts."});

/// A command to a device, with its parameters: the `device_command_body`.
///
/// On the wire the action's name is the field `action` and its parameters sit
/// beside it: `{"action": "set_led", "color": "red", "mode": "flash", "timeout": 30}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum DeviceAction {
    /// Resets the device's network state without rebooting.
    SoftReset,
    /// Reboots the device.
    HardReset,
    /// Sets a temporary LED behaviour.
    SetLed {
        /// The colour.
        color: LedColor,
        /// Solid (the default) or flashing.
        #[serde(default)]
        mode: LedMode,
        /// How long, 5 to 1800 s (30 when not given).
        #[serde(default = "default_led_timeout")]
        timeout: LedTimeout,
    },
    /// Clears LED behaviour related to errors.
    ClearDeviceError,
    /// Readies the device for ship mode.
    ShipMode,
    /// Lists the device's persistent property ids.
    GetPropertyList,
    /// Reads one persistent property.
    GetProperty {
        /// The property's id.
        property_id: u32,
    },
    /// Writes one persistent property; it takes effect after a hard reset.
    SetProperty {
        /// The property's id.
        property_id: u32,
        /// The new value.
        value: i64,
    },
    /// Reads the device's attributes.
    GetDeviceAttributes,
}

fn default_led_timeout() -> LedTimeout {
    LedTimeout::DEFAULT
}

impl DeviceAction {
    /// The action's name.
    pub const fn name(&self) -> DeviceActionName {
        match self {
            Self::SoftReset => DeviceActionName::SoftReset,
            Self::HardReset => DeviceActionName::HardReset,
            Self::SetLed { .. } => DeviceActionName::SetLed,
            Self::ClearDeviceError => DeviceActionName::ClearDeviceError,
            Self::ShipMode => DeviceActionName::ShipMode,
            Self::GetPropertyList => DeviceActionName::GetPropertyList,
            Self::GetProperty { .. } => DeviceActionName::GetProperty,
            Self::SetProperty { .. } => DeviceActionName::SetProperty,
            Self::GetDeviceAttributes => DeviceActionName::GetDeviceAttributes,
        }
    }

    /// Reads the action and its parameters from the fields of a body; the
    /// caller reads any other fields and finishes `fields`.
    pub(crate) fn read_fields(fields: &mut Fields<'_>, problems: &mut Problems) -> Option<Self> {
        let Some(name) = fields.required::<DeviceActionName>("action", problems) else {
            // Without a valid action the parameters cannot be judged; do not
            // call them unknown on top of the real problem.
            fields.tolerate(&["color", "mode", "timeout", "property_id", "value"]);
            return None;
        };
        Some(match name {
            DeviceActionName::SoftReset => Self::SoftReset,
            DeviceActionName::HardReset => Self::HardReset,
            DeviceActionName::ClearDeviceError => Self::ClearDeviceError,
            DeviceActionName::ShipMode => Self::ShipMode,
            DeviceActionName::GetPropertyList => Self::GetPropertyList,
            DeviceActionName::GetDeviceAttributes => Self::GetDeviceAttributes,
            DeviceActionName::SetLed => {
                let color = fields.required("color", problems);
                let mode = fields.optional("mode", problems).unwrap_or_default();
                let timeout = fields
                    .optional("timeout", problems)
                    .unwrap_or(LedTimeout::DEFAULT);
                Self::SetLed {
                    color: color?,
                    mode,
                    timeout,
                }
            }
            DeviceActionName::GetProperty => Self::GetProperty {
                property_id: fields.required("property_id", problems)?,
            },
            DeviceActionName::SetProperty => {
                let property_id = fields.required("property_id", problems);
                let value = fields.required("value", problems);
                Self::SetProperty {
                    property_id: property_id?,
                    value: value?,
                }
            }
        })
    }
}

impl FromJson for DeviceAction {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        let mut fields = Fields::open(value, path, problems)?;
        let action = Self::read_fields(&mut fields, problems);
        let clean = fields.finish(problems);
        action.filter(|_| clean)
    }
}

deserialize_via_from_json!(DeviceAction);

/// What a device answered to an action.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum ActionOutcome {
    /// The device did it.
    Done,
    /// The device's persistent property ids.
    PropertyList {
        /// The ids, in increasing order.
        property_ids: Vec<u32>,
    },
    /// The value of one persistent property.
    Property {
        /// The property's id.
        property_id: u32,
        /// Its value.
        value: i64,
    },
    /// The device's attributes.
    Attributes {
        /// The attributes.
        attributes: DeviceAttributes,
    },
}

/// The reply of one device to one action: the `status` payload of a device command.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct DeviceActionReply {
    /// The device.
    pub serial_number: SerialNumber,
    /// The action it was sent.
    pub action: DeviceActionName,
    /// What it answered.
    pub outcome: ActionOutcome,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn set_led_reads_its_parameters_and_defaults() {
        let action =
            DeviceAction::from_json(&json!({"action": "set_led", "color": "red"})).unwrap();
        assert_eq!(
            action,
            DeviceAction::SetLed {
                color: LedColor::Red,
                mode: LedMode::Solid,
                timeout: LedTimeout::DEFAULT
            }
        );
        assert_eq!(
            serde_json::to_value(&action).unwrap(),
            json!({"action": "set_led", "color": "red", "mode": "solid", "timeout": 30})
        );
    }

    #[test]
    fn every_action_round_trips_through_its_wire_form() {
        let actions = [
            DeviceAction::SoftReset,
            DeviceAction::HardReset,
            DeviceAction::SetLed {
                color: LedColor::Magenta,
                mode: LedMode::Flash,
                timeout: LedTimeout::try_from(1800).unwrap(),
            },
            DeviceAction::ClearDeviceError,
            DeviceAction::ShipMode,
            DeviceAction::GetPropertyList,
            DeviceAction::GetProperty { property_id: 7 },
            DeviceAction::SetProperty {
                property_id: 7,
                value: -3,
            },
            DeviceAction::GetDeviceAttributes,
        ];
        assert_eq!(actions.len(), DeviceActionName::ALL.len());
        for (action, name) in actions.iter().zip(DeviceActionName::ALL) {
            assert_eq!(action.name(), name);
            let wire = serde_json::to_value(action).unwrap();
            assert_eq!(wire["action"], name.as_str());
            assert_eq!(
                &serde_json::from_value::<DeviceAction>(wire).unwrap(),
                action
            );
        }
    }

    #[test]
    fn parameters_of_another_action_are_unknown_fields() {
        let problems =
            DeviceAction::from_json(&json!({"action": "soft_reset", "color": "red"})).unwrap_err();
        assert_eq!(problems.as_slice()[0].path, "color");
    }
}
