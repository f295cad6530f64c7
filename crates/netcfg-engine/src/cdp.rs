//! The vendor's data protocol (CDP) of the data streams: a pure codec.
//!
//! Every datagram the engine sends on a configuration's Config, Anchor and
//! User streams is one CDP packet (`../shared/spec/cdp.md`,
//! `docs/engine-protocol.md` §2):
//!
//! ```text
//! mark u32 0x3230434C | sequence u32 | "CDP0002\0" | serial u32 | items…
//! item: type u16 | size u16 | size bytes of data
//! ```
//!
//! All integers are little endian. [`Item`] is every item netcfg sends, at
//! its exact size; [`Packet::decode`] reads any CDP packet (unknown item
//! types are kept as [`Item::Unknown`]); [`pack`] fills datagrams of at most
//! [`MAX_DATAGRAM_LEN`] bytes with as many items as fit.
//!
//! ```
//! use netcfg_engine::cdp::{Item, Packet, PositionV3};
//! use netcfg_model::SerialNumber;
//! let packet = Packet {
//!     sequence: 7,
//!     serial_number: SerialNumber::from_u32(0xFE12_3456),
//!     items: vec![Item::PositionV3(PositionV3 {
//!         serial_number: SerialNumber::from_u32(0x0105_0001),
//!         network_time: 975_000 * 65_536,
//!         x: 1_200, y: -300, z: 1_000,
//!         quality: 9_100, anchor_count: 4, flags: 0, smoothing: 0,
//!     })],
//! };
//! let bytes = packet.encode().unwrap();
//! assert_eq!(bytes.len(), 20 + 4 + 30);
//! assert_eq!(Packet::decode(&bytes).unwrap(), packet);
//! ```

use std::net::Ipv4Addr;

use netcfg_model::SerialNumber;

/// The mark that opens every packet (bytes `4C 43 30 32`).
pub const MARK: u32 = 0x3230_434C;
/// The protocol string at offset 8.
pub const PROTOCOL_STRING: [u8; 8] = *b"CDP0002\0";
/// Bytes of the packet header.
pub const HEADER_LEN: usize = 20;
/// Bytes of an item's header (type, size).
pub const ITEM_HEADER_LEN: usize = 4;
/// The largest UDP payload sent: one Ethernet frame, no fragmentation.
pub const MAX_DATAGRAM_LEN: usize = 1_472;
/// The most data one item can carry in a datagram of [`MAX_DATAGRAM_LEN`].
pub const MAX_ITEM_DATA_LEN: usize = MAX_DATAGRAM_LEN - HEADER_LEN - ITEM_HEADER_LEN;
/// CDP network-time ticks (1/(499.2 MHz × 128)) and API network time
/// units (1/975,000 s): the model's one definition, re-exported for the
/// readers of this protocol.
pub use netcfg_model::time::ticks::{TICKS_PER_UNIT, ticks_from_units, units_from_ticks};
/// The full scale of a signed 32-bit sensor value: `value = raw × scale / FULL_SCALE_I32`.
pub const FULL_SCALE_I32: f64 = 2_147_483_647.0;
/// The full scale of a signed 16-bit sensor value (TemperatureV2).
pub const FULL_SCALE_I16: f64 = 32_767.0;
/// A quaternion component of 1.0 (`raw ÷ 2^30`).
pub const QUATERNION_ONE: f64 = 1_073_741_824.0;
/// PositionV3 flag: the tag is in inactive mode.
pub const FLAG_INACTIVE: u8 = 0x80;
/// PositionV3 flag: the position was not calculated.
pub const FLAG_NOT_CALCULATED: u8 = 0x40;
/// QuaternionV3 quality when the algorithm gives none.
pub const QUATERNION_NO_QUALITY: u16 = 0x4000;

/// `value` (in the unit of `scale`) as a raw signed 32-bit reading of full scale `scale`.
pub fn raw_i32(value: f64, scale: f64) -> i32 {
    let raw = (value / scale * FULL_SCALE_I32).round();
    raw.clamp(-FULL_SCALE_I32, FULL_SCALE_I32) as i32
}

/// `value` (in the unit of `scale`) as a raw signed 16-bit reading of full scale `scale`.
pub fn raw_i16(value: f64, scale: f64) -> i16 {
    let raw = (value / scale * FULL_SCALE_I16).round();
    raw.clamp(-FULL_SCALE_I16, FULL_SCALE_I16) as i16
}

