//! Frames: the header, the payload and the checksum around each message.

use super::{
    CRC_LEN, DecodeError, EncodeError, HEADER_LEN, MAGIC, MAX_PAYLOAD, Message, PROTOCOL_VERSION,
    crc::crc32, cursor::Writer,
};

/// A message with its sequence number: what one frame carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Non-zero on requests and their replies; 0 on reports.
    pub sequence: u16,
    /// The message.
    pub message: Message,
}

impl Frame {
    /// A frame for `message` with `sequence`.
    pub fn new(sequence: u16, message: Message) -> Self {
        Self { sequence, message }
    }

    /// The frame's bytes.
    ///
    /// # Errors
    /// A text or list too long for its length field, or a payload larger
    /// than [`MAX_PAYLOAD`].
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Writer::default();
        out.bytes.extend_from_slice(&MAGIC);
        out.u8(PROTOCOL_VERSION);
        out.u8(self.message.kind());
        out.u16(self.sequence);
        out.u16(0); // the payload length, written below
        self.message.encode_payload(&mut out)?;
        let length = out.bytes.len() - HEADER_LEN;
        if length > MAX_PAYLOAD {
            return Err(EncodeError::Oversized {
                length,
                max: MAX_PAYLOAD,
            });
        }
        // MAX_PAYLOAD fits 16 bits, so the cast is exact.
        out.bytes[6..8].copy_from_slice(&(length as u16).to_le_bytes());
        let crc = crc32(&out.bytes[2..]);
        out.u32(crc);
        Ok(out.bytes)
    }

    /// Decodes the frame at the start of `bytes`; returns it and how many
    /// bytes it took. Bytes after the frame are left alone.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`] when more bytes are needed; any other
    /// variant when the bytes are not a valid frame.
    pub fn decode(bytes: &[u8]) -> Result<(Self, usize), DecodeError> {
        decode_at_start(bytes).map_err(|failure| failure.error)
    }

    /// Decodes `bytes` as exactly one frame.
    ///
    /// # Errors
    /// As [`Frame::decode`], and [`DecodeError::TrailingBytes`] when bytes
    /// follow the frame.
    pub fn decode_exact(bytes: &[u8]) -> Result<Self, DecodeError> {
        let (frame, used) = Self::decode(bytes)?;
        if used == bytes.len() {
            Ok(frame)
        } else {
            Err(DecodeError::TrailingBytes {
                count: bytes.len() - used,
            })
        }
    }
}

/// A decoding failure and how many bytes a stream decoder should drop.
struct Failure {
    error: DecodeError,
    /// 1 when the header itself is doubtful (resynchronise on the next
    /// byte); the whole frame when its checksum held but its content did not.
    skip: usize,
}

fn decode_at_start(bytes: &[u8]) -> Result<(Frame, usize), Failure> {
    let resync = |error| Failure { error, skip: 1 };
    if bytes.len() < HEADER_LEN {
        // Check what is there already, so garbage is dropped early.
        if bytes.len() >= 2 && bytes[..2] != MAGIC {
            return Err(resync(DecodeError::BadMagic {
                found: [bytes[0], bytes[1]],
            }));
        }
        return Err(resync(DecodeError::Truncated {
            needed: HEADER_LEN,
            available: bytes.len(),
        }));
    }
    if bytes[..2] != MAGIC {
        return Err(resync(DecodeError::BadMagic {
            found: [bytes[0], bytes[1]],
        }));
    }
    let version = bytes[2];
    if version != PROTOCOL_VERSION {
        return Err(resync(DecodeError::UnsupportedVersion {
            found: version,
            supported: PROTOCOL_VERSION,
        }));
    }
    let kind = bytes[3];
    let sequence = u16::from_le_bytes([bytes[4], bytes[5]]);
    let length = usize::from(u16::from_le_bytes([bytes[6], bytes[7]]));
    if length > MAX_PAYLOAD {
        return Err(resync(DecodeError::Oversized {
            length,
            max: MAX_PAYLOAD,
        }));
    }
    let total = HEADER_LEN + length + CRC_LEN;
    if bytes.len() < total {
        return Err(resync(DecodeError::Truncated {
            needed: total,
            available: bytes.len(),
        }));
    }
    let body_end = HEADER_LEN + length;
    let mut crc_bytes = [0u8; CRC_LEN];
    crc_bytes.copy_from_slice(&bytes[body_end..total]);
    let expected = u32::from_le_bytes(crc_bytes);
    let computed = crc32(&bytes[2..body_end]);
    if expected != computed {
        return Err(resync(DecodeError::BadChecksum { expected, computed }));
    }
    let message = Message::decode_payload(kind, &bytes[HEADER_LEN..body_end])
        .map_err(|error| Failure { error, skip: total })?;
    Ok((Frame { sequence, message }, total))
}

/// Cuts frames out of a byte stream (a serial port), resynchronising after
/// noise: bytes before a frame's magic are dropped and counted, a damaged
/// frame is reported once and skipped.
#[derive(Debug, Default)]
pub struct FrameDecoder {
    buffer: Vec<u8>,
    dropped_bytes: u64,
}

impl FrameDecoder {
    /// An empty decoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends bytes read from the stream.
    pub fn extend(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// How many bytes were dropped as noise so far.
    pub fn dropped_bytes(&self) -> u64 {
        self.dropped_bytes
    }

    /// The next frame, an error for a damaged one, or `None` when more
    /// bytes are needed.
    pub fn next_frame(&mut self) -> Option<Result<Frame, DecodeError>> {
        let start = self
            .buffer
            .windows(2)
            .position(|pair| pair == MAGIC)
            .unwrap_or_else(|| {
                // Keep a last byte that may be the first half of the magic.
                let keep = usize::from(self.buffer.last() == Some(&MAGIC[0]));
                self.buffer.len() - keep
            });
        if start > 0 {
            self.drop_front(start);
        }
        if self.buffer.len() < 2 {
            return None;
        }
        match decode_at_start(&self.buffer) {
            Ok((frame, used)) => {
                self.buffer.drain(..used);
                Some(Ok(frame))
            }
            Err(Failure {
                error: DecodeError::Truncated { .. },
                ..
            }) => None,
            Err(Failure { error, skip }) => {
                self.drop_front(skip);
                Some(Err(error))
            }
        }
    }

    fn drop_front(&mut self, count: usize) {
        let count = count.min(self.buffer.len());
        self.buffer.drain(..count);
        self.dropped_bytes += count as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_decoder_skips_noise_and_damaged_frames() {
        let good = Frame::new(7, Message::Ping { token: 42 }).encode().unwrap();
        let mut damaged = good.clone();
        *damaged.last_mut().unwrap() ^= 0xFF;
        let mut stream = vec![0x00, 0xA5, 0x13];
        stream.extend_from_slice(&damaged);
        stream.extend_from_slice(&good);
        let mut decoder = FrameDecoder::new();
        // Byte by byte, as a slow serial port delivers them.
        let mut results = Vec::new();
        for byte in stream {
            decoder.extend(&[byte]);
            while let Some(result) = decoder.next_frame() {
                results.push(result);
            }
        }
        assert!(matches!(results[0], Err(DecodeError::BadChecksum { .. })));
        assert_eq!(results[1], Ok(Frame::new(7, Message::Ping { token: 42 })));
        assert_eq!(results.len(), 2);
    }
}
