//! Payloads that exist only on the wire: the `status` objects of actions,
//! and the shapes the seed gives to a few answers.

use std::collections::BTreeMap;

use netcfg_model::{
    ConfigName, DeviceActionReply, NetworkMode, PairType, RunState, SerialNumber,
    body::EngineCommand,
};

/// The `status` of `POST /nets/{net_name}` (configuration actions).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ConfigurationStatus {
    /// The configuration acted on.
    pub name: ConfigName,
    /// The action: copy, delete, start or stop.
    pub action: String,
    /// Its state after the action (`stopped` for a deleted one).
    pub state: RunState,
    /// For a copy, the name of the new configuration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy: Option<ConfigName>,
}

/// The `status` of a device command: each device's reply, and the devices
/// that did not answer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct DeviceCommandStatus {
    /// The replies, in the order asked.
    pub replies: Vec<DeviceActionReply>,
    /// The devices that failed, with why.
    pub failures: Vec<CommandFailure>,
}

/// A device that did not carry out a command.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct CommandFailure {
    /// The device.
    pub serial_number: SerialNumber,
    /// Why it failed.
    pub message: String,
}

/// The `status` of the 5.0 engine command.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct EngineCommandStatus {
    /// The configuration.
    pub name: ConfigName,
    /// The command carried out.
    pub action: EngineCommand,
    /// Its state afterwards.
    pub state: RunState,
}

/// The `network_mode` payload of `PATCH /nets/{net_name}/network_mode`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct NetworkModeStatus {
    /// The configuration's mode now.
    pub network_mode: NetworkMode,
}

/// The 5.0 multiple-device PATCH answer: each serial number with the
/// message of its result.
pub type DeviceStatuses = BTreeMap<SerialNumber, String>;

/// One object, or a list of them (answers to bodies that may name one
/// item or several).
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    /// One item.
    One(T),
    /// Several items.
    Many(Vec<T>),
}

/// The 5.0 paired interface: the pair as seen from one interface.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct PairedInterface {
    /// The interface named in the path, `<serial_number>-<identifier>`.
    pub interface: String,
    /// The other interface of the pair.
    pub paired_with: String,
    /// `twr` or `blacklist`.
    #[serde(rename = "type")]
    pub pair_type: PairType,
}

/// The upload form (`multipart/form-data`), for the API description.
#[derive(Debug, schemars::JsonSchema)]
pub struct UploadForm {
    /// The saved-state file.
    #[schemars(extend("format" = "binary"))]
    pub net_file: String,
    /// The configuration's name; the file's name without its extension when
    /// not given.
    pub name: Option<String>,
}