/// The type codes of the items netcfg sends.
pub mod item_type {
    /// PositionV3.
    pub const POSITION_V3: u16 = 0x0135;
    /// DeviceActivityState.
    pub const DEVICE_ACTIVITY_STATE: u16 = 0x0137;
    /// PressureV2.
    pub const PRESSURE_V2: u16 = 0x013C;
    /// TemperatureV2.
    pub const TEMPERATURE_V2: u16 = 0x013E;
    /// DeviceNames.
    pub const DEVICE_NAMES: u16 = 0x013F;
    /// Synchronization.
    pub const SYNCHRONIZATION: u16 = 0x0140;
    /// RoleReport.
    pub const ROLE_REPORT: u16 = 0x0141;
    /// AnchorHealthV5.
    pub const ANCHOR_HEALTH_V5: u16 = 0x014A;
    /// QuaternionV3.
    pub const QUATERNION_V3: u16 = 0x0178;
    /// AccelerometerV3.
    pub const ACCELEROMETER_V3: u16 = 0x017A;
    /// GyroscopeV3.
    pub const GYROSCOPE_V3: u16 = 0x017B;
    /// MagnetometerV3.
    pub const MAGNETOMETER_V3: u16 = 0x017C;
    /// CDPStreamInformation.
    pub const STREAM_INFORMATION: u16 = 0x011A;
    /// HostnameAnnounce.
    pub const HOSTNAME_ANNOUNCE: u16 = 0x011B;
    /// InstanceAnnounce.
    pub const INSTANCE_ANNOUNCE: u16 = 0x011C;
    /// GeofencerZoneInfo.
    pub const GEOFENCER_ZONE_INFO: u16 = 0x80DB;
    /// TagZoneInfo.
    pub const TAG_ZONE_INFO: u16 = 0x80DC;
}

/// The bytes of GeofencerZoneInfo's fixed-length zone name.
pub const ZONE_NAME_LEN: usize = 50;

/// GeofencerZoneInfo (0x80DB, 64 + 8 × vertices bytes): a zone's number,
/// name, heights, hysteresis and outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeofencerZoneInfo {
    /// The zone's number.
    pub zone_id: u16,
    /// Its name, at most [`ZONE_NAME_LEN`] bytes (padded with NULs).
    pub zone_name: String,
    /// The lowest height inside, mm (`i32::MIN`: no floor).
    pub z_min: i32,
    /// The highest, mm (`i32::MAX`: no ceiling).
    pub z_max: i32,
    /// Its hysteresis, mm.
    pub hysteresis: u32,
    /// Its outline, `[x, y]` mm.
    pub vertices: Vec<[i32; 2]>,
}

/// TagZoneInfo (0x80DC, 4 + 2 × zones bytes): the zones a tag is inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagZoneInfo {
    /// The tag.
    pub serial_number: SerialNumber,
    /// The numbers of the zones it is inside now.
    pub zones: Vec<u16>,
}

/// PositionV3 (0x0135, 30 bytes): one tag position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionV3 {
    /// The tag.
    pub serial_number: SerialNumber,
    /// CDP network time (ticks).
    pub network_time: u64,
    /// East, mm.
    pub x: i32,
    /// North, mm.
    pub y: i32,
    /// Height, mm.
    pub z: i32,
    /// 0 to 10,000.
    pub quality: u16,
    /// Anchors used.
    pub anchor_count: u8,
    /// [`FLAG_INACTIVE`], [`FLAG_NOT_CALCULATED`].
    pub flags: u8,
    /// Positions averaged minus one.
    pub smoothing: u16,
}

/// DeviceActivityState (0x0137, 20 bytes): a device's state on the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceActivityState {
    /// The device.
    pub serial_number: SerialNumber,
    /// Its interface.
    pub interface_id: u8,
    /// East, mm.
    pub x: i32,
    /// North, mm.
    pub y: i32,
    /// Height, mm.
    pub z: i32,
    /// The role it works in.
    pub role_id: u8,
    /// 0 none, 1 UWB, 2 Ethernet, 3 both.
    pub connectivity: u8,
    /// 0 none, 1 TX, 2 RX, 3 both.
    pub synchronization: u8,
}

/// DeviceNames (0x013F, 4 + n bytes): a device's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceNames {
    /// The device.
    pub serial_number: SerialNumber,
    /// Its name.
    pub name: String,
}

/// RoleReport (0x0141, 6 + n bytes): devices in a role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleReport {
    /// The role.
    pub role_id: u16,
    /// Devices configured in it.
    pub max_quantity: u16,
    /// Of those, devices taking part in the network now.
    pub active_quantity: u16,
    /// Its name.
    pub name: String,
}

/// AnchorHealthV5 (0x014A, 29 + 5k bytes): an anchor's counters since its
/// last health report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnchorHealthV5 {
    /// The anchor.
    pub serial_number: SerialNumber,
    /// Its interface.
    pub interface_id: u8,
    /// Seeder ticks reported.
    pub ticks: u32,
    /// Timed receptions reported.
    pub timed_rxs: u32,
    /// Tag beacons reported.
    pub beacons_reported: u32,
    /// Tag beacons discarded.
    pub beacons_discarded: u32,
    /// Tag beacons that came late.
    pub beacons_late: u32,
    /// Average quality, 0 to 10,000.
    pub average_quality: u16,
    /// Seconds between reports.
    pub report_period: u8,
    /// 0 none, 1 blacklisting, 2 bad survey.
    pub interanchor_comms_error_code: u8,
    /// Anchors it pairs badly with: serial and interface.
    pub bad_paired_anchors: Vec<(SerialNumber, u8)>,
}

