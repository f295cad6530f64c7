//! Bodies that only the 5.0 table uses.

use crate::schema::fixed_schema;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::{DeserializeFromStr, SerializeDisplay};

use std::{fmt, str::FromStr};

use netcfg_model_derive::request_body;

use crate::serial::SerialNumber;

/// The 5.0 engine command (`POST /nets/{net_name}/action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EngineCommand {
    /// Push the saved configuration to the running network.
    Reload,
    /// Stop, then start.
    Restart,
    /// Ask the anchors to resynchronise network time.
    Resync,
}

/// The body of the 5.0 engine command.
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct EngineCommandBody {
    /// `reload`, `restart` or `resync`.
    pub action: EngineCommand,
}

/// One interface, written `<serial_number>-<interface_identifier>`.
///
/// ```
/// use netcfg_model::body::InterfaceRef;
/// let interface: InterfaceRef = "01:04:0719-1".parse().unwrap();
/// assert_eq!(interface.identifier, 1);
/// assert_eq!(interface.to_string(), "01:04:0719-1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, SerializeDisplay, DeserializeFromStr)]
pub struct InterfaceRef {
    /// The device.
    pub serial_number: SerialNumber,
    /// The interface of the device.
    pub identifier: u8,
}

/// Text that is not `<serial_number>-<interface_identifier>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not an interface: write <serial_number>-<interface_identifier>, for example 01:04:0719-0"
)]
pub struct InterfaceRefError(String);

impl FromStr for InterfaceRef {
    type Err = InterfaceRefError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = || InterfaceRefError(text.chars().take(40).collect());
        let (serial, identifier) = text.rsplit_once('-').ok_or_else(error)?;
        if identifier.is_empty() || !identifier.bytes().all(|b| b.is_ascii_digit()) {
            return Err(error());
        }
        Ok(Self {
            serial_number: serial.parse().map_err(|_| error())?,
            identifier: identifier.parse().map_err(|_| error())?,
        })
    }
}

impl fmt::Display for InterfaceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.serial_number, self.identifier)
    }
}

fixed_schema!(InterfaceRef, {
    "type": "string",
    "description": "An interface: <serial_number>-<interface_identifier>.",
    "pattern": "^([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8})-(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$",
    "examples": ["01:04:0719-0"]
});

/// The 5.0 paired-interface PUT body: the other interface of the pair.
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct PairedInterfaceBody {
    /// The other interface, `<serial_number>-<interface_identifier>`.
    pub interface: InterfaceRef,
}
