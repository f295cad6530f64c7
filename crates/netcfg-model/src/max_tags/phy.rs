//! Frame airtime on the IEEE 802.15.4 HRP UWB physical layer.

use super::constants::{
    BIT_CHIPS_6M8, BIT_CHIPS_110K, BIT_CHIPS_850K, CHIPS_PER_MICROSECOND, PHR_BITS,
    PREAMBLE_SYMBOL_CHIPS_PRF16, PREAMBLE_SYMBOL_CHIPS_PRF64, REED_SOLOMON_BLOCK_BITS,
    REED_SOLOMON_PARITY_BITS, SFD_SYMBOLS, SFD_SYMBOLS_110K,
};
use crate::rf::{BitRate, Prf, RfSetting};

/// The durations of one RF setting's frame parts, in chips.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Phy {
    /// Preamble plus SFD plus PHY header: the part every frame pays.
    header_chips: u64,
    /// One data bit.
    bit_chips: u64,
}

impl Phy {
    /// The frame parts of `setting`.
    pub(crate) fn of(setting: &RfSetting) -> Self {
        let symbol = u64::from(match setting.prf {
            Prf::Mhz16 => PREAMBLE_SYMBOL_CHIPS_PRF16,
            Prf::Mhz64 => PREAMBLE_SYMBOL_CHIPS_PRF64,
        });
        let (sfd_symbols, phr_bit, data_bit) = match setting.bit_rate {
            BitRate::Kbps110 => (SFD_SYMBOLS_110K, BIT_CHIPS_110K, BIT_CHIPS_110K),
            BitRate::Kbps850 => (SFD_SYMBOLS, BIT_CHIPS_850K, BIT_CHIPS_850K),
            BitRate::Kbps6800 => (SFD_SYMBOLS, BIT_CHIPS_850K, BIT_CHIPS_6M8),
        };
        let preamble = u64::from(setting.preamble_length.symbols()) * symbol;
        let sfd = u64::from(sfd_symbols) * symbol;
        let phr = u64::from(PHR_BITS) * u64::from(phr_bit);
        Self {
            header_chips: preamble + sfd + phr,
            bit_chips: u64::from(data_bit),
        }
    }

    /// A whole frame of `bytes` bytes: header, data, and 48 parity bits for
    /// each started block of 330 data bits, in microseconds.
    pub(crate) fn frame_us(self, bytes: u32) -> f64 {
        let data_bits = u64::from(bytes) * 8;
        let blocks = data_bits.div_ceil(u64::from(REED_SOLOMON_BLOCK_BITS));
        let coded_bits = data_bits + blocks * u64::from(REED_SOLOMON_PARITY_BITS);
        chips_to_us(self.header_chips + coded_bits * self.bit_chips)
    }

    /// The airtime of `bytes` (a fractional average) of data riding in frames
    /// that are sent anyway, with parity charged at its rate (48 bits per 330),
    /// in microseconds.
    pub(crate) fn data_us(self, bytes: f64) -> f64 {
        let coded_bits =
            bytes * 8.0 * f64::from(REED_SOLOMON_BLOCK_BITS + REED_SOLOMON_PARITY_BITS)
                / f64::from(REED_SOLOMON_BLOCK_BITS);
        // The chip count of a bit is small and exact in f64.
        coded_bits * self.bit_chips as f64 / CHIPS_PER_MICROSECOND
    }
}

/// Chips to microseconds. Frame chip counts stay far below 2^53, so the cast
/// is exact.
fn chips_to_us(chips: u64) -> f64 {
    chips as f64 / CHIPS_PER_MICROSECOND
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rf::PreambleLength;

    #[test]
    fn the_usual_setting_matches_the_domain_figures() {
        let phy = Phy::of(&RfSetting::default_setting());
        // 72 symbols of 1017.63 ns, 21 bits of 1025.64 ns.
        assert_eq!(phy.header_chips, 72 * 508 + 21 * 512);
        // A 12-byte blink: 96 bits + 48 parity, 128.2 ns each.
        assert!((phy.frame_us(12) - 113.269_230_769).abs() < 1e-6);
    }

    #[test]
    fn parity_is_added_per_started_block() {
        let phy = Phy::of(&RfSetting::default_setting());
        let step = 48.0 * 64.0 / CHIPS_PER_MICROSECOND;
        // 41 bytes = 328 bits: one block; 42 bytes = 336 bits: two.
        let jump = phy.frame_us(42) - phy.frame_us(41);
        assert!((jump - (8.0 * 64.0 / CHIPS_PER_MICROSECOND + step)).abs() < 1e-9);
    }

    #[test]
    fn the_slowest_setting_is_the_longest() {
        let mut slow = RfSetting::default_setting();
        slow.bit_rate = BitRate::Kbps110;
        slow.prf = Prf::Mhz16;
        slow.preamble_length = PreambleLength::Symbols4096;
        let phy = Phy::of(&slow);
        // (4096 + 64) symbols of 496 chips, 21 bits of 4096 chips.
        assert_eq!(phy.header_chips, 4160 * 496 + 21 * 4096);
        assert!(phy.frame_us(12) > 4_000.0);
    }
}
