//! The UDP datagrams of the data streams (format version 1): a pure codec.
//!
//! ```text
//! "NC" | version (1) | kind | sequence (u32 LE) | timestamp_ms (u64 LE) | count (u16 LE) | records
//! ```
//!
//! Kinds: 1 announcement (Config stream), 2 device health (Anchor stream),
//! 3 positions and 4 sensor data (User stream). All integers are little
//! endian. See `docs/engine-protocol.md` for each record's layout.
//!
//! ```
//! use netcfg_engine::datagram::{Datagram, DatagramBody};
//! let datagram = Datagram { sequence: 1, timestamp_ms: 2, body: DatagramBody::Positions(vec![]) };
//! assert_eq!(Datagram::decode(&datagram.encode().unwrap()).unwrap(), datagram);
//! ```

use netcfg_model::{Connectivity, NetworkMode, SerialNumber, Synchronisation};

use crate::protocol::cursor::{Reader, Writer};
use crate::protocol::{DecodeError, EncodeError, SensorKind};

/// The bytes that open every datagram.
pub const DATAGRAM_MAGIC: [u8; 2] = *b"NC";
/// The datagram format version.
pub const DATAGRAM_VERSION: u8 = 1;
/// Bytes before the first record.
pub const DATAGRAM_HEADER_LEN: usize = 18;
/// The most records of one kind sent in one datagram, which keeps every
/// datagram under 1,472 bytes (one Ethernet frame, no fragmentation).
pub const MAX_RECORDS: usize = 48;

/// One datagram of a data stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Datagram {
    /// Counts datagrams on this stream since the start, from 0; a gap means loss.
    pub sequence: u32,
    /// When it was sent, in milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
    /// What it carries.
    pub body: DatagramBody,
}

/// The content of a datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatagramBody {
    /// Kind 1: the running instance (Config stream).
    Announcement(Announcement),
    /// Kind 2: device health (Anchor stream).
    Health(Vec<HealthRecord>),
    /// Kind 3: tag positions (User stream).
    Positions(Vec<PositionRecord>),
    /// Kind 4: sensor readings (User stream).
    Sensors(Vec<SensorRecord>),
}

/// What the Config stream announces about a running configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announcement {
    /// The configuration's name.
    pub configuration: String,
    /// The instance it runs on (`sim`, a serial port path).
    pub instance: String,
    /// Its operating mode.
    pub network_mode: NetworkMode,
    /// The engine's version.
    pub engine_version: String,
    /// Milliseconds since it started.
    pub uptime_ms: u64,
    /// Devices in the pushed configuration.
    pub configured_devices: u16,
    /// Devices heard since the start.
    pub heard_devices: u16,
    /// Whether the link to the network interface device is up.
    pub link_up: bool,
}

/// One device's health on the Anchor stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HealthRecord {
    /// The device.
    pub serial_number: SerialNumber,
    /// How it is connected.
    pub connectivity: Connectivity,
    /// How it takes part in network time.
    pub synchronisation: Synchronisation,
    /// Battery percent, 255 without a battery.
    pub battery_percent: u8,
    /// Degrees Celsius.
    pub temperature_celsius: i16,
    /// Processor use, percent.
    pub processor_use_percent: u8,
    /// Milliseconds since it was last heard.
    pub last_heard_ms_ago: u32,
}

/// One tag position on the User stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PositionRecord {
    /// The tag.
    pub serial_number: SerialNumber,
    /// Network time of the location, in units of 1/975,000 s.
    pub network_time: u64,
    /// East, mm.
    pub x: i32,
    /// North, mm.
    pub y: i32,
    /// Height, mm.
    pub z: i32,
    /// Quality, 0 to 10,000.
    pub quality: u16,
    /// Anchors used.
    pub anchors_used: u8,
}

/// One sensor reading on the User stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SensorRecord {
    /// The tag.
    pub serial_number: SerialNumber,
    /// Network time of the reading.
    pub network_time: u64,
    /// What was measured.
    pub kind: SensorKind,
    /// The values (see [`SensorKind`]).
    pub values: [i32; 4],
}

impl DatagramBody {
    const fn kind(&self) -> u8 {
        match self {
            Self::Announcement(_) => 1,
            Self::Health(_) => 2,
            Self::Positions(_) => 3,
            Self::Sensors(_) => 4,
        }
    }

