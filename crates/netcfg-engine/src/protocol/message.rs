//! The messages of the wire protocol and the encoding of their payloads.

use netcfg_model::{
    ActionOutcome, BitRate, Channel, Connectivity, DeviceAction, DeviceActionName,
    DeviceActionReply, DeviceAttributes, DeviceStatus, FirmwareImage, FirmwareImageType, Interface,
    ItemName, LedBrightness, LedColor, LedMode, LedTimeout, MagnetometerCalibration, NetworkMode,
    NetworkTime, Position, PreambleCode, PreambleLength, Prf, RfSetting, Role, RoleId,
    SensorPeriod, SerialNumber, Synchronisation,
};

use super::{
    DecodeError, EncodeError,
    cursor::{Reader, Writer},
};

/// An anchor's counters since the network started (they wrap at 2^32;
/// the quality sum at 2^64). The host turns two reports into the counts of
/// the period between them (CDP AnchorHealthV5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AnchorCounters {
    /// Seeder ticks the anchor timed.
    pub ticks: u32,
    /// Receptions it timed (ticks and tag beacons).
    pub timed_rxs: u32,
    /// Tag beacons it reported.
    pub beacons_reported: u32,
    /// Tag beacons it discarded.
    pub beacons_discarded: u32,
    /// Tag beacons that came too late to be used.
    pub beacons_late: u32,
    /// Sum of the quality (0 to 10,000) of the beacons it reported.
    pub quality_sum: u64,
}

/// A device as the network interface device learns it from a configuration push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireDevice {
    /// The device.
    pub serial_number: SerialNumber,
    /// Its radio interfaces with their roles and positions.
    pub interfaces: Vec<Interface>,
}

/// Why the network interface device refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NackReason {
    /// The network has never heard the addressed device.
    UnknownDevice,
    /// No configuration has been pushed yet.
    NotConfigured,
    /// The network is not started.
    NotRunning,
    /// The request does not make sense (for example a configuration out of order).
    BadRequest,
    /// The device is busy with another exchange.
    Busy,
}

impl std::fmt::Display for NackReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::UnknownDevice => "the network has not heard the device",
            Self::NotConfigured => "no configuration has been pushed",
            Self::NotRunning => "the network is not started",
            Self::BadRequest => "the request does not make sense to the device",
            Self::Busy => "the device is busy",
        })
    }
}

/// What a sensor report measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SensorKind {
    /// Acceleration, mg on x, y, z.
    Accelerometer,
    /// Angular rate, millidegrees per second on x, y, z.
    Gyroscope,
    /// Orientation quaternion w, x, y, z scaled by 10,000.
    Quaternion,
    /// Magnetic field, nT on x, y, z.
    Magnetometer,
    /// Air pressure, Pa.
    Pressure,
    /// Temperature, millidegrees Celsius.
    Temperature,
}

impl SensorKind {
    /// Every kind, in the order of a role's sensor periods.
    pub const ALL: [Self; 6] = [
        Self::Accelerometer,
        Self::Gyroscope,
        Self::Quaternion,
        Self::Magnetometer,
        Self::Pressure,
        Self::Temperature,
    ];

    /// The report period of this sensor in `role`.
    pub fn period_in(self, role: &Role) -> SensorPeriod {
        match self {
            Self::Accelerometer => role.accelerometer_period,
            Self::Gyroscope => role.gyroscope_period,
            Self::Quaternion => role.quaternion_period,
            Self::Magnetometer => role.magnetometer_period,
            Self::Pressure => role.pressure_period,
            Self::Temperature => role.temperature_period,
        }
    }
}

/// One located position of one tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PositionReport {
    /// The tag.
    pub serial_number: SerialNumber,
    /// Where it is.
    pub position: Position,
}

/// What the anchors measured of one tag beacon (decisions §12).
///
/// In [`Message::ArrivalTimes`], `base` is a time in network-time ticks
/// (1/(499.2 MHz × 128), about 15.65 ps) and each link's value the
/// anchor's arrival time minus `base`, in ticks. In [`Message::Ranges`],
/// `base` is 0 and each value a two-way range in mm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BeaconReport {
    /// The tag.
    pub serial_number: SerialNumber,
    /// The common base of the link values.
    pub base: u64,
    /// Each anchor that heard the beacon and its value.
    pub links: Vec<(SerialNumber, i32)>,
}

/// What one anchor measured of its peers in a survey: for each peer, the
/// median of its two-way ranges (mm) and how many rounds it heard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerRange {
    /// The peer anchor.
    pub peer: SerialNumber,
    /// Median range, mm.
    pub range_mm: u32,
    /// Rounds of the survey the peer answered.
    pub rounds: u8,
}