/// Synchronization (0x0140, 8 bytes): synchronised anchors, most and now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Synchronization {
    /// Anchors that could be TX-synchronised.
    pub max_tx: u16,
    /// Anchors TX-synchronised now.
    pub current_tx: u16,
    /// Anchors that could be RX-synchronised.
    pub max_rx: u16,
    /// Anchors RX-synchronised now.
    pub current_rx: u16,
}

/// A three-axis reading with a 16-bit full scale (GyroscopeV3: degrees per
/// second; MagnetometerV3: µT).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vector3 {
    /// The tag.
    pub serial_number: SerialNumber,
    /// CDP network time (ticks).
    pub network_time: u64,
    /// Raw x.
    pub x: i32,
    /// Raw y.
    pub y: i32,
    /// Raw z.
    pub z: i32,
    /// Full scale: `value = raw × scale / 2,147,483,647`.
    pub scale: u16,
}

/// AccelerometerV3 (0x017A, 25 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccelerometerV3 {
    /// The tag.
    pub serial_number: SerialNumber,
    /// CDP network time (ticks).
    pub network_time: u64,
    /// Raw x.
    pub x: i32,
    /// Raw y.
    pub y: i32,
    /// Raw z.
    pub z: i32,
    /// Full scale in g: `value = raw × scale / 2,147,483,647`.
    pub scale: u8,
}

/// QuaternionV3 (0x0178, 31 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuaternionV3 {
    /// The tag.
    pub serial_number: SerialNumber,
    /// CDP network time (ticks).
    pub network_time: u64,
    /// x ÷ 2^30.
    pub x: i32,
    /// y ÷ 2^30.
    pub y: i32,
    /// z ÷ 2^30.
    pub z: i32,
    /// w ÷ 2^30.
    pub w: i32,
    /// How it was computed (2: accelerometer, gyroscope and magnetometer, normalised).
    pub quaternion_type: u8,
    /// 0 to 10,000, or [`QUATERNION_NO_QUALITY`].
    pub quality: u16,
}

/// PressureV2 (0x013C, 20 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PressureV2 {
    /// The tag.
    pub serial_number: SerialNumber,
    /// CDP network time (ticks).
    pub network_time: u64,
    /// Raw pressure.
    pub pressure: i32,
    /// Full scale in mbar: `value = raw × scale / 2,147,483,647`.
    pub scale: u32,
}

/// TemperatureV2 (0x013E, 16 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemperatureV2 {
    /// The tag.
    pub serial_number: SerialNumber,
    /// CDP network time (ticks).
    pub network_time: u64,
    /// Raw temperature.
    pub temperature: i16,
    /// Full scale in °C: `value = raw × scale / 32,767`.
    pub scale: u16,
}

/// CDPStreamInformation (0x011A, 17 + n bytes): one stream of the sender.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamInformation {
    /// Where the stream goes.
    pub destination_ip: Ipv4Addr,
    /// Its UDP port.
    pub destination_port: u16,
    /// The host address it leaves from.
    pub interface_ip: Ipv4Addr,
    /// That interface's netmask (0.0.0.0 when unknown).
    pub interface_netmask: Ipv4Addr,
    /// The local port (0: unused).
    pub interface_port: u16,
    /// Multicast time to live.
    pub ttl: u8,
    /// The stream's name.
    pub name: String,
}

/// One data item of a packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// 0x0135.
    PositionV3(PositionV3),
    /// 0x0137.
    DeviceActivityState(DeviceActivityState),
    /// 0x013F.
    DeviceNames(DeviceNames),
    /// 0x0141.
    RoleReport(RoleReport),
    /// 0x014A.
    AnchorHealthV5(AnchorHealthV5),
    /// 0x0140.
    Synchronization(Synchronization),
    /// 0x017A.
    AccelerometerV3(AccelerometerV3),
    /// 0x017B.
    GyroscopeV3(Vector3),
    /// 0x017C.
    MagnetometerV3(Vector3),
    /// 0x0178.
    QuaternionV3(QuaternionV3),
    /// 0x013C.
    PressureV2(PressureV2),
    /// 0x013E.
    TemperatureV2(TemperatureV2),
    /// 0x011A.
    StreamInformation(StreamInformation),
    /// 0x011B: the host's name.
    HostnameAnnounce(String),
    /// 0x011C: the instance's name (netcfg: the configuration's).
    InstanceAnnounce(String),
    /// 0x80DB.
    GeofencerZoneInfo(GeofencerZoneInfo),
    /// 0x80DC.
    TagZoneInfo(TagZoneInfo),
    /// A type this codec does not read, kept as bytes.
    Unknown {
        /// The item's type.
        item_type: u16,
        /// Its data.
        data: Vec<u8>,
    },
}

