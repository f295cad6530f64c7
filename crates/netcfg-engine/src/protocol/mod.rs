//! The wire protocol between the manager and the network interface device.
//!
//! A pure codec: bytes in, [`Frame`]s out, and back; no I/O. See
//! `docs/engine-protocol.md` for the byte layout. Every frame is
//!
//! ```text
//! A5 5A | version (1) | kind | sequence (u16 LE) | length (u16 LE) | payload | CRC-32 (u32 LE)
//! ```
//!
//! with the CRC-32 (IEEE) over version to the end of the payload.
//!
//! ```
//! use netcfg_engine::protocol::{Frame, Message};
//! let bytes = Frame::new(1, Message::Ping { token: 9 }).encode().unwrap();
//! assert_eq!(Frame::decode_exact(&bytes).unwrap().message, Message::Ping { token: 9 });
//! ```

mod crc;
pub(crate) mod cursor;
mod frame;
mod message;

pub use crc::crc32;
pub use frame::{Frame, FrameDecoder};
pub use message::{
    AnchorCounters, BeaconReport, Message, NackReason, PeerRange, PositionReport, SensorKind,
    SensorReport, WireDevice,
};

/// The protocol version this codec speaks (the third byte of every frame).
pub const PROTOCOL_VERSION: u8 = 1;
/// The two bytes that open every frame.
pub const MAGIC: [u8; 2] = [0xA5, 0x5A];
/// Bytes before the payload: magic, version, kind, sequence, length.
pub const HEADER_LEN: usize = 8;
/// Bytes of the checksum after the payload.
pub const CRC_LEN: usize = 4;
/// The largest payload a frame may carry.
pub const MAX_PAYLOAD: usize = 4096;

/// Why bytes are not a valid frame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// More bytes are needed to finish the frame.
    #[error("truncated frame: {needed} bytes needed, {available} available")]
    Truncated {
        /// The bytes needed so far.
        needed: usize,
        /// The bytes there were.
        available: usize,
    },
    /// The frame does not open with `A5 5A`.
    #[error("bad magic {:02X} {:02X}: a frame opens with A5 5A", found[0], found[1])]
    BadMagic {
        /// The two bytes found.
        found: [u8; 2],
    },
    /// The frame speaks another protocol version.
    #[error("unsupported protocol version {found}; this engine speaks version {supported}")]
    UnsupportedVersion {
        /// The version in the frame.
        found: u8,
        /// The version this codec speaks.
        supported: u8,
    },
    /// The header announces a payload larger than allowed.
    #[error("oversized frame: a payload of {length} bytes exceeds the limit of {max}")]
    Oversized {
        /// The announced payload length.
        length: usize,
        /// The limit.
        max: usize,
    },
    /// The checksum does not match: the frame was damaged.
    #[error("bad checksum: the frame says {expected:#010x}, its bytes give {computed:#010x}")]
    BadChecksum {
        /// The checksum in the frame.
        expected: u32,
        /// The checksum of its bytes.
        computed: u32,
    },
    /// The kind byte names no message.
    #[error("unknown message kind {kind:#04x}")]
    UnknownKind {
        /// The kind byte.
        kind: u8,
    },
    /// The payload does not hold what its kind requires.
    #[error("malformed payload at `{field}`: {reason}")]
    Malformed {
        /// The field being read.
        field: &'static str,
        /// What was wrong.
        reason: String,
    },
    /// Bytes follow a complete frame where exactly one was expected.
    #[error("{count} byte(s) follow the frame")]
    TrailingBytes {
        /// How many.
        count: usize,
    },
}

impl DecodeError {
    pub(crate) fn malformed(field: &'static str, reason: impl Into<String>) -> Self {
        Self::Malformed {
            field,
            reason: reason.into(),
        }
    }
}

/// Why a message cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// A text or a list is too long for its length field.
    #[error("`{field}` is too long for the wire: {length} (at most {max})")]
    TooLong {
        /// The field.
        field: &'static str,
        /// Its length.
        length: usize,
        /// The most its length field can say.
        max: usize,
    },
    /// The payload is larger than [`MAX_PAYLOAD`].
    #[error("the payload of {length} bytes exceeds the frame limit of {max}")]
    Oversized {
        /// The payload's length.
        length: usize,
        /// The limit.
        max: usize,
    },
}
