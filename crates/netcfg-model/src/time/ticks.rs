//! Ticks: the radios and the CDP streams count network time in 1/65,536
//! of a unit (a unit is 1/975,000 s), which is the radios' own clock
//! period, 1/(499.2 MHz × 128) (about 15.65 ps); the conversions between
//! ticks, units, seconds and the distance light travels live here, once.

use std::time::Duration;

use super::NetworkTime;

/// Ticks in one network time unit.
pub const TICKS_PER_UNIT: u64 = 65_536;

/// Millimetres light travels in one tick: what a time of flight or a
/// difference of arrival times measured in ticks is worth in distance.
pub const MM_PER_TICK: f64 = 299_792_458_000.0 / (499.2e6 * 128.0);

/// Network time units as ticks (wraps past `u64`, as the radios' counters do).
pub const fn ticks_from_units(units: u64) -> u64 {
    units.wrapping_mul(TICKS_PER_UNIT)
}

/// Ticks as whole network time units (the fraction dropped).
pub const fn units_from_ticks(ticks: u64) -> u64 {
    ticks / TICKS_PER_UNIT
}

/// A duration as whole network time units (the fraction dropped).
pub fn units_from_duration(elapsed: Duration) -> u64 {
    let units = elapsed.as_nanos() * u128::from(NetworkTime::UNITS_PER_SECOND) / 1_000_000_000;
    u64::try_from(units).unwrap_or(u64::MAX)
}

/// Network time units as seconds.
pub fn seconds_from_units(units: u64) -> f64 {
    units as f64 / f64::from(NetworkTime::UNITS_PER_SECOND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_ticks_and_seconds_convert_exactly() {
        assert_eq!(ticks_from_units(975_000), 975_000 * 65_536);
        assert_eq!(
            units_from_ticks(ticks_from_units(123_456) + 65_535),
            123_456
        );
        assert_eq!(units_from_duration(Duration::from_millis(100)), 97_500);
        assert_eq!(seconds_from_units(1_950_000), 2.0);
        // A tick is the radios' clock period: 975,000 × 65,536 = 499.2 MHz × 128.
        let ticks_per_second = f64::from(NetworkTime::UNITS_PER_SECOND) * TICKS_PER_UNIT as f64;
        assert!((MM_PER_TICK - 299_792_458_000.0 / ticks_per_second).abs() < 1e-12);
    }
}