/// One sensor reading of one tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SensorReport {
    /// The tag.
    pub serial_number: SerialNumber,
    /// What was measured.
    pub kind: SensorKind,
    /// Up to four values; unused ones are 0 (see [`SensorKind`] for units).
    pub values: [i32; 4],
}

/// A message between the manager (host) and the network interface device.
///
/// Requests go from the host with a non-zero sequence number; their replies
/// (`Pong`, `Ack`, `Nack`, `DeviceReply`) carry the same number. Reports
/// the network sends on its own carry sequence number 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// Host: are you there? Answered by `Pong` with the same token.
    Ping {
        /// Echoed in the reply.
        token: u32,
    },
    /// Host: first part of a configuration push (replaces any earlier one).
    ConfigBegin {
        /// The configuration's name.
        configuration: String,
        /// The operating mode.
        network_mode: NetworkMode,
        /// The radio settings.
        rf: RfSetting,
        /// Every role the devices use.
        roles: Vec<Role>,
    },
    /// Host: a chunk of the configuration's devices.
    ConfigDevices {
        /// The devices of this chunk.
        devices: Vec<WireDevice>,
    },
    /// Host: the push is complete; the device checks the count.
    ConfigCommit {
        /// How many devices all chunks held together.
        device_count: u32,
    },
    /// Host: start the pushed configuration's network.
    StartNetwork,
    /// Host: stop the network.
    StopNetwork,
    /// Host: anchors, resynchronise network time.
    Resync,
    /// Host: send an action to a device; answered by `DeviceReply` or `Nack`.
    DeviceCommand {
        /// The addressed device.
        serial_number: SerialNumber,
        /// The action and its parameters.
        action: DeviceAction,
    },
    /// Host: store a magnetometer calibration on a device; answered by `Ack`.
    SetMagnetometerCalibration(MagnetometerCalibration),
    /// Host: an anchor ranges each of its peers `rounds` times; answered by
    /// `SurveyRanges` (or `Nack`).
    Survey {
        /// The anchor that ranges.
        anchor: SerialNumber,
        /// Two-way ranges per peer.
        rounds: u8,
    },
    /// Device: the answer to `Survey`.
    SurveyRanges {
        /// The anchor that ranged.
        anchor: SerialNumber,
        /// What it measured of each peer it heard.
        peers: Vec<PeerRange>,
    },
    /// Device: the answer to `Ping`.
    Pong {
        /// The ping's token.
        token: u32,
    },
    /// Device: the request was carried out.
    Ack,
    /// Device: the request was refused.
    Nack {
        /// Why.
        reason: NackReason,
    },
    /// Device: a device's answer to a `DeviceCommand`.
    DeviceReply(DeviceActionReply),
    /// Report: a configured device joined the network.
    Joined {
        /// The device.
        serial_number: SerialNumber,
        /// The interface that joined.
        interface: u8,
        /// The role it took.
        role_id: RoleId,
    },
    /// Report: a device the configuration does not hold was heard.
    Heard {
        /// The device.
        serial_number: SerialNumber,
    },
    /// Report: a device stopped answering (went silent).
    Lost {
        /// The device.
        serial_number: SerialNumber,
    },
    /// Report: a device's health.
    Status {
        /// The device.
        serial_number: SerialNumber,
        /// How it is connected.
        connectivity: Connectivity,
        /// Its health.
        status: DeviceStatus,
    },
    /// Report: a device's synchronisation changed (or was confirmed).
    Sync {
        /// The device.
        serial_number: SerialNumber,
        /// How it now takes part in network time.
        synchronisation: Synchronisation,
    },
    /// Report: a device's attributes.
    Attributes {
        /// The device.
        serial_number: SerialNumber,
        /// Its attributes.
        attributes: DeviceAttributes,
    },
    /// Report: a device's firmware images.
    FirmwareImages {
        /// The device.
        serial_number: SerialNumber,
        /// Its images.
        images: Vec<FirmwareImage>,
    },
    /// Report: a batch of tag positions located at one network time.
    Positions {
        /// When, in network time units since the network started.
        network_time: u64,
        /// The positions.
        reports: Vec<PositionReport>,
    },
    /// Report: an anchor's (or seeder's) counters, with its status.
    AnchorCounters {
        /// The anchor.
        serial_number: SerialNumber,
        /// Its interface.
        interface: u8,
        /// Its counters since the network started.
        counters: AnchorCounters,
    },
    /// Report: arrival times of tag beacons at the anchors (`multitime`).
    ArrivalTimes {
        /// When, in network time units since the network started.
        network_time: u64,
        /// One entry per beacon.
        beacons: Vec<BeaconReport>,
    },
    /// Report: two-way ranges of tags to anchors (`multirange`).
    Ranges {
        /// When, in network time units since the network started.
        network_time: u64,
        /// One entry per ranging exchange.
        beacons: Vec<BeaconReport>,
    },
    /// Report: a batch of sensor readings.
    Sensors {
        /// When, in network time units since the network started.
        network_time: u64,
        /// The readings.
        reports: Vec<SensorReport>,
    },
}

