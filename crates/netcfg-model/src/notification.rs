//! Notifications: what happened in a configuration's network.

use crate::{level::Level, serial::SerialNumber};

/// A notification raised by a configuration's network.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Notification {
    /// The notification's identifier within the configuration.
    pub identifier: u64,
    /// How serious it is.
    pub level: Level,
    /// What happened.
    pub message: String,
    /// The device it concerns, if any.
    #[serde(default)]
    pub serial_number: Option<SerialNumber>,
    /// When it was raised, in milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
    /// Whether a user has read it.
    pub read: bool,
}
