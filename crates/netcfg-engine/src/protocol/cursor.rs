//! Little-endian readers and writers for message payloads.
//!
//! The reader never panics: every read checks the remaining length and
//! reports the field it was reading.

use super::DecodeError;

/// Reads fields from a payload, front to back.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    pub(crate) fn take(
        &mut self,
        count: usize,
        field: &'static str,
    ) -> Result<&'a [u8], DecodeError> {
        if self.bytes.len() < count {
            return Err(DecodeError::Malformed {
                field,
                reason: format!(
                    "the payload ends {} byte(s) early",
                    count - self.bytes.len()
                ),
            });
        }
        let (head, tail) = self.bytes.split_at(count);
        self.bytes = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], DecodeError> {
        let bytes = self.take(N, field)?;
        let mut array = [0u8; N];
        array.copy_from_slice(bytes);
        Ok(array)
    }

    pub(crate) fn u8(&mut self, field: &'static str) -> Result<u8, DecodeError> {
        Ok(self.array::<1>(field)?[0])
    }

    pub(crate) fn u16(&mut self, field: &'static str) -> Result<u16, DecodeError> {
        self.array(field).map(u16::from_le_bytes)
    }

    pub(crate) fn i16(&mut self, field: &'static str) -> Result<i16, DecodeError> {
        self.array(field).map(i16::from_le_bytes)
    }

    pub(crate) fn u32(&mut self, field: &'static str) -> Result<u32, DecodeError> {
        self.array(field).map(u32::from_le_bytes)
    }

    pub(crate) fn i32(&mut self, field: &'static str) -> Result<i32, DecodeError> {
        self.array(field).map(i32::from_le_bytes)
    }

    pub(crate) fn u64(&mut self, field: &'static str) -> Result<u64, DecodeError> {
        self.array(field).map(u64::from_le_bytes)
    }

    pub(crate) fn i64(&mut self, field: &'static str) -> Result<i64, DecodeError> {
        self.array(field).map(i64::from_le_bytes)
    }

    pub(crate) fn bool(&mut self, field: &'static str) -> Result<bool, DecodeError> {
        match self.u8(field)? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(DecodeError::malformed(
                field,
                format!("{other} is not a boolean (0 or 1)"),
            )),
        }
    }

    /// A string: a `u8` length, then UTF-8 bytes.
    pub(crate) fn string(&mut self, field: &'static str) -> Result<String, DecodeError> {
        let length = usize::from(self.u8(field)?);
        let bytes = self.take(length, field)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| DecodeError::malformed(field, "the text is not UTF-8"))
    }

    /// A list: a `u16` count, then each item read by `item`.
    pub(crate) fn list<T>(
        &mut self,
        field: &'static str,
        min_item_size: usize,
        mut item: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let count = usize::from(self.u16(field)?);
        // A count the remaining bytes cannot hold is rejected before any
        // allocation, so a forged count cannot make the decoder allocate.
        if count.saturating_mul(min_item_size.max(1)) > self.bytes.len() {
            return Err(DecodeError::malformed(
                field,
                format!(
                    "{count} item(s) cannot fit in the {} byte(s) left",
                    self.bytes.len()
                ),
            ));
        }
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            items.push(item(self)?);
        }
        Ok(items)
    }

    /// Fails unless every byte was read.
    pub(crate) fn finish(self) -> Result<(), DecodeError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::malformed(
                "payload",
                format!(
                    "{} byte(s) left over after the last field",
                    self.bytes.len()
                ),
            ))
        }
    }
}

/// Appends fields to a payload.
#[derive(Default)]
pub(crate) struct Writer {
    pub(crate) bytes: Vec<u8>,
}

impl Writer {
    pub(crate) fn u8(&mut self, value: u8) {
        self.bytes.push(value);
    }
    pub(crate) fn u16(&mut self, value: u16) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }
    pub(crate) fn i16(&mut self, value: i16) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }
    pub(crate) fn u32(&mut self, value: u32) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }
    pub(crate) fn i32(&mut self, value: i32) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, value: u64) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }
    pub(crate) fn i64(&mut self, value: i64) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }
    pub(crate) fn bool(&mut self, value: bool) {
        self.u8(u8::from(value));
    }

    pub(crate) fn string(
        &mut self,
        field: &'static str,
        text: &str,
    ) -> Result<(), super::EncodeError> {
        let length = u8::try_from(text.len()).map_err(|_| super::EncodeError::TooLong {
            field,
            length: text.len(),
            max: usize::from(u8::MAX),
        })?;
        self.u8(length);
        self.bytes.extend_from_slice(text.as_bytes());
        Ok(())
    }

    pub(crate) fn list<T>(
        &mut self,
        field: &'static str,
        items: &[T],
        mut item: impl FnMut(&mut Self, &T) -> Result<(), super::EncodeError>,
    ) -> Result<(), super::EncodeError> {
        let count = u16::try_from(items.len()).map_err(|_| super::EncodeError::TooLong {
            field,
            length: items.len(),
            max: usize::from(u16::MAX),
        })?;
        self.u16(count);
        items.iter().try_for_each(|value| item(self, value))
    }
}