/// Declares a two-way mapping between a type's values and one-byte codes.
macro_rules! code_table {
    ($to:ident, $from:ident, $ty:ty, $field:literal, { $($value:path => $code:literal),+ $(,)? }) => {
        fn $to(value: $ty) -> u8 {
            match value { $($value => $code),+ }
        }
        fn $from(code: u8) -> Result<$ty, DecodeError> {
            match code {
                $($code => Ok($value),)+
                other => Err(DecodeError::malformed($field, format!("{other} is not a known code"))),
            }
        }
    };
}

code_table!(mode_code, mode_from, NetworkMode, "network_mode", {
    NetworkMode::MultiTime => 1, NetworkMode::MultiRange => 2,
});
code_table!(nack_code, nack_from, NackReason, "reason", {
    NackReason::UnknownDevice => 1, NackReason::NotConfigured => 2, NackReason::NotRunning => 3,
    NackReason::BadRequest => 4, NackReason::Busy => 5,
});
code_table!(sensor_code, sensor_from, SensorKind, "sensor_kind", {
    SensorKind::Accelerometer => 1, SensorKind::Gyroscope => 2, SensorKind::Quaternion => 3,
    SensorKind::Magnetometer => 4, SensorKind::Pressure => 5, SensorKind::Temperature => 6,
});
code_table!(connectivity_code, connectivity_from, Connectivity, "connectivity", {
    Connectivity::None => 0, Connectivity::Uwb => 1, Connectivity::Ethernet => 2,
    Connectivity::UwbAndEthernet => 3,
});
code_table!(sync_code, sync_from, Synchronisation, "synchronisation", {
    Synchronisation::None => 0, Synchronisation::Tx => 1, Synchronisation::Rx => 2,
    Synchronisation::TxAndRx => 3,
});
code_table!(color_code, color_from, LedColor, "color", {
    LedColor::Red => 1, LedColor::Green => 2, LedColor::Blue => 3, LedColor::Magenta => 4,
    LedColor::Yellow => 5, LedColor::White => 6,
});
code_table!(led_mode_code, led_mode_from, LedMode, "mode", {
    LedMode::Solid => 1, LedMode::Flash => 2,
});
code_table!(brightness_code, brightness_from, LedBrightness, "led_brightness", {
    LedBrightness::Off => 0, LedBrightness::VeryDim => 1, LedBrightness::Dim => 2,
    LedBrightness::Bright => 3,
});
code_table!(image_code, image_from, FirmwareImageType, "image_type", {
    FirmwareImageType::Recovery => 1, FirmwareImageType::Bootloader => 2,
    FirmwareImageType::Firmware => 3, FirmwareImageType::Almanac => 4,
    FirmwareImageType::Application => 5,
});
code_table!(action_code, action_from, DeviceActionName, "action", {
    DeviceActionName::SoftReset => 1, DeviceActionName::HardReset => 2,
    DeviceActionName::SetLed => 3, DeviceActionName::ClearDeviceError => 4,
    DeviceActionName::ShipMode => 5, DeviceActionName::GetPropertyList => 6,
    DeviceActionName::GetProperty => 7, DeviceActionName::SetProperty => 8,
    DeviceActionName::GetDeviceAttributes => 9,
});

