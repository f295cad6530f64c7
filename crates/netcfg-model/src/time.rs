//! Time: network time, the unit every period of the API is counted in;
//! its ticks and their conversions ([`ticks`]); and the clocks the layers
//! above read, with the one way to write a time stamp in UTC ([`clock`]).

pub mod clock;
pub mod ticks;

use crate::schema::fixed_schema;
use serde::{Deserialize, Serialize};

use std::fmt;

/// A duration in network time units of 1/975,000 s (about 1.0256 µs).
///
/// Every period of the API (`network_period`, `seeder_period`, `tag_period`,
/// `maximum_tag_period`, sensor and user-data periods) is an integer count of
/// these units: 97,500 units are 100 ms (10 Hz), 975 units are 1 ms.
///
/// ```
/// use netcfg_model::NetworkTime;
/// let period = NetworkTime::from_units(97_500);
/// assert_eq!(period.as_millis(), 100.0);
/// assert_eq!(period.hertz(), Some(10.0));
/// assert_eq!(NetworkTime::from_millis(50), NetworkTime::from_units(48_750));
/// ```
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct NetworkTime(u32);

impl NetworkTime {
    /// Network time units in one second.
    pub const UNITS_PER_SECOND: u32 = 975_000;
    /// Network time units in one millisecond.
    pub const UNITS_PER_MILLISECOND: u32 = 975;
    /// Zero: a period of zero means "off" where the API allows it.
    pub const ZERO: Self = Self(0);
    /// One millisecond, the shortest sensor or user-data period.
    pub const ONE_MILLISECOND: Self = Self(Self::UNITS_PER_MILLISECOND);

    /// A duration of `units` network time units.
    pub const fn from_units(units: u32) -> Self {
        Self(units)
    }

    /// A whole number of milliseconds, saturating at the largest duration.
    pub const fn from_millis(millis: u32) -> Self {
        Self(millis.saturating_mul(Self::UNITS_PER_MILLISECOND))
    }

    /// The count of network time units.
    pub const fn units(self) -> u32 {
        self.0
    }

    /// True for the zero duration.
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// The duration in milliseconds.
    pub fn as_millis(self) -> f64 {
        f64::from(self.0) / f64::from(Self::UNITS_PER_MILLISECOND)
    }

    /// The duration in microseconds.
    pub fn as_micros(self) -> f64 {
        f64::from(self.0) * 1e6 / f64::from(Self::UNITS_PER_SECOND)
    }

    /// The duration in seconds.
    pub fn as_secs(self) -> f64 {
        f64::from(self.0) / f64::from(Self::UNITS_PER_SECOND)
    }

    /// How many times a second a period of this length repeats; `None` for zero.
    pub fn hertz(self) -> Option<f64> {
        (self.0 != 0).then(|| f64::from(Self::UNITS_PER_SECOND) / f64::from(self.0))
    }

    /// The period of a rate in hertz, rounded to the nearest unit; `None`
    /// unless `hertz` is positive, finite and gives a period of at least one unit.
    pub fn from_hertz(hertz: f64) -> Option<Self> {
        if !(hertz.is_finite() && hertz > 0.0) {
            return None;
        }
        let units = (f64::from(Self::UNITS_PER_SECOND) / hertz).round();
        // The range check makes the cast exact.
        (1.0..=f64::from(u32::MAX))
            .contains(&units)
            .then_some(Self(units as u32))
    }
}

impl fmt::Display for NetworkTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} units ({} ms)", self.0, self.as_millis())
    }
}

fixed_schema!(NetworkTime, {
    "type": "integer",
    "minimum": 0,
    "maximum": u32::MAX,
    "description": "A duration in network time units of 1/975,000 s: 975 = 1 ms, 97,500 = 100 ms (10 Hz)."
});

/// A sensor or user-data period: 0 (off) or at least 975 units (1 ms).
///
/// ```
/// use netcfg_model::{NetworkTime, SensorPeriod};
/// assert!(SensorPeriod::try_from(0).unwrap().is_off());
/// assert!(SensorPeriod::try_from(500).is_err());
/// assert_eq!(SensorPeriod::try_from(975).unwrap().period(), Some(NetworkTime::ONE_MILLISECOND));
/// ```
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(try_from = "u32", into = "u32")]
pub struct SensorPeriod(NetworkTime);

/// A sensor period between 1 and 974 units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a sensor period: use 0 (off) or at least 975 (1 ms, in units of 1/975,000 s)")]
pub struct SensorPeriodError(pub u32);

impl SensorPeriod {
    /// Sensor or user data off.
    pub const OFF: Self = Self(NetworkTime::ZERO);

    /// True when the sensor is off.
    pub const fn is_off(self) -> bool {
        self.0.is_zero()
    }

    /// The period, or `None` when off.
    pub const fn period(self) -> Option<NetworkTime> {
        if self.0.is_zero() { None } else { Some(self.0) }
    }

    /// The raw period, zero when off.
    pub const fn as_network_time(self) -> NetworkTime {
        self.0
    }
}

impl TryFrom<u32> for SensorPeriod {
    type Error = SensorPeriodError;
    fn try_from(units: u32) -> Result<Self, Self::Error> {
        if units == 0 || units >= NetworkTime::UNITS_PER_MILLISECOND {
            Ok(Self(NetworkTime(units)))
        } else {
            Err(SensorPeriodError(units))
        }
    }
}

impl From<SensorPeriod> for u32 {
    fn from(period: SensorPeriod) -> u32 {
        period.0.units()
    }
}

fixed_schema!(SensorPeriod, {
    "type": "integer",
    "description": "0 (off) or a period of at least 975 network time units (1 ms, units of 1/975,000 s).",
    "anyOf": [ { "const": 0 }, { "minimum": 975, "maximum": u32::MAX } ]
});

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_domain_figures_hold() {
        assert_eq!(NetworkTime::from_units(97_500).as_millis(), 100.0);
        assert_eq!(NetworkTime::from_units(48_750).as_millis(), 50.0);
        assert_eq!(
            NetworkTime::from_hertz(10.0),
            Some(NetworkTime::from_units(97_500))
        );
        assert_eq!(NetworkTime::ZERO.hertz(), None);
        assert_eq!(NetworkTime::from_hertz(0.0), None);
        assert_eq!(NetworkTime::from_hertz(f64::NAN), None);
        assert_eq!(NetworkTime::from_hertz(1e-9), None);
        assert_eq!(NetworkTime::from_hertz(1e9), None);
        assert!((NetworkTime::from_units(1).as_micros() - 1.025_641).abs() < 1e-6);
    }

    #[test]
    fn sensor_periods_are_off_or_at_least_a_millisecond() {
        assert!(serde_json::from_str::<SensorPeriod>("974").is_err());
        assert!(serde_json::from_str::<SensorPeriod>("-1").is_err());
        assert_eq!(
            serde_json::from_str::<SensorPeriod>("0").unwrap(),
            SensorPeriod::OFF
        );
        assert_eq!(
            serde_json::to_string(&SensorPeriod::try_from(975).unwrap()).unwrap(),
            "975"
        );
    }

    proptest! {
        #[test]
        fn hertz_and_period_round_trip(units in 1u32..) {
            let period = NetworkTime::from_units(units);
            let back = NetworkTime::from_hertz(period.hertz().unwrap()).unwrap();
            prop_assert_eq!(back, period);
        }
    }
}
