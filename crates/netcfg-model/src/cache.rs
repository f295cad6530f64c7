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
    /// Battery charge in percent; absent for a device without a battery
    /// (the wire protocol's 255, which never reaches a client).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "battery_or_none"
    )]
    pub battery_percent: Option<u8>,
    /// Temperature in degrees Celsius.
    pub temperature_celsius: i16,
    /// Processor use in percent.
    pub processor_use_percent: u8,
    /// Estimated minutes of battery left, when known.
    #[serde(default)]
    pub minutes_remaining: Option<u32>,
}

impl DeviceStatus {
    /// The wire protocol's battery percentage of a device without a battery.
    pub const NO_BATTERY: u8 = 255;

    /// `battery_percent` from the wire protocol's byte.
    pub fn battery_from_wire(byte: u8) -> Option<u8> {
        (byte != Self::NO_BATTERY).then_some(byte)
    }

    /// The wire protocol's byte for `battery_percent`.
    pub fn battery_to_wire(battery_percent: Option<u8>) -> u8 {
        battery_percent.unwrap_or(Self::NO_BATTERY)
    }
}

/// Reads a battery percentage kept before it was optional: 255 meant none.
fn battery_or_none<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u8>, D::Error> {
    let kept: Option<u8> = serde::Deserialize::deserialize(deserializer)?;
    Ok(kept.and_then(DeviceStatus::battery_from_wire))
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
    /// East velocity, mm/s, of a tracked tag (decisions §18); absent when
    /// its role's `tracking` is `off` or the network reported none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vx: Option<i32>,
    /// North velocity, mm/s, like `vx`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vy: Option<i32>,
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

#[cfg(test)]
mod tests {
    use super::DeviceStatus;

    #[test]
    fn a_device_without_a_battery_has_no_battery_percent() {
        let mains = DeviceStatus {
            battery_percent: DeviceStatus::battery_from_wire(DeviceStatus::NO_BATTERY),
            temperature_celsius: 38,
            processor_use_percent: 20,
            minutes_remaining: None,
        };
        assert_eq!(mains.battery_percent, None);
        let json = serde_json::to_value(&mains).unwrap();
        assert!(json.get("battery_percent").is_none(), "{json}");
        assert_eq!(DeviceStatus::battery_to_wire(mains.battery_percent), 255);
        // A status kept when 255 meant "none" reads as none.
        let kept: DeviceStatus = serde_json::from_value(serde_json::json!({
            "battery_percent": 255, "temperature_celsius": 38, "processor_use_percent": 20
        }))
        .unwrap();
        assert_eq!(kept.battery_percent, None);
        let charged = DeviceStatus::battery_from_wire(87);
        assert_eq!(charged, Some(87));
    }
}