/// Why bytes are not a CDP packet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CdpDecodeError {
    /// Fewer bytes than a header.
    #[error("{0} byte(s) are too short for a CDP header of 20")]
    Short(usize),
    /// The mark is not `0x3230434C`.
    #[error("bad mark {0:#010X}: a CDP packet opens with 0x3230434C")]
    BadMark(u32),
    /// The protocol string is not `CDP0002\0`.
    #[error("bad protocol string {0:02X?}: expected \"CDP0002\\0\"")]
    BadString([u8; 8]),
    /// An item says it is longer than the bytes left.
    #[error("item {item_type:#06X} of {size} byte(s) overruns the packet ({available} left)")]
    Overrun {
        /// The item's type.
        item_type: u16,
        /// Its size field.
        size: usize,
        /// Bytes left after its header.
        available: usize,
    },
    /// 1 to 3 bytes after the last item.
    #[error("{0} byte(s) left over after the last item")]
    LeftOver(usize),
    /// A known item whose data does not fit its layout.
    #[error("item {item_type:#06X} is malformed: {reason}")]
    BadItem {
        /// The item's type.
        item_type: u16,
        /// What was wrong.
        reason: String,
    },
}

/// Why items cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CdpEncodeError {
    /// An item too large for one datagram.
    #[error("item {item_type:#06X} of {size} byte(s) does not fit a datagram (at most {max})")]
    TooLarge {
        /// The item's type.
        item_type: u16,
        /// Its data size.
        size: usize,
        /// The most that fits.
        max: usize,
    },
}

fn put_u8(out: &mut Vec<u8>, value: u8) {
    out.push(value);
}
fn put_u16(out: &mut Vec<u8>, value: u16) {
    out.extend_from_slice(&value.to_le_bytes());
}
fn put_i16(out: &mut Vec<u8>, value: i16) {
    out.extend_from_slice(&value.to_le_bytes());
}
fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}
fn put_i32(out: &mut Vec<u8>, value: i32) {
    out.extend_from_slice(&value.to_le_bytes());
}
fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}
fn put_serial(out: &mut Vec<u8>, value: SerialNumber) {
    put_u32(out, value.as_u32());
}
/// An IPv4 address: the dotted quad as a big-endian number, written little endian.
fn put_ip(out: &mut Vec<u8>, value: Ipv4Addr) {
    put_u32(out, u32::from(value));
}

/// Reads one item's data; every read is bounds-checked.
struct Data<'a> {
    item_type: u16,
    bytes: &'a [u8],
}

impl<'a> Data<'a> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], CdpDecodeError> {
        let Some((head, rest)) = self.bytes.split_first_chunk::<N>() else {
            return Err(self.bad(format!("{} byte(s) missing", N - self.bytes.len())));
        };
        self.bytes = rest;
        Ok(*head)
    }
    fn bad(&self, reason: String) -> CdpDecodeError {
        CdpDecodeError::BadItem {
            item_type: self.item_type,
            reason,
        }
    }
    fn u8(&mut self) -> Result<u8, CdpDecodeError> {
        Ok(self.take::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16, CdpDecodeError> {
        self.take().map(u16::from_le_bytes)
    }
    fn i16(&mut self) -> Result<i16, CdpDecodeError> {
        self.take().map(i16::from_le_bytes)
    }
    fn u32(&mut self) -> Result<u32, CdpDecodeError> {
        self.take().map(u32::from_le_bytes)
    }
    fn i32(&mut self) -> Result<i32, CdpDecodeError> {
        self.take().map(i32::from_le_bytes)
    }
    fn u64(&mut self) -> Result<u64, CdpDecodeError> {
        self.take().map(u64::from_le_bytes)
    }
    fn serial(&mut self) -> Result<SerialNumber, CdpDecodeError> {
        self.u32().map(SerialNumber::from_u32)
    }
    fn ip(&mut self) -> Result<Ipv4Addr, CdpDecodeError> {
        self.u32().map(Ipv4Addr::from)
    }
    /// The rest of the item as UTF-8 text.
    fn rest_text(&mut self) -> Result<String, CdpDecodeError> {
        let text = std::str::from_utf8(self.bytes)
            .map_err(|error| self.bad(format!("text is not UTF-8: {error}")))?
            .to_owned();
        self.bytes = &[];
        Ok(text)
    }
    fn finish(self) -> Result<(), CdpDecodeError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(self.bad(format!("{} byte(s) more than its layout", self.bytes.len())))
        }
    }
}

impl Item {
    /// The item's type code.
    pub fn item_type(&self) -> u16 {
        use self::item_type as t;
        match self {
            Self::PositionV3(_) => t::POSITION_V3,
            Self::DeviceActivityState(_) => t::DEVICE_ACTIVITY_STATE,
            Self::DeviceNames(_) => t::DEVICE_NAMES,
            Self::RoleReport(_) => t::ROLE_REPORT,
            Self::AnchorHealthV5(_) => t::ANCHOR_HEALTH_V5,
            Self::Synchronization(_) => t::SYNCHRONIZATION,
            Self::AccelerometerV3(_) => t::ACCELEROMETER_V3,
            Self::GyroscopeV3(_) => t::GYROSCOPE_V3,
            Self::MagnetometerV3(_) => t::MAGNETOMETER_V3,
            Self::QuaternionV3(_) => t::QUATERNION_V3,
            Self::PressureV2(_) => t::PRESSURE_V2,
            Self::TemperatureV2(_) => t::TEMPERATURE_V2,
            Self::StreamInformation(_) => t::STREAM_INFORMATION,
            Self::HostnameAnnounce(_) => t::HOSTNAME_ANNOUNCE,
            Self::InstanceAnnounce(_) => t::INSTANCE_ANNOUNCE,
            Self::GeofencerZoneInfo(_) => t::GEOFENCER_ZONE_INFO,
            Self::TagZoneInfo(_) => t::TAG_ZONE_INFO,
            Self::Unknown { item_type, .. } => *item_type,
        }
    }

