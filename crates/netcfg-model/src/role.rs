//! Roles: what a device's radio interface does in the network.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::fmt;

use crate::{
    locate::{
        DEFAULT_MAX_SPEED_MM_S, MAX_MAX_SPEED_MM_S, MIN_MAX_SPEED_MM_S, TrackSettings, Tracking,
    },
    names::ItemName,
    time::{NetworkTime, SensorPeriod},
    validation::{Problems, Validate, join},
};

/// The id of a role. 0 to 4 are built in; custom roles get ids from 5.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct RoleId(pub u32);

impl RoleId {
    /// A device that has not been given a role.
    pub const UNCONFIGURED: Self = Self(0);
    /// Reserved; never assigned.
    pub const RESERVED: Self = Self(1);
    /// A fixed, surveyed device that times tags' beacons.
    pub const ANCHOR: Self = Self(2);
    /// An anchor that also transmits the network's timing packets.
    pub const SEEDER: Self = Self(3);
    /// The built-in tag role, beaconing at 10 Hz.
    pub const DEFAULT_TAG: Self = Self(4);
    /// The first id given to a custom role.
    pub const FIRST_CUSTOM: Self = Self(5);

    /// True for the roles 0 to 4, which cannot be deleted.
    pub const fn is_builtin(self) -> bool {
        self.0 < Self::FIRST_CUSTOM.0
    }

    /// True for the roles whose devices are tags: the default tag role and
    /// every custom role.
    pub const fn is_tag_role(self) -> bool {
        self.0 >= Self::DEFAULT_TAG.0
    }

    /// True for roles whose interfaces must have x, y and z: anchors and seeders.
    pub const fn needs_position(self) -> bool {
        self.0 == Self::ANCHOR.0 || self.0 == Self::SEEDER.0
    }
}

impl fmt::Display for RoleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// How bright a device's LED is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum LedBrightness {
    /// LED off.
    Off,
    /// Very dim.
    #[serde(rename = "Very Dim")]
    VeryDim,
    /// Dim.
    Dim,
    /// Bright (the default).
    #[default]
    Bright,
}

/// A role of a configuration: its timing and its sensors.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Role {
    /// The role's id.
    pub id: RoleId,
    /// Unique name within the configuration.
    pub name: ItemName,
    /// The beacon period of the role's devices (tags), or the tick period of
    /// seeders; 0 for roles that do not transmit periodically.
    pub network_period: NetworkTime,
    /// The receive window kept open after each beacon for downlink commands
    /// (ours); 0 for none.
    pub window_duration: NetworkTime,
    /// How many devices are planned for this role (the input of the
    /// maximum-tag check).
    pub device_count: u32,
    /// Accelerometer report period.
    pub accelerometer_period: SensorPeriod,
    /// Gyroscope report period.
    pub gyroscope_period: SensorPeriod,
    /// Orientation quaternion report period.
    pub quaternion_period: SensorPeriod,
    /// Magnetometer report period.
    pub magnetometer_period: SensorPeriod,
    /// Pressure report period.
    pub pressure_period: SensorPeriod,
    /// Temperature report period.
    pub temperature_period: SensorPeriod,
    /// LED brightness of the role's devices.
    pub led_brightness: LedBrightness,
    /// How its tags' positions are tracked (decisions §18): tag roles
    /// only, `default` unless set; absent for anchors and seeders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking: Option<Tracking>,
    /// The fastest its tags move (mm/s, 100 to 100,000): the tracker
    /// refuses a fix that would need more. Tag roles only, 3,000 unless set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_speed_mm_s: Option<u32>,
}

/// The shortest tick period of a seeder: 4,375 units (about 4.5 ms).
pub const MIN_SEEDER_PERIOD: NetworkTime = NetworkTime::from_units(4_375);
/// The fixed beacon period of the default tag role: 97,500 units (100 ms, 10 Hz).
pub const DEFAULT_TAG_PERIOD: NetworkTime = NetworkTime::from_units(97_500);
/// The tick period the built-in seeder role starts with: 97,500 units (10 Hz).
pub const DEFAULT_SEEDER_PERIOD: NetworkTime = NetworkTime::from_units(97_500);

impl Role {
    /// A role with every sensor off, no window, no planned devices.
    pub fn new(id: RoleId, name: ItemName, network_period: NetworkTime) -> Self {
        Self {
            id,
            name,
            network_period,
            window_duration: NetworkTime::ZERO,
            device_count: 0,
            accelerometer_period: SensorPeriod::OFF,
            gyroscope_period: SensorPeriod::OFF,
            quaternion_period: SensorPeriod::OFF,
            magnetometer_period: SensorPeriod::OFF,
            pressure_period: SensorPeriod::OFF,
            temperature_period: SensorPeriod::OFF,
            led_brightness: LedBrightness::default(),
            tracking: id.is_tag_role().then_some(Tracking::Default),
            max_speed_mm_s: id.is_tag_role().then_some(DEFAULT_MAX_SPEED_MM_S),
        }
    }

    /// What the role asks of its tags' trackers; `None` for roles whose
    /// devices are not tracked (anchors, seeders, unconfigured).
    pub fn track_settings(&self) -> Option<TrackSettings> {
        if !self.id.is_tag_role() {
            return None;
        }
        Some(TrackSettings::new(
            self.tracking.unwrap_or_default(),
            self.max_speed_mm_s.unwrap_or(DEFAULT_MAX_SPEED_MM_S),
        ))
    }

