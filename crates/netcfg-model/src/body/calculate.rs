use super::{no_check, plain_body};
use crate::{
    names::ItemName,
    role::RoleId,
    time::{NetworkTime, SensorPeriod},
    validation::{Problems, join},
};

/// `calculate_maximum_tags_parameterized_body`: the inputs of the maximum-tag
/// calculation, given directly. Periods are in network time units
/// (1/975,000 s); sizes in bytes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalculateMaximumTagsParameterizedBody {
    /// How many seeders transmit timing packets.
    pub number_of_seeders: u32,
    /// The seeders' tick period: at least 4,375 when there are seeders.
    pub seeder_period: NetworkTime,
    /// The tags' beacon period; more than 0.
    pub tag_period: NetworkTime,
    /// The shortest beacon period a tag may use (the `max_tag_period`
    /// setting); more than 0, and `tag_period` may not be shorter.
    pub maximum_tag_period: NetworkTime,
    /// Accelerometer report period: 0 (off) or at least 975.
    #[serde(default)]
    pub accelerometer_period: Option<SensorPeriod>,
    /// Gyroscope report period: 0 (off) or at least 975.
    #[serde(default)]
    pub gyroscope_period: Option<SensorPeriod>,
    /// Magnetometer report period: 0 (off) or at least 975.
    #[serde(default)]
    pub magnetometer_period: Option<SensorPeriod>,
    /// Quaternion report period: 0 (off) or at least 975.
    #[serde(default)]
    pub quaternion_period: Option<SensorPeriod>,
    /// Pressure report period: 0 (off) or at least 975.
    #[serde(default)]
    pub pressure_period: Option<SensorPeriod>,
    /// Temperature report period: 0 (off) or at least 975.
    #[serde(default)]
    pub temperature_period: Option<SensorPeriod>,
    /// Bytes of framing and header around the beacon's payload.
    #[serde(default)]
    pub payload_overhead_size: Option<u32>,
    /// User data period: 0 (off) or at least 975.
    #[serde(default)]
    pub user_data_period: Option<SensorPeriod>,
    /// Bytes of user data sent each user data period.
    #[serde(default)]
    pub user_data_size: Option<u32>,
    /// The name of the RF setting; `default` when not given.
    #[serde(default)]
    pub settings: Option<ItemName>,
}

/// The largest frame a UWB radio sends, in bytes (IEEE 802.15.4 allows 127;
/// the radios' extended mode 1023).
pub const MAX_FRAME_BYTES: u32 = 1023;

fn check_parameterized(
    body: &CalculateMaximumTagsParameterizedBody,
    path: &str,
    problems: &mut Problems,
) {
    for (field, period) in [
        ("tag_period", body.tag_period),
        ("maximum_tag_period", body.maximum_tag_period),
    ] {
        if period.is_zero() {
            problems.push(join(path, field), "a period must be more than 0");
        }
    }
    if body.number_of_seeders > 0 && body.seeder_period < crate::role::MIN_SEEDER_PERIOD {
        problems.push(
            join(path, "seeder_period"),
            format!(
                "a seeder period must be at least {} (about 4.5 ms); {} is too short",
                crate::role::MIN_SEEDER_PERIOD.units(),
                body.seeder_period.units()
            ),
        );
    }
    if !body.tag_period.is_zero() && body.tag_period < body.maximum_tag_period {
        problems.push(
            join(path, "tag_period"),
            format!(
                "the tag period ({}) is shorter than maximum_tag_period ({}), the shortest period a tag may use",
                body.tag_period.units(),
                body.maximum_tag_period.units()
            ),
        );
    }
    for (field, size) in [
        ("payload_overhead_size", body.payload_overhead_size),
        ("user_data_size", body.user_data_size),
    ] {
        if size.is_some_and(|size| size > MAX_FRAME_BYTES) {
            problems.push(
                join(path, field),
                format!("a size is at most {MAX_FRAME_BYTES} bytes"),
            );
        }
    }
}

plain_body!(CalculateMaximumTagsParameterizedBody {
    required number_of_seeders, required seeder_period, required tag_period, required maximum_tag_period,
    optional accelerometer_period, optional gyroscope_period, optional magnetometer_period,
    optional quaternion_period, optional pressure_period, optional temperature_period,
    optional payload_overhead_size, optional user_data_period, optional user_data_size, optional settings,
} at_least_one: false, check: check_parameterized);

/// `calculate_maximum_tags_body`: calculate from a role of a configuration.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalculateMaximumTagsBody {
    /// The tag role to calculate for.
    pub role_id: RoleId,
}

plain_body!(CalculateMaximumTagsBody { required role_id } at_least_one: false, check: no_check);