    /// The bytes of the item's data (without its 4-byte header).
    pub fn data_len(&self) -> usize {
        match self {
            Self::PositionV3(_) => 30,
            Self::DeviceActivityState(_) => 20,
            Self::DeviceNames(item) => 4 + item.name.len(),
            Self::RoleReport(item) => 6 + item.name.len(),
            Self::AnchorHealthV5(item) => 29 + 5 * item.bad_paired_anchors.len(),
            Self::Synchronization(_) => 8,
            Self::AccelerometerV3(_) => 25,
            Self::GyroscopeV3(_) | Self::MagnetometerV3(_) => 26,
            Self::QuaternionV3(_) => 31,
            Self::PressureV2(_) => 20,
            Self::TemperatureV2(_) => 16,
            Self::StreamInformation(item) => 17 + item.name.len(),
            Self::HostnameAnnounce(text) | Self::InstanceAnnounce(text) => text.len(),
            Self::GeofencerZoneInfo(item) => 14 + ZONE_NAME_LEN + 8 * item.vertices.len(),
            Self::TagZoneInfo(item) => 4 + 2 * item.zones.len(),
            Self::Unknown { data, .. } => data.len(),
        }
    }

    /// Appends the item (header and data) to `out`.
    ///
    /// # Errors
    /// Data longer than [`MAX_ITEM_DATA_LEN`].
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), CdpEncodeError> {
        let size = self.data_len();
        if size > MAX_ITEM_DATA_LEN {
            return Err(CdpEncodeError::TooLarge {
                item_type: self.item_type(),
                size,
                max: MAX_ITEM_DATA_LEN,
            });
        }
        let start = out.len();
        put_u16(out, self.item_type());
        // At most MAX_ITEM_DATA_LEN, checked above.
        put_u16(out, size as u16);
        match self {
            Self::PositionV3(item) => {
                put_serial(out, item.serial_number);
                put_u64(out, item.network_time);
                put_i32(out, item.x);
                put_i32(out, item.y);
                put_i32(out, item.z);
                put_u16(out, item.quality);
                put_u8(out, item.anchor_count);
                put_u8(out, item.flags);
                put_u16(out, item.smoothing);
            }
            Self::DeviceActivityState(item) => {
                put_serial(out, item.serial_number);
                put_u8(out, item.interface_id);
                put_i32(out, item.x);
                put_i32(out, item.y);
                put_i32(out, item.z);
                put_u8(out, item.role_id);
                put_u8(out, item.connectivity);
                put_u8(out, item.synchronization);
            }
            Self::DeviceNames(item) => {
                put_serial(out, item.serial_number);
                out.extend_from_slice(item.name.as_bytes());
            }
            Self::GeofencerZoneInfo(item) => {
                put_u16(out, item.zone_id);
                let mut name = [0_u8; ZONE_NAME_LEN];
                let bytes = item.zone_name.as_bytes();
                let kept = bytes.len().min(ZONE_NAME_LEN);
                name[..kept].copy_from_slice(&bytes[..kept]);
                out.extend_from_slice(&name);
                put_i32(out, item.z_min);
                put_i32(out, item.z_max);
                put_u32(out, item.hysteresis);
                for [x, y] in &item.vertices {
                    put_i32(out, *x);
                    put_i32(out, *y);
                }
            }
            Self::TagZoneInfo(item) => {
                put_serial(out, item.serial_number);
                for zone in &item.zones {
                    put_u16(out, *zone);
                }
            }
            Self::RoleReport(item) => {
                put_u16(out, item.role_id);
                put_u16(out, item.max_quantity);
                put_u16(out, item.active_quantity);
                out.extend_from_slice(item.name.as_bytes());
            }
            Self::AnchorHealthV5(item) => {
                put_serial(out, item.serial_number);
                put_u8(out, item.interface_id);
                put_u32(out, item.ticks);
                put_u32(out, item.timed_rxs);
                put_u32(out, item.beacons_reported);
                put_u32(out, item.beacons_discarded);
                put_u32(out, item.beacons_late);
                put_u16(out, item.average_quality);
                put_u8(out, item.report_period);
                put_u8(out, item.interanchor_comms_error_code);
                for (serial, interface) in &item.bad_paired_anchors {
                    put_serial(out, *serial);
                    put_u8(out, *interface);
                }
            }
            Self::Synchronization(item) => {
                put_u16(out, item.max_tx);
                put_u16(out, item.current_tx);
                put_u16(out, item.max_rx);
                put_u16(out, item.current_rx);
            }
            Self::AccelerometerV3(item) => {
                put_serial(out, item.serial_number);
                put_u64(out, item.network_time);
                put_i32(out, item.x);
                put_i32(out, item.y);
                put_i32(out, item.z);
                put_u8(out, item.scale);
            }
            Self::GyroscopeV3(item) | Self::MagnetometerV3(item) => {
                put_serial(out, item.serial_number);
                put_u64(out, item.network_time);
                put_i32(out, item.x);
                put_i32(out, item.y);
                put_i32(out, item.z);
                put_u16(out, item.scale);
            }
            Self::QuaternionV3(item) => {
                put_serial(out, item.serial_number);
                put_u64(out, item.network_time);
                put_i32(out, item.x);
                put_i32(out, item.y);
                put_i32(out, item.z);
                put_i32(out, item.w);
                put_u8(out, item.quaternion_type);
                put_u16(out, item.quality);
            }
            Self::PressureV2(item) => {
                put_serial(out, item.serial_number);
                put_u64(out, item.network_time);
                put_i32(out, item.pressure);
                put_u32(out, item.scale);
            }
            Self::TemperatureV2(item) => {
                put_serial(out, item.serial_number);
                put_u64(out, item.network_time);
                put_i16(out, item.temperature);
                put_u16(out, item.scale);
            }
            Self::StreamInformation(item) => {
                put_ip(out, item.destination_ip);
                put_u16(out, item.destination_port);
                put_ip(out, item.interface_ip);
                put_ip(out, item.interface_netmask);
                put_u16(out, item.interface_port);
                put_u8(out, item.ttl);
                out.extend_from_slice(item.name.as_bytes());
            }
            Self::HostnameAnnounce(text) | Self::InstanceAnnounce(text) => {
                out.extend_from_slice(text.as_bytes());
            }
            Self::Unknown { data, .. } => out.extend_from_slice(data),
        }
        debug_assert_eq!(out.len() - start, ITEM_HEADER_LEN + size);
        Ok(())
    }

    /// Reads one item of type `item_type` from its data.
    ///
    /// # Errors
    /// A known type whose data does not fit its layout; never panics.
    pub fn decode(item_type: u16, data: &[u8]) -> Result<Self, CdpDecodeError> {
        use self::item_type as t;
        let mut d = Data {
            item_type,
            bytes: data,
        };
        let item = match item_type {
            t::POSITION_V3 => Self::PositionV3(PositionV3 {
                serial_number: d.serial()?,
                network_time: d.u64()?,
                x: d.i32()?,
                y: d.i32()?,
                z: d.i32()?,
                quality: d.u16()?,
                anchor_count: d.u8()?,
                flags: d.u8()?,
                smoothing: d.u16()?,
            }),
            t::DEVICE_ACTIVITY_STATE => Self::DeviceActivityState(DeviceActivityState {
                serial_number: d.serial()?,
                interface_id: d.u8()?,
                x: d.i32()?,
                y: d.i32()?,
                z: d.i32()?,
                role_id: d.u8()?,
                connectivity: d.u8()?,
                synchronization: d.u8()?,
            }),
            t::DEVICE_NAMES => Self::DeviceNames(DeviceNames {
                serial_number: d.serial()?,
                name: d.rest_text()?,
            }),
            t::GEOFENCER_ZONE_INFO => {
                let zone_id = d.u16()?;
                let name = d.take::<ZONE_NAME_LEN>()?;
                let end = name
                    .iter()
                    .position(|byte| *byte == 0)
                    .unwrap_or(ZONE_NAME_LEN);
                let zone_name = String::from_utf8_lossy(&name[..end]).into_owned();
                let (z_min, z_max, hysteresis) = (d.i32()?, d.i32()?, d.u32()?);
                if !d.bytes.len().is_multiple_of(8) {
                    return Err(d.bad("vertices are not whole [x, y] pairs".to_owned()));
                }
                let mut vertices = Vec::with_capacity(d.bytes.len() / 8);
                while !d.bytes.is_empty() {
                    vertices.push([d.i32()?, d.i32()?]);
                }
                Self::GeofencerZoneInfo(GeofencerZoneInfo {
                    zone_id,
                    zone_name,
                    z_min,
                    z_max,
                    hysteresis,
                    vertices,
                })
            }
            t::TAG_ZONE_INFO => {
                let serial_number = d.serial()?;
                if !d.bytes.len().is_multiple_of(2) {
                    return Err(d.bad("zone numbers are 2 bytes each".to_owned()));
                }
                let mut zones = Vec::with_capacity(d.bytes.len() / 2);
                while !d.bytes.is_empty() {
                    zones.push(d.u16()?);
                }
                Self::TagZoneInfo(TagZoneInfo {
                    serial_number,
                    zones,
                })
            }
            t::ROLE_REPORT => Self::RoleReport(RoleReport {
                role_id: d.u16()?,
                max_quantity: d.u16()?,
                active_quantity: d.u16()?,
                name: d.rest_text()?,
            }),
            t::ANCHOR_HEALTH_V5 => {
                let mut item = AnchorHealthV5 {
                    serial_number: d.serial()?,
                    interface_id: d.u8()?,
                    ticks: d.u32()?,
                    timed_rxs: d.u32()?,
                    beacons_reported: d.u32()?,
                    beacons_discarded: d.u32()?,
                    beacons_late: d.u32()?,
                    average_quality: d.u16()?,
                    report_period: d.u8()?,
                    interanchor_comms_error_code: d.u8()?,
                    bad_paired_anchors: Vec::new(),
                };
                if !d.bytes.len().is_multiple_of(5) {
                    return Err(d.bad(format!(
                        "{} byte(s) of bad paired anchors are not a multiple of 5",
                        d.bytes.len()
                    )));
                }
                while !d.bytes.is_empty() {
                    item.bad_paired_anchors.push((d.serial()?, d.u8()?));
                }
                Self::AnchorHealthV5(item)
            }
            t::SYNCHRONIZATION => Self::Synchronization(Synchronization {
                max_tx: d.u16()?,
                current_tx: d.u16()?,
                max_rx: d.u16()?,
                current_rx: d.u16()?,
            }),
            t::ACCELEROMETER_V3 => Self::AccelerometerV3(AccelerometerV3 {
                serial_number: d.serial()?,
                network_time: d.u64()?,
                x: d.i32()?,
                y: d.i32()?,
                z: d.i32()?,
                scale: d.u8()?,
            }),
            t::GYROSCOPE_V3 | t::MAGNETOMETER_V3 => {
                let item = Vector3 {
                    serial_number: d.serial()?,
                    network_time: d.u64()?,
                    x: d.i32()?,
                    y: d.i32()?,
                    z: d.i32()?,
                    scale: d.u16()?,
                };
                if item_type == t::GYROSCOPE_V3 {
                    Self::GyroscopeV3(item)
                } else {
                    Self::MagnetometerV3(item)
                }
            }
            t::QUATERNION_V3 => Self::QuaternionV3(QuaternionV3 {
                serial_number: d.serial()?,
                network_time: d.u64()?,
                x: d.i32()?,
                y: d.i32()?,
                z: d.i32()?,
                w: d.i32()?,
                quaternion_type: d.u8()?,
                quality: d.u16()?,
            }),
            t::PRESSURE_V2 => Self::PressureV2(PressureV2 {
                serial_number: d.serial()?,
                network_time: d.u64()?,
                pressure: d.i32()?,
                scale: d.u32()?,
            }),
            t::TEMPERATURE_V2 => Self::TemperatureV2(TemperatureV2 {
                serial_number: d.serial()?,
                network_time: d.u64()?,
                temperature: d.i16()?,
                scale: d.u16()?,
            }),
            t::STREAM_INFORMATION => Self::StreamInformation(StreamInformation {
                destination_ip: d.ip()?,
                destination_port: d.u16()?,
                interface_ip: d.ip()?,
                interface_netmask: d.ip()?,
                interface_port: d.u16()?,
                ttl: d.u8()?,
                name: d.rest_text()?,
            }),
            t::HOSTNAME_ANNOUNCE => Self::HostnameAnnounce(d.rest_text()?),
            t::INSTANCE_ANNOUNCE => Self::InstanceAnnounce(d.rest_text()?),
            _ => {
                let item = Self::Unknown {
                    item_type,
                    data: d.bytes.to_vec(),
                };
                d.bytes = &[];
                item
            }
        };
        d.finish()?;
        Ok(item)
    }
}