    /// The sensor periods with their field names, in the wire order.
    pub fn sensor_periods(&self) -> [(&'static str, SensorPeriod); 6] {
        [
            ("accelerometer_period", self.accelerometer_period),
            ("gyroscope_period", self.gyroscope_period),
            ("quaternion_period", self.quaternion_period),
            ("magnetometer_period", self.magnetometer_period),
            ("pressure_period", self.pressure_period),
            ("temperature_period", self.temperature_period),
        ]
    }
}

/// The roles every configuration has, 0 and 2 to 4 (1 is reserved and never
/// assigned, so it is not a role a client can see).
pub fn builtin_roles() -> Vec<Role> {
    vec![
        Role::new(
            RoleId::UNCONFIGURED,
            ItemName::new_static("UNCONFIGURED"),
            NetworkTime::ZERO,
        ),
        Role::new(
            RoleId::ANCHOR,
            ItemName::new_static("ANCHOR"),
            NetworkTime::ZERO,
        ),
        Role::new(
            RoleId::SEEDER,
            ItemName::new_static("SEEDER"),
            DEFAULT_SEEDER_PERIOD,
        ),
        Role::new(
            RoleId::DEFAULT_TAG,
            ItemName::new_static("DEFAULT TAG"),
            DEFAULT_TAG_PERIOD,
        ),
    ]
}

/// Records a problem when a downlink window is not shorter than its period
/// (either may be unknown in a PATCH body; 0 means none).
pub(crate) fn check_window(
    window: Option<NetworkTime>,
    period: Option<NetworkTime>,
    path: &str,
    problems: &mut Problems,
) {
    if let (Some(window), Some(period)) = (window, period)
        && !window.is_zero()
        && !period.is_zero()
        && window >= period
    {
        problems.push(
            join(path, "window_duration"),
            format!(
                "the window ({}) must be shorter than the network period ({})",
                window.units(),
                period.units()
            ),
        );
    }
}

impl Validate for Role {
    fn validate_at(&self, path: &str, problems: &mut Problems) {
        let period_path = join(path, "network_period");
        match self.id {
            RoleId::RESERVED => {
                problems.push(join(path, "id"), "role 1 is reserved and never assigned")
            }
            RoleId::UNCONFIGURED | RoleId::ANCHOR if !self.network_period.is_zero() => problems
                .push(
                    period_path,
                    format!("the {} role has no network period; it must be 0", self.name),
                ),
            RoleId::SEEDER if self.network_period < MIN_SEEDER_PERIOD => problems.push(
                period_path,
                format!(
                    "a seeder period must be at least {} (about 4.5 ms); {} is too short",
                    MIN_SEEDER_PERIOD.units(),
                    self.network_period.units()
                ),
            ),
            RoleId::DEFAULT_TAG if self.network_period != DEFAULT_TAG_PERIOD => problems.push(
                period_path,
                format!(
                    "the DEFAULT TAG role's period is fixed at {} (10 Hz)",
                    DEFAULT_TAG_PERIOD.units()
                ),
            ),
            _ => {}
        }
        if self.id.is_builtin() && !self.window_duration.is_zero() {
            problems.push(
                join(path, "window_duration"),
                "built-in roles keep no downlink window; it must be 0",
            );
        }
        check_window(
            Some(self.window_duration),
            Some(self.network_period),
            path,
            problems,
        );
        if self.id.is_tag_role() {
            check_max_speed(self.max_speed_mm_s, path, problems);
        } else {
            for (field, set) in [
                ("tracking", self.tracking.is_some()),
                ("max_speed_mm_s", self.max_speed_mm_s.is_some()),
            ] {
                if set {
                    problems.push(
                        join(path, field),
                        format!(
                            "the {} role's devices are not tracked: only tag roles have {field}",
                            self.name
                        ),
                    );
                }
            }
        }
    }
}

/// Records a problem when a speed limit is outside 100 to 100,000 mm/s.
pub(crate) fn check_max_speed(max_speed_mm_s: Option<u32>, path: &str, problems: &mut Problems) {
    if let Some(speed) = max_speed_mm_s
        && !(MIN_MAX_SPEED_MM_S..=MAX_MAX_SPEED_MM_S).contains(&speed)
    {
        problems.push(
            join(path, "max_speed_mm_s"),
            format!(
                "expected a speed from {MIN_MAX_SPEED_MM_S} to {MAX_MAX_SPEED_MM_S} mm/s, found {speed}"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_roles_are_valid_and_builtin() {
        let roles = builtin_roles();
        assert_eq!(
            roles.iter().map(|r| r.id.0).collect::<Vec<_>>(),
            [0, 2, 3, 4]
        );
        for role in &roles {
            assert!(role.id.is_builtin());
            assert_eq!(role.validate(), Ok(()), "{}", role.name);
        }
    }

    #[test]
    fn role_rules_report_every_problem() {
        let mut seeder = builtin_roles().remove(2);
        seeder.network_period = NetworkTime::from_units(4_374);
        assert_eq!(
            seeder.validate().unwrap_err().as_slice()[0].path,
            "network_period"
        );
        seeder.network_period = MIN_SEEDER_PERIOD;
        assert_eq!(seeder.validate(), Ok(()));

        let mut anchor = builtin_roles().remove(1);
        anchor.network_period = NetworkTime::from_units(1);
        anchor.window_duration = NetworkTime::from_units(5);
        let problems = anchor.validate().unwrap_err();
        assert_eq!(
            problems.paths(),
            ["network_period", "window_duration", "window_duration"]
        );
    }

    #[test]
    fn led_brightness_uses_the_documented_words() {
        assert_eq!(
            serde_json::to_string(&LedBrightness::VeryDim).unwrap(),
            "\"Very Dim\""
        );
        assert!(serde_json::from_str::<LedBrightness>("\"Dazzling\"").is_err());
    }
}