    fn count(&self) -> usize {
        match self {
            Self::Announcement(_) => 1,
            Self::Health(records) => records.len(),
            Self::Positions(records) => records.len(),
            Self::Sensors(records) => records.len(),
        }
    }
}

fn mode_code(mode: NetworkMode) -> u8 {
    match mode {
        NetworkMode::MultiTime => 1,
        NetworkMode::MultiRange => 2,
    }
}

fn connectivity_code(value: Connectivity) -> u8 {
    match value {
        Connectivity::None => 0,
        Connectivity::Uwb => 1,
        Connectivity::Ethernet => 2,
        Connectivity::UwbAndEthernet => 3,
    }
}

fn sync_code(value: Synchronisation) -> u8 {
    match value {
        Synchronisation::None => 0,
        Synchronisation::Tx => 1,
        Synchronisation::Rx => 2,
        Synchronisation::TxAndRx => 3,
    }
}

fn sensor_code(kind: SensorKind) -> u8 {
    match kind {
        SensorKind::Accelerometer => 1,
        SensorKind::Gyroscope => 2,
        SensorKind::Quaternion => 3,
        SensorKind::Magnetometer => 4,
        SensorKind::Pressure => 5,
        SensorKind::Temperature => 6,
    }
}

fn code<T: Copy>(
    all: &[T],
    to_code: fn(T) -> u8,
    value: u8,
    field: &'static str,
) -> Result<T, DecodeError> {
    all.iter()
        .copied()
        .find(|item| to_code(*item) == value)
        .ok_or_else(|| DecodeError::Malformed {
            field,
            reason: format!("{value} is not a known code"),
        })
}

const CONNECTIVITIES: [Connectivity; 4] = [
    Connectivity::None,
    Connectivity::Uwb,
    Connectivity::Ethernet,
    Connectivity::UwbAndEthernet,
];
const SYNCHRONISATIONS: [Synchronisation; 4] = [
    Synchronisation::None,
    Synchronisation::Tx,
    Synchronisation::Rx,
    Synchronisation::TxAndRx,
];