impl Message {
    /// The kind byte of the message in a frame header.
    pub const fn kind(&self) -> u8 {
        match self {
            Self::Ping { .. } => 0x01,
            Self::ConfigBegin { .. } => 0x02,
            Self::ConfigDevices { .. } => 0x03,
            Self::ConfigCommit { .. } => 0x04,
            Self::StartNetwork => 0x05,
            Self::StopNetwork => 0x06,
            Self::Resync => 0x07,
            Self::DeviceCommand { .. } => 0x08,
            Self::SetMagnetometerCalibration(_) => 0x09,
            Self::Survey { .. } => 0x0A,
            Self::Pong { .. } => 0x40,
            Self::Ack => 0x41,
            Self::Nack { .. } => 0x42,
            Self::DeviceReply(_) => 0x43,
            Self::Joined { .. } => 0x44,
            Self::Heard { .. } => 0x45,
            Self::Lost { .. } => 0x46,
            Self::Status { .. } => 0x47,
            Self::Sync { .. } => 0x48,
            Self::Attributes { .. } => 0x49,
            Self::FirmwareImages { .. } => 0x4A,
            Self::Positions { .. } => 0x4B,
            Self::Sensors { .. } => 0x4C,
            Self::AnchorCounters { .. } => 0x4D,
            Self::ArrivalTimes { .. } => 0x4E,
            Self::Ranges { .. } => 0x4F,
            Self::SurveyRanges { .. } => 0x50,
        }
    }

    /// True for the messages that answer a request.
    pub const fn is_reply(&self) -> bool {
        matches!(
            self,
            Self::Pong { .. }
                | Self::Ack
                | Self::Nack { .. }
                | Self::DeviceReply(_)
                | Self::SurveyRanges { .. }
        )
    }

    pub(crate) fn encode_payload(&self, out: &mut Writer) -> Result<(), EncodeError> {
        match self {
            Self::Ping { token } | Self::Pong { token } => out.u32(*token),
            Self::ConfigBegin {
                configuration,
                network_mode,
                rf,
                roles,
            } => {
                out.string("configuration", configuration)?;
                out.u8(mode_code(*network_mode));
                write_rf(out, rf)?;
                out.list("roles", roles, write_role)?;
            }
            Self::ConfigDevices { devices } => out.list("devices", devices, |out, device| {
                out.u32(device.serial_number.as_u32());
                out.list("interfaces", &device.interfaces, |out, interface| {
                    write_interface(out, interface);
                    Ok(())
                })
            })?,
            Self::ConfigCommit { device_count } => out.u32(*device_count),
            Self::StartNetwork | Self::StopNetwork | Self::Resync | Self::Ack => {}
            Self::DeviceCommand {
                serial_number,
                action,
            } => {
                out.u32(serial_number.as_u32());
                write_action(out, action);
            }
            Self::SetMagnetometerCalibration(calibration) => {
                out.u32(calibration.serial_number.as_u32());
                out.i16(calibration.x_offset);
                out.i16(calibration.y_offset);
                out.i16(calibration.z_offset);
            }
            Self::Nack { reason } => out.u8(nack_code(*reason)),
            Self::DeviceReply(reply) => {
                out.u32(reply.serial_number.as_u32());
                out.u8(action_code(reply.action));
                write_outcome(out, &reply.outcome)?;
            }
            Self::Joined {
                serial_number,
                interface,
                role_id,
            } => {
                out.u32(serial_number.as_u32());
                out.u8(*interface);
                out.u32(role_id.0);
            }
            Self::Heard { serial_number } | Self::Lost { serial_number } => {
                out.u32(serial_number.as_u32())
            }
            Self::Status {
                serial_number,
                connectivity,
                status,
            } => {
                out.u32(serial_number.as_u32());
                out.u8(connectivity_code(*connectivity));
                out.u8(DeviceStatus::battery_to_wire(status.battery_percent));
                out.i16(status.temperature_celsius);
                out.u8(status.processor_use_percent);
                out.bool(status.minutes_remaining.is_some());
                out.u32(status.minutes_remaining.unwrap_or(0));
            }
            Self::Sync {
                serial_number,
                synchronisation,
            } => {
                out.u32(serial_number.as_u32());
                out.u8(sync_code(*synchronisation));
            }
            Self::Attributes {
                serial_number,
                attributes,
            } => {
                out.u32(serial_number.as_u32());
                write_attributes(out, attributes)?;
            }
            Self::FirmwareImages {
                serial_number,
                images,
            } => {
                out.u32(serial_number.as_u32());
                out.list("images", images, |out, image| {
                    out.u8(image_code(image.image_type));
                    out.string("version", &image.version)?;
                    out.string("sha1", &image.sha1)
                })?;
            }
            Self::Positions {
                network_time,
                reports,
            } => {
                out.u64(*network_time);
                out.list("reports", reports, |out, report| {
                    out.u32(report.serial_number.as_u32());
                    out.i32(report.position.x);
                    out.i32(report.position.y);
                    out.i32(report.position.z);
                    out.u16(report.position.quality);
                    out.u8(report.position.anchors_used);
                    Ok(())
                })?;
            }
            Self::AnchorCounters {
                serial_number,
                interface,
                counters,
            } => {
                out.u32(serial_number.as_u32());
                out.u8(*interface);
                out.u32(counters.ticks);
                out.u32(counters.timed_rxs);
                out.u32(counters.beacons_reported);
                out.u32(counters.beacons_discarded);
                out.u32(counters.beacons_late);
                out.u64(counters.quality_sum);
            }
            Self::Survey { anchor, rounds } => {
                out.u32(anchor.as_u32());
                out.u8(*rounds);
            }
            Self::SurveyRanges { anchor, peers } => {
                out.u32(anchor.as_u32());
                out.list("peers", peers, |out, peer| {
                    out.u32(peer.peer.as_u32());
                    out.u32(peer.range_mm);
                    out.u8(peer.rounds);
                    Ok(())
                })?;
            }
            Self::ArrivalTimes {
                network_time,
                beacons,
            }
            | Self::Ranges {
                network_time,
                beacons,
            } => {
                out.u64(*network_time);
                out.list("beacons", beacons, |out, beacon| {
                    out.u32(beacon.serial_number.as_u32());
                    out.u64(beacon.base);
                    out.list("links", &beacon.links, |out, (anchor, value)| {
                        out.u32(anchor.as_u32());
                        out.i32(*value);
                        Ok(())
                    })
                })?;
            }
            Self::Sensors {
                network_time,
                reports,
            } => {
                out.u64(*network_time);
                out.list("reports", reports, |out, report| {
                    out.u32(report.serial_number.as_u32());
                    out.u8(sensor_code(report.kind));
                    report.values.iter().for_each(|value| out.i32(*value));
                    Ok(())
                })?;
            }
        }
        Ok(())
    }

