//! What the network last reported about each device (the cache manager).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{device_action::DeviceActionName, serial::SerialNumber, time::NetworkTime};

/// How a device is connected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Connectivity {
    /// Not connected.
    #[default]
    None,
    /// Over the UWB radio.
    Uwb,
    /// Over Ethernet.
    Ethernet,
    /// Over both.
    UwbAndEthernet,
}

/// How a device takes part in network time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Synchronisation {
    /// Not synchronised.
    #[default]
    None,
    /// Transmits timing.
    Tx,
    /// Receives timing.
    Rx,
    /// Both.
    TxAndRx,
}

/// A device's health.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct DeviceStatus {
    /// Battery charge in percent; 255 for a device without a battery.
    pub battery_percent: u8,
    /// Temperature in degrees Celsius.
    pub temperature_celsius: i16,
    /// Processor use in percent.
    pub processor_use_percent: u8,
    /// Estimated minutes of battery left, when known.
    #[serde(default)]
    pub minutes_remaining: Option<u32>,
}

impl DeviceStatus {
    /// The `battery_percent` of a device without a battery.
    pub const NO_BATTERY: u8 = 255;
}

/// A device's fixed attributes.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct DeviceAttributes {
    /// The shortest beacon period the device supports.
    pub minimum_beacon_period: NetworkTime,
    /// The radio jurisdiction it is certified for (for example `FCC`, `ETSI`).
    pub jurisdiction: String,
    /// The colour of its enclosure.
    pub enclosure_colour: String,
    /// Its stock-keeping unit.
    pub sku: String,
}

/// The kind of a firmware image on a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FirmwareImageType {
    /// Recovery image.
    Recovery,
    /// Bootloader.
    Bootloader,
    /// Main firmware.
    Firmware,
    /// Almanac data.
    Almanac,
    /// Application.
    Application,
}

/// A firmware image installed on a device.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct FirmwareImage {
    /// Which image.
    pub image_type: FirmwareImageType,
    /// Its version.
    pub version: String,
    /// Its SHA-1, 40 hexadecimal digits.
    pub sha1: String,
}

/// A located position of a device.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Position {
    /// East, mm.
    pub x: i32,
    /// North, mm.
    pub y: i32,
    /// Height, mm.
    pub z: i32,
    /// Quality, 0 (worst) to 10,000 (best).
    pub quality: u16,
    /// How many anchors the solution used.
    pub anchors_used: u8,
    /// The solver's own 95% horizontal error estimate, mm (decisions §12);
    /// 0 where the network reported no estimate.
    #[serde(default)]
    pub error_mm: u32,
}

/// What the network last reported about one device.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct CachedDevice {
    /// The device.
    pub serial_number: SerialNumber,
    /// When it was last heard, in milliseconds since the Unix epoch.
    pub last_seen_ms: u64,
    /// How it is connected.
    pub connectivity: Connectivity,
    /// How it takes part in network time.
    pub synchronisation: Synchronisation,
    /// Its last health report.
    #[serde(default)]
    pub status: Option<DeviceStatus>,
    /// Its attributes, once read.
    #[serde(default)]
    pub attributes: Option<DeviceAttributes>,
    /// Its firmware images, once reported.
    #[serde(default)]
    pub firmware_images: Vec<FirmwareImage>,
    /// Its last position, for tags.
    #[serde(default)]
    pub position: Option<Position>,
    /// The last action sent to it, if any.
    #[serde(default)]
    pub last_action: Option<DeviceActionName>,
    /// For a tag the engine cannot locate, why (for instance `heard by 1
    /// anchor, needs 3`); null while it is located.
    #[serde(default)]
    pub unlocated: Option<String>,
}