/// One CDP packet: the header's sequence and sender, and the items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// +1 for every datagram on the stream, wrapping.
    pub sequence: u32,
    /// The sender (0 if unknown).
    pub serial_number: SerialNumber,
    /// The data items, in order.
    pub items: Vec<Item>,
}

/// Appends a packet header to `out`.
fn put_header(out: &mut Vec<u8>, sequence: u32, serial_number: SerialNumber) {
    put_u32(out, MARK);
    put_u32(out, sequence);
    out.extend_from_slice(&PROTOCOL_STRING);
    put_serial(out, serial_number);
}

/// Writes `sequence` into the header of an encoded packet.
///
/// # Panics
/// Never for a packet of at least [`HEADER_LEN`] bytes (as [`pack`] makes);
/// shorter input is left unchanged.
pub fn set_sequence(datagram: &mut [u8], sequence: u32) {
    if let Some(field) = datagram.get_mut(4..8) {
        field.copy_from_slice(&sequence.to_le_bytes());
    }
}

/// Packs `items` into as few datagrams of at most [`MAX_DATAGRAM_LEN`] bytes
/// as their order allows (sequence 0: the sender sets it with
/// [`set_sequence`] when it sends).
///
/// # Errors
/// An item that cannot fit any datagram.
pub fn pack(serial_number: SerialNumber, items: &[Item]) -> Result<Vec<Vec<u8>>, CdpEncodeError> {
    let mut datagrams = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    for item in items {
        let size = ITEM_HEADER_LEN + item.data_len();
        if !current.is_empty() && current.len() + size > MAX_DATAGRAM_LEN {
            datagrams.push(std::mem::take(&mut current));
        }
        if current.is_empty() {
            current.reserve(MAX_DATAGRAM_LEN);
            put_header(&mut current, 0, serial_number);
        }
        item.encode_into(&mut current)?;
    }
    if !current.is_empty() {
        datagrams.push(current);
    }
    Ok(datagrams)
}