    pub(crate) fn decode_payload(kind: u8, payload: &[u8]) -> Result<Self, DecodeError> {
        let mut reader = Reader::new(payload);
        let input = &mut reader;
        let serial =
            |input: &mut Reader<'_>| input.u32("serial_number").map(SerialNumber::from_u32);
        let message = match kind {
            0x01 => Self::Ping {
                token: input.u32("token")?,
            },
            0x02 => Self::ConfigBegin {
                configuration: input.string("configuration")?,
                network_mode: mode_from(input.u8("network_mode")?)?,
                rf: read_rf(input)?,
                roles: input.list("roles", 40, read_role)?,
            },
            0x03 => Self::ConfigDevices {
                devices: input.list("devices", 6, |input| {
                    Ok(WireDevice {
                        serial_number: serial(input)?,
                        interfaces: input.list("interfaces", 6, read_interface)?,
                    })
                })?,
            },
            0x04 => Self::ConfigCommit {
                device_count: input.u32("device_count")?,
            },
            0x05 => Self::StartNetwork,
            0x06 => Self::StopNetwork,
            0x07 => Self::Resync,
            0x08 => Self::DeviceCommand {
                serial_number: serial(input)?,
                action: read_action(input)?,
            },
            0x09 => Self::SetMagnetometerCalibration(MagnetometerCalibration {
                serial_number: serial(input)?,
                x_offset: input.i16("x_offset")?,
                y_offset: input.i16("y_offset")?,
                z_offset: input.i16("z_offset")?,
            }),
            0x40 => Self::Pong {
                token: input.u32("token")?,
            },
            0x41 => Self::Ack,
            0x42 => Self::Nack {
                reason: nack_from(input.u8("reason")?)?,
            },
            0x43 => {
                let serial_number = serial(input)?;
                let action = action_from(input.u8("action")?)?;
                let outcome = read_outcome(input, action)?;
                Self::DeviceReply(DeviceActionReply {
                    serial_number,
                    action,
                    outcome,
                })
            }
            0x44 => Self::Joined {
                serial_number: serial(input)?,
                interface: input.u8("interface")?,
                role_id: RoleId(input.u32("role_id")?),
            },
            0x45 => Self::Heard {
                serial_number: serial(input)?,
            },
            0x46 => Self::Lost {
                serial_number: serial(input)?,
            },
            0x47 => {
                let serial_number = serial(input)?;
                let connectivity = connectivity_from(input.u8("connectivity")?)?;
                let battery_percent = input.u8("battery_percent")?;
                let temperature_celsius = input.i16("temperature_celsius")?;
                let processor_use_percent = input.u8("processor_use_percent")?;
                let has_minutes = input.bool("minutes_remaining")?;
                let minutes = input.u32("minutes_remaining")?;
                Self::Status {
                    serial_number,
                    connectivity,
                    status: DeviceStatus {
                        battery_percent: DeviceStatus::battery_from_wire(battery_percent),
                        temperature_celsius,
                        processor_use_percent,
                        minutes_remaining: has_minutes.then_some(minutes),
                    },
                }
            }
            0x48 => Self::Sync {
                serial_number: serial(input)?,
                synchronisation: sync_from(input.u8("synchronisation")?)?,
            },
            0x49 => Self::Attributes {
                serial_number: serial(input)?,
                attributes: read_attributes(input)?,
            },
            0x4A => Self::FirmwareImages {
                serial_number: serial(input)?,
                images: input.list("images", 3, |input| {
                    Ok(FirmwareImage {
                        image_type: image_from(input.u8("image_type")?)?,
                        version: input.string("version")?,
                        sha1: input.string("sha1")?,
                    })
                })?,
            },
            0x4B => Self::Positions {
                network_time: input.u64("network_time")?,
                reports: input.list("reports", 19, |input| {
                    Ok(PositionReport {
                        serial_number: serial(input)?,
                        position: Position {
                            x: input.i32("x")?,
                            y: input.i32("y")?,
                            z: input.i32("z")?,
                            quality: input.u16("quality")?,
                            anchors_used: input.u8("anchors_used")?,
                            error_mm: 0,
                            vx: None,
                            vy: None,
                        },
                    })
                })?,
            },
            0x4D => Self::AnchorCounters {
                serial_number: serial(input)?,
                interface: input.u8("interface")?,
                counters: AnchorCounters {
                    ticks: input.u32("ticks")?,
                    timed_rxs: input.u32("timed_rxs")?,
                    beacons_reported: input.u32("beacons_reported")?,
                    beacons_discarded: input.u32("beacons_discarded")?,
                    beacons_late: input.u32("beacons_late")?,
                    quality_sum: input.u64("quality_sum")?,
                },
            },
            0x4C => Self::Sensors {
                network_time: input.u64("network_time")?,
                reports: input.list("reports", 21, |input| {
                    let serial_number = serial(input)?;
                    let kind = sensor_from(input.u8("sensor_kind")?)?;
                    let mut values = [0; 4];
                    for value in &mut values {
                        *value = input.i32("values")?;
                    }
                    Ok(SensorReport {
                        serial_number,
                        kind,
                        values,
                    })
                })?,
            },
            0x0A => Self::Survey {
                anchor: serial(input)?,
                rounds: input.u8("rounds")?,
            },
            0x50 => Self::SurveyRanges {
                anchor: serial(input)?,
                peers: input.list("peers", 9, |input| {
                    Ok(PeerRange {
                        peer: serial(input)?,
                        range_mm: input.u32("range_mm")?,
                        rounds: input.u8("rounds")?,
                    })
                })?,
            },
            0x4E => Self::ArrivalTimes {
                network_time: input.u64("network_time")?,
                beacons: decode_beacons(input)?,
            },
            0x4F => Self::Ranges {
                network_time: input.u64("network_time")?,
                beacons: decode_beacons(input)?,
            },
            other => return Err(DecodeError::UnknownKind { kind: other }),
        };
        reader.finish()?;
        Ok(message)
    }
}

