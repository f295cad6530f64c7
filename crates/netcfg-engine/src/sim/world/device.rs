//! One simulated device: what it is and keeps (role, position, walk,
//! counters, properties), its status, and how it introduces itself when it
//! joins (attributes, firmware images, synchronisation).

use std::collections::BTreeMap;

use netcfg_model::{
    DeviceAttributes, DeviceStatus, FirmwareImage, FirmwareImageType, NetworkTime, RoleId,
    SerialNumber, Synchronisation,
};
use tokio::time::Instant;

use super::Outbox;
use crate::{
    protocol::{AnchorCounters, Message, SensorKind},
    sim::motion::Walker,
};

#[derive(Debug)]
pub(super) struct SimDevice {
    pub(super) serial: SerialNumber,
    pub(super) interface: u8,
    pub(super) role_id: RoleId,
    pub(super) configured: bool,
    pub(super) anchor_position: Option<[i32; 3]>,
    /// Where it truly is (configured + the instance's survey error); for
    /// tags, only reference tags (which stand still).
    pub(super) true_position: Option<[f64; 3]>,
    /// A moving tag's walk.
    pub(super) walker: Option<Walker>,
    /// Anchors: residual synchronisation error and free clock offset, mm.
    pub(super) offsets: (f64, f64),
    /// Network time units between beacons; 0 for devices that do not beacon.
    pub(super) period: u64,
    pub(super) next_beacon: u64,
    pub(super) sensors: Vec<(SensorKind, u64, u64)>,
    pub(super) silent_since: Option<Instant>,
    pub(super) lost_reported: bool,
    pub(super) synchronisation: Synchronisation,
    pub(super) rejoin_at: Option<Instant>,
    pub(super) properties: BTreeMap<u32, i64>,
    /// Anchors and seeders: what they timed since the network started.
    pub(super) counters: AnchorCounters,
}

impl SimDevice {
    pub(super) fn new(serial: SerialNumber) -> Self {
        let seed = serial.as_u32();
        Self {
            serial,
            interface: 0,
            role_id: RoleId::UNCONFIGURED,
            configured: false,
            anchor_position: None,
            true_position: None,
            walker: None,
            offsets: (0.0, 0.0),
            period: 0,
            next_beacon: 0,
            sensors: Vec::new(),
            silent_since: None,
            lost_reported: false,
            synchronisation: Synchronisation::None,
            rejoin_at: None,
            // A few persistent properties every device has.
            properties: BTreeMap::from([(1, 0), (2, i64::from(seed & 0xFF)), (7, 100)]),
            counters: AnchorCounters::default(),
        }
    }

    pub(super) fn is_anchor(&self) -> bool {
        self.role_id == RoleId::ANCHOR || self.role_id == RoleId::SEEDER
    }

    pub(super) fn in_sync(&self) -> Synchronisation {
        match self.role_id {
            RoleId::SEEDER => Synchronisation::TxAndRx,
            RoleId::ANCHOR => Synchronisation::Rx,
            _ => Synchronisation::None,
        }
    }

    pub(super) fn status(&self, now: Instant, started: Instant) -> DeviceStatus {
        let minutes = now.saturating_duration_since(started).as_secs() / 60;
        let wobble = (self.serial.as_u32() % 7) as u8;
        if self.is_anchor() {
            DeviceStatus {
                battery_percent: None,
                temperature_celsius: 38 + i16::from(wobble),
                processor_use_percent: 20 + wobble,
                minutes_remaining: None,
            }
        } else {
            let battery = 100u8.saturating_sub(u8::try_from(minutes.min(90)).unwrap_or(90));
            DeviceStatus {
                battery_percent: Some(battery),
                temperature_celsius: 24 + i16::from(wobble),
                processor_use_percent: 5 + wobble,
                minutes_remaining: Some(u32::from(battery) * 60),
            }
        }
    }
}

/// Of every thousand beacons an anchor hears, how many it discards and how
/// many come late (a little different for each anchor).
pub(super) fn beacon_losses(serial: SerialNumber) -> (u64, u64) {
    let seed = u64::from(serial.as_u32());
    (2 + seed % 5, 1 + seed % 3)
}

pub(super) fn join_reports(device: &SimDevice, out: &mut Outbox) {
    if !device.configured {
        out.report(Message::Heard {
            serial_number: device.serial,
        });
        return;
    }
    out.report(Message::Joined {
        serial_number: device.serial,
        interface: device.interface,
        role_id: device.role_id,
    });
    out.report(Message::Attributes {
        serial_number: device.serial,
        attributes: attributes(device),
    });
    out.report(Message::FirmwareImages {
        serial_number: device.serial,
        images: firmware_images(device.serial),
    });
    if device.is_anchor() {
        out.report(Message::Sync {
            serial_number: device.serial,
            synchronisation: device.synchronisation,
        });
    }
}

pub(super) fn attributes(device: &SimDevice) -> DeviceAttributes {
    let anchor = device.is_anchor();
    DeviceAttributes {
        minimum_beacon_period: NetworkTime::from_units(if anchor { 4_375 } else { 9_750 }),
        jurisdiction: if device.serial.as_u32().is_multiple_of(2) {
            "ETSI"
        } else {
            "FCC"
        }
        .to_owned(),
        enclosure_colour: if anchor { "white" } else { "black" }.to_owned(),
        sku: if anchor { "ANC-5000" } else { "TAG-2000" }.to_owned(),
    }
}

fn firmware_images(serial: SerialNumber) -> Vec<FirmwareImage> {
    let sha1 = |salt: u32| {
        format!(
            "{:08x}{:032x}",
            serial.as_u32() ^ salt,
            u128::from(salt) * 0x9E37_79B9
        )
    };
    vec![
        FirmwareImage {
            image_type: FirmwareImageType::Bootloader,
            version: "2.1.0".to_owned(),
            sha1: sha1(1),
        },
        FirmwareImage {
            image_type: FirmwareImageType::Firmware,
            version: "5.1.3".to_owned(),
            sha1: sha1(2),
        },
    ]
}