impl Packet {
    /// The packet's bytes.
    ///
    /// # Errors
    /// Items that together exceed [`MAX_DATAGRAM_LEN`].
    pub fn encode(&self) -> Result<Vec<u8>, CdpEncodeError> {
        let mut out = Vec::with_capacity(HEADER_LEN + 64);
        put_header(&mut out, self.sequence, self.serial_number);
        for item in &self.items {
            item.encode_into(&mut out)?;
        }
        if out.len() > MAX_DATAGRAM_LEN {
            return Err(CdpEncodeError::TooLarge {
                item_type: self.items.last().map_or(0, Item::item_type),
                size: out.len() - HEADER_LEN,
                max: MAX_DATAGRAM_LEN - HEADER_LEN,
            });
        }
        Ok(out)
    }

    /// Reads a packet: the header, then items back to back. Unknown types
    /// are kept as [`Item::Unknown`]; known ones must fit their layout.
    ///
    /// # Errors
    /// A short packet, a bad mark or string, an item that overruns the
    /// packet, 1 to 3 bytes left over, a malformed known item; never panics.
    pub fn decode(bytes: &[u8]) -> Result<Self, CdpDecodeError> {
        let Some((header, mut rest)) = bytes.split_first_chunk::<HEADER_LEN>() else {
            return Err(CdpDecodeError::Short(bytes.len()));
        };
        let word = |at: usize| {
            u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
        };
        let mark = word(0);
        if mark != MARK {
            return Err(CdpDecodeError::BadMark(mark));
        }
        let mut string = [0u8; 8];
        string.copy_from_slice(&header[8..16]);
        if string != PROTOCOL_STRING {
            return Err(CdpDecodeError::BadString(string));
        }
        let mut items = Vec::new();
        while let Some((item_header, after)) = rest.split_first_chunk::<ITEM_HEADER_LEN>() {
            let item_type = u16::from_le_bytes([item_header[0], item_header[1]]);
            let size = usize::from(u16::from_le_bytes([item_header[2], item_header[3]]));
            if after.len() < size {
                return Err(CdpDecodeError::Overrun {
                    item_type,
                    size,
                    available: after.len(),
                });
            }
            let (data, next) = after.split_at(size);
            items.push(Item::decode(item_type, data)?);
            rest = next;
        }
        if !rest.is_empty() {
            return Err(CdpDecodeError::LeftOver(rest.len()));
        }
        Ok(Self {
            sequence: word(4),
            serial_number: SerialNumber::from_u32(word(16)),
            items,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(serial: u32) -> Item {
        Item::PositionV3(PositionV3 {
            serial_number: SerialNumber::from_u32(serial),
            network_time: ticks_from_units(97_500),
            x: 1,
            y: -2,
            z: 3,
            quality: 9_000,
            anchor_count: 4,
            flags: 0,
            smoothing: 0,
        })
    }

    #[test]
    fn pack_fills_datagrams_up_to_the_limit_and_keeps_the_order() {
        let items: Vec<Item> = (0..100).map(position).collect();
        let datagrams = pack(SerialNumber::from_u32(1), &items).unwrap();
        // 34 bytes an item: 42 fit in 1,472 (20 + 42 × 34 = 1,448), 43 do not.
        assert_eq!(
            datagrams.iter().map(Vec::len).collect::<Vec<_>>(),
            [1_448, 1_448, 20 + 16 * 34]
        );
        let decoded: Vec<Item> = datagrams
            .iter()
            .flat_map(|bytes| Packet::decode(bytes).unwrap().items)
            .collect();
        assert_eq!(decoded, items);
    }

    #[test]
    fn an_item_too_large_for_any_datagram_is_refused() {
        let item = Item::HostnameAnnounce("h".repeat(MAX_ITEM_DATA_LEN + 1));
        assert!(matches!(
            pack(SerialNumber::from_u32(1), &[item]),
            Err(CdpEncodeError::TooLarge { .. })
        ));
        let fits = Item::HostnameAnnounce("h".repeat(MAX_ITEM_DATA_LEN));
        let datagrams = pack(SerialNumber::from_u32(1), &[fits]).unwrap();
        assert_eq!(datagrams[0].len(), MAX_DATAGRAM_LEN);
    }

    #[test]
    fn units_and_ticks_convert_exactly() {
        assert_eq!(ticks_from_units(975_000), 975_000 * 65_536);
        assert_eq!(units_from_ticks(ticks_from_units(123_456)), 123_456);
        assert_eq!(raw_i32(16.0, 16.0), i32::MAX);
        assert_eq!(raw_i32(-1e9, 16.0), -i32::MAX);
        assert_eq!(raw_i16(128.0, 128.0), i16::MAX);
    }

    #[test]
    fn set_sequence_writes_the_header_field() {
        let mut datagram = pack(SerialNumber::from_u32(9), &[position(1)])
            .unwrap()
            .remove(0);
        set_sequence(&mut datagram, 0x0102_0304);
        assert_eq!(Packet::decode(&datagram).unwrap().sequence, 0x0102_0304);
        let mut short = vec![1, 2, 3];
        set_sequence(&mut short, 7);
        assert_eq!(short, [1, 2, 3]);
    }
}