fn decode_beacons(input: &mut Reader<'_>) -> Result<Vec<BeaconReport>, DecodeError> {
    input.list("beacons", 14, |input| {
        Ok(BeaconReport {
            serial_number: SerialNumber::from_u32(input.u32("serial_number")?),
            base: input.u64("base")?,
            links: input.list("links", 8, |input| {
                Ok((
                    SerialNumber::from_u32(input.u32("anchor")?),
                    input.i32("value")?,
                ))
            })?,
        })
    })
}

fn write_rf(out: &mut Writer, rf: &RfSetting) -> Result<(), EncodeError> {
    out.string("rf.name", &rf.name)?;
    // Every bit rate and preamble length fits 16 bits; the model's enums
    // list them all.
    out.u16(rf.bit_rate.value() as u16);
    out.u8(rf.channel.value() as u8);
    out.u8(rf.preamble_code.value());
    out.u16(rf.preamble_length.value() as u16);
    out.u8(rf.prf.value() as u8);
    Ok(())
}

fn read_rf(input: &mut Reader<'_>) -> Result<RfSetting, DecodeError> {
    let name = item_name(input.string("rf.name")?, "rf.name")?;
    let not_allowed = |field| {
        move |error: netcfg_model::NotAllowed| DecodeError::malformed(field, error.to_string())
    };
    Ok(RfSetting {
        name,
        bit_rate: BitRate::try_from(u32::from(input.u16("rf.bit_rate")?))
            .map_err(not_allowed("rf.bit_rate"))?,
        channel: Channel::try_from(u32::from(input.u8("rf.channel")?))
            .map_err(not_allowed("rf.channel"))?,
        preamble_code: PreambleCode::try_from(u32::from(input.u8("rf.preamble_code")?))
            .map_err(|error| DecodeError::malformed("rf.preamble_code", error.to_string()))?,
        preamble_length: PreambleLength::try_from(u32::from(input.u16("rf.preamble_length")?))
            .map_err(not_allowed("rf.preamble_length"))?,
        prf: Prf::try_from(u32::from(input.u8("rf.prf")?)).map_err(not_allowed("rf.prf"))?,
    })
}