impl Datagram {
    /// The datagram's bytes.
    ///
    /// # Errors
    /// More than [`MAX_RECORDS`] records, or a text longer than its length field.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let count = self.body.count();
        if count > MAX_RECORDS {
            return Err(EncodeError::TooLong {
                field: "records",
                length: count,
                max: MAX_RECORDS,
            });
        }
        let mut out = Writer::default();
        out.bytes.extend_from_slice(&DATAGRAM_MAGIC);
        out.u8(DATAGRAM_VERSION);
        out.u8(self.body.kind());
        out.u32(self.sequence);
        out.u64(self.timestamp_ms);
        // At most MAX_RECORDS, checked above.
        out.u16(count as u16);
        match &self.body {
            DatagramBody::Announcement(announcement) => {
                out.string("configuration", &announcement.configuration)?;
                out.string("instance", &announcement.instance)?;
                out.u8(mode_code(announcement.network_mode));
                out.string("engine_version", &announcement.engine_version)?;
                out.u64(announcement.uptime_ms);
                out.u16(announcement.configured_devices);
                out.u16(announcement.heard_devices);
                out.bool(announcement.link_up);
            }
            DatagramBody::Health(records) => {
                for record in records {
                    out.u32(record.serial_number.as_u32());
                    out.u8(connectivity_code(record.connectivity));
                    out.u8(sync_code(record.synchronisation));
                    out.u8(record.battery_percent);
                    out.i16(record.temperature_celsius);
                    out.u8(record.processor_use_percent);
                    out.u32(record.last_heard_ms_ago);
                }
            }
            DatagramBody::Positions(records) => {
                for record in records {
                    out.u32(record.serial_number.as_u32());
                    out.u64(record.network_time);
                    out.i32(record.x);
                    out.i32(record.y);
                    out.i32(record.z);
                    out.u16(record.quality);
                    out.u8(record.anchors_used);
                }
            }
            DatagramBody::Sensors(records) => {
                for record in records {
                    out.u32(record.serial_number.as_u32());
                    out.u64(record.network_time);
                    out.u8(sensor_code(record.kind));
                    record.values.iter().for_each(|value| out.i32(*value));
                }
            }
        }
        Ok(out.bytes)
    }

    /// Reads a datagram.
    ///
    /// # Errors
    /// A short, foreign, newer or malformed datagram; never panics.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        if bytes.len() < DATAGRAM_HEADER_LEN {
            return Err(DecodeError::Truncated {
                needed: DATAGRAM_HEADER_LEN,
                available: bytes.len(),
            });
        }
        if bytes[..2] != DATAGRAM_MAGIC {
            return Err(DecodeError::Malformed {
                field: "magic",
                reason: format!("{:02X} {:02X} is not \"NC\"", bytes[0], bytes[1]),
            });
        }
        if bytes[2] != DATAGRAM_VERSION {
            return Err(DecodeError::UnsupportedVersion {
                found: bytes[2],
                supported: DATAGRAM_VERSION,
            });
        }
        let kind = bytes[3];
        let mut input = Reader::new(&bytes[4..]);
        let sequence = input.u32("sequence")?;
        let timestamp_ms = input.u64("timestamp_ms")?;
        let count = usize::from(input.u16("count")?);
        let records = |input: &mut Reader<'_>, size: usize| -> Result<(), DecodeError> {
            if count > MAX_RECORDS || input.remaining() != count * size {
                return Err(DecodeError::Malformed {
                    field: "records",
                    reason: format!(
                        "{count} record(s) of {size} bytes do not match the {} byte(s) given",
                        input.remaining()
                    ),
                });
            }
            Ok(())
        };
        let serial =
            |input: &mut Reader<'_>| input.u32("serial_number").map(SerialNumber::from_u32);
        let body = match kind {
            1 => {
                if count != 1 {
                    return Err(DecodeError::Malformed {
                        field: "count",
                        reason: "an announcement has exactly one record".to_owned(),
                    });
                }
                DatagramBody::Announcement(Announcement {
                    configuration: input.string("configuration")?,
                    instance: input.string("instance")?,
                    network_mode: match input.u8("network_mode")? {
                        1 => NetworkMode::MultiTime,
                        2 => NetworkMode::MultiRange,
                        other => {
                            return Err(DecodeError::Malformed {
                                field: "network_mode",
                                reason: format!("{other} is not a known code"),
                            });
                        }
                    },
                    engine_version: input.string("engine_version")?,
                    uptime_ms: input.u64("uptime_ms")?,
                    configured_devices: input.u16("configured_devices")?,
                    heard_devices: input.u16("heard_devices")?,
                    link_up: input.bool("link_up")?,
                })
            }
            2 => {
                records(&mut input, 14)?;
                let mut list = Vec::with_capacity(count);
                for _ in 0..count {
                    list.push(HealthRecord {
                        serial_number: serial(&mut input)?,
                        connectivity: code(
                            &CONNECTIVITIES,
                            connectivity_code,
                            input.u8("connectivity")?,
                            "connectivity",
                        )?,
                        synchronisation: code(
                            &SYNCHRONISATIONS,
                            sync_code,
                            input.u8("synchronisation")?,
                            "synchronisation",
                        )?,
                        battery_percent: input.u8("battery_percent")?,
                        temperature_celsius: input.i16("temperature_celsius")?,
                        processor_use_percent: input.u8("processor_use_percent")?,
                        last_heard_ms_ago: input.u32("last_heard_ms_ago")?,
                    });
                }
                DatagramBody::Health(list)
            }
            3 => {
                records(&mut input, 27)?;
                let mut list = Vec::with_capacity(count);
                for _ in 0..count {
                    list.push(PositionRecord {
                        serial_number: serial(&mut input)?,
                        network_time: input.u64("network_time")?,
                        x: input.i32("x")?,
                        y: input.i32("y")?,
                        z: input.i32("z")?,
                        quality: input.u16("quality")?,
                        anchors_used: input.u8("anchors_used")?,
                    });
                }
                DatagramBody::Positions(list)
            }
            4 => {
                records(&mut input, 29)?;
                let mut list = Vec::with_capacity(count);
                for _ in 0..count {
                    let serial_number = serial(&mut input)?;
                    let network_time = input.u64("network_time")?;
                    let kind = code(
                        &SensorKind::ALL,
                        sensor_code,
                        input.u8("sensor_kind")?,
                        "sensor_kind",
                    )?;
                    let mut values = [0; 4];
                    for value in &mut values {
                        *value = input.i32("values")?;
                    }
                    list.push(SensorRecord {
                        serial_number,
                        network_time,
                        kind,
                        values,
                    });
                }
                DatagramBody::Sensors(list)
            }
            other => return Err(DecodeError::UnknownKind { kind: other }),
        };
        input.finish()?;
        Ok(Self {
            sequence,
            timestamp_ms,
            body,
        })
    }
}
