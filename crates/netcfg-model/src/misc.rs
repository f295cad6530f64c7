//! Small resources: the group image and magnetometer calibration.

use crate::serial::SerialNumber;

/// The firmware image bundle that devices of a configuration are updated to.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct GroupImage {
    /// The path of the image bundle on the host; `None` until one is set.
    #[serde(default)]
    pub path: Option<String>,
}

/// A magnetometer's hard-iron calibration: three signed 16-bit offsets.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct MagnetometerCalibration {
    /// The device.
    pub serial_number: SerialNumber,
    /// Offset on the x axis.
    pub x_offset: i16,
    /// Offset on the y axis.
    pub y_offset: i16,
    /// Offset on the z axis.
    pub z_offset: i16,
}