fn item_name(text: String, field: &'static str) -> Result<ItemName, DecodeError> {
    ItemName::try_from(text).map_err(|error| DecodeError::malformed(field, error.to_string()))
}

fn write_role(out: &mut Writer, role: &Role) -> Result<(), EncodeError> {
    out.u32(role.id.0);
    out.string("role.name", &role.name)?;
    out.u32(role.network_period.units());
    out.u32(role.window_duration.units());
    out.u32(role.device_count);
    for (_, period) in role.sensor_periods() {
        out.u32(period.into());
    }
    out.u8(brightness_code(role.led_brightness));
    Ok(())
}

fn read_role(input: &mut Reader<'_>) -> Result<Role, DecodeError> {
    let id = RoleId(input.u32("role.id")?);
    let name = item_name(input.string("role.name")?, "role.name")?;
    let mut role = Role::new(
        id,
        name,
        NetworkTime::from_units(input.u32("role.network_period")?),
    );
    role.window_duration = NetworkTime::from_units(input.u32("role.window_duration")?);
    role.device_count = input.u32("role.device_count")?;
    let mut sensor = |field| {
        SensorPeriod::try_from(input.u32(field)?)
            .map_err(|error| DecodeError::malformed(field, error.to_string()))
    };
    role.accelerometer_period = sensor("role.accelerometer_period")?;
    role.gyroscope_period = sensor("role.gyroscope_period")?;
    role.quaternion_period = sensor("role.quaternion_period")?;
    role.magnetometer_period = sensor("role.magnetometer_period")?;
    role.pressure_period = sensor("role.pressure_period")?;
    role.temperature_period = sensor("role.temperature_period")?;
    role.led_brightness = brightness_from(input.u8("role.led_brightness")?)?;
    Ok(role)
}

fn write_interface(out: &mut Writer, interface: &Interface) {
    out.u8(interface.identifier);
    out.u32(interface.role_id.0);
    // A presence bit per coordinate keeps "unknown" apart from 0 mm.
    let flags = u8::from(interface.x.is_some())
        | u8::from(interface.y.is_some()) << 1
        | u8::from(interface.z.is_some()) << 2;
    out.u8(flags);
    for coordinate in [interface.x, interface.y, interface.z]
        .into_iter()
        .flatten()
    {
        out.i32(coordinate);
    }
}

fn read_interface(input: &mut Reader<'_>) -> Result<Interface, DecodeError> {
    let identifier = input.u8("interface.identifier")?;
    let role_id = RoleId(input.u32("interface.role_id")?);
    let flags = input.u8("interface.coordinates")?;
    if flags > 0b111 {
        return Err(DecodeError::malformed(
            "interface.coordinates",
            format!("{flags:#04x} sets bits other than x, y, z"),
        ));
    }
    let mut coordinate = |bit: u8, field| -> Result<Option<i32>, DecodeError> {
        if flags & (1 << bit) == 0 {
            Ok(None)
        } else {
            input.i32(field).map(Some)
        }
    };
    Ok(Interface {
        identifier,
        role_id,
        x: coordinate(0, "interface.x")?,
        y: coordinate(1, "interface.y")?,
        z: coordinate(2, "interface.z")?,
    })
}

fn write_action(out: &mut Writer, action: &DeviceAction) {
    out.u8(action_code(action.name()));
    match action {
        DeviceAction::SetLed {
            color,
            mode,
            timeout,
        } => {
            out.u8(color_code(*color));
            out.u8(led_mode_code(*mode));
            out.u16(timeout.seconds());
        }
        DeviceAction::GetProperty { property_id } => out.u32(*property_id),
        DeviceAction::SetProperty { property_id, value } => {
            out.u32(*property_id);
            out.i64(*value);
        }
        DeviceAction::SoftReset
        | DeviceAction::HardReset
        | DeviceAction::ClearDeviceError
        | DeviceAction::ShipMode
        | DeviceAction::GetPropertyList
        | DeviceAction::GetDeviceAttributes => {}
    }
}

