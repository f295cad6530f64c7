//! CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320): the frame checksum,
//! computed by `crc32fast` (table-driven, with SIMD where the CPU has it).
//! Check value: `crc32(b"123456789") == 0xCBF4_3926`.

/// The CRC-32 of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_standard_check_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"a"), 0xE8B7_BE43);
    }
}