fn read_action(input: &mut Reader<'_>) -> Result<DeviceAction, DecodeError> {
    Ok(match action_from(input.u8("action")?)? {
        DeviceActionName::SoftReset => DeviceAction::SoftReset,
        DeviceActionName::HardReset => DeviceAction::HardReset,
        DeviceActionName::ClearDeviceError => DeviceAction::ClearDeviceError,
        DeviceActionName::ShipMode => DeviceAction::ShipMode,
        DeviceActionName::GetPropertyList => DeviceAction::GetPropertyList,
        DeviceActionName::GetDeviceAttributes => DeviceAction::GetDeviceAttributes,
        DeviceActionName::SetLed => DeviceAction::SetLed {
            color: color_from(input.u8("color")?)?,
            mode: led_mode_from(input.u8("mode")?)?,
            timeout: LedTimeout::try_from(u32::from(input.u16("timeout")?))
                .map_err(|error| DecodeError::malformed("timeout", error.to_string()))?,
        },
        DeviceActionName::GetProperty => DeviceAction::GetProperty {
            property_id: input.u32("property_id")?,
        },
        DeviceActionName::SetProperty => DeviceAction::SetProperty {
            property_id: input.u32("property_id")?,
            value: input.i64("value")?,
        },
    })
}

fn write_attributes(out: &mut Writer, attributes: &DeviceAttributes) -> Result<(), EncodeError> {
    out.u32(attributes.minimum_beacon_period.units());
    out.string("jurisdiction", &attributes.jurisdiction)?;
    out.string("enclosure_colour", &attributes.enclosure_colour)?;
    out.string("sku", &attributes.sku)
}

fn read_attributes(input: &mut Reader<'_>) -> Result<DeviceAttributes, DecodeError> {
    Ok(DeviceAttributes {
        minimum_beacon_period: NetworkTime::from_units(input.u32("minimum_beacon_period")?),
        jurisdiction: input.string("jurisdiction")?,
        enclosure_colour: input.string("enclosure_colour")?,
        sku: input.string("sku")?,
    })
}

fn write_outcome(out: &mut Writer, outcome: &ActionOutcome) -> Result<(), EncodeError> {
    match outcome {
        ActionOutcome::Done => out.u8(0),
        ActionOutcome::PropertyList { property_ids } => {
            out.u8(1);
            out.list("property_ids", property_ids, |out, id| {
                out.u32(*id);
                Ok(())
            })?;
        }
        ActionOutcome::Property { property_id, value } => {
            out.u8(2);
            out.u32(*property_id);
            out.i64(*value);
        }
        ActionOutcome::Attributes { attributes } => {
            out.u8(3);
            write_attributes(out, attributes)?;
        }
    }
    Ok(())
}

/// Reads an outcome; it must be one the action can have.
fn read_outcome(
    input: &mut Reader<'_>,
    action: DeviceActionName,
) -> Result<ActionOutcome, DecodeError> {
    let outcome = match input.u8("outcome")? {
        0 => ActionOutcome::Done,
        1 => ActionOutcome::PropertyList {
            property_ids: input.list("property_ids", 4, |input| input.u32("property_ids"))?,
        },
        2 => ActionOutcome::Property {
            property_id: input.u32("property_id")?,
            value: input.i64("value")?,
        },
        3 => ActionOutcome::Attributes {
            attributes: read_attributes(input)?,
        },
        other => {
            return Err(DecodeError::malformed(
                "outcome",
                format!("{other} is not a known code"),
            ));
        }
    };
    let expected = match action {
        DeviceActionName::GetPropertyList => 1,
        DeviceActionName::GetProperty | DeviceActionName::SetProperty => 2,
        DeviceActionName::GetDeviceAttributes => 3,
        _ => 0,
    };
    if outcome_code(&outcome) != expected {
        return Err(DecodeError::malformed(
            "outcome",
            format!("{action} cannot answer with this outcome"),
        ));
    }
    Ok(outcome)
}

fn outcome_code(outcome: &ActionOutcome) -> u8 {
    match outcome {
        ActionOutcome::Done => 0,
        ActionOutcome::PropertyList { .. } => 1,
        ActionOutcome::Property { .. } => 2,
        ActionOutcome::Attributes { .. } => 3,
    }
}
