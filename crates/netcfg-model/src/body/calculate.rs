use netcfg_model_derive::request_body;

use crate::{
    max_tags::{MaxTagsInputs, check_field_rules},
    names::ItemName,
    role::RoleId,
    time::{NetworkTime, SensorPeriod},
    validation::{Problems, join},
};

/// A period of more than 0 network time units.
fn positive_period(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "integer", "minimum": 1, "maximum": u32::MAX,
        "description": "A period in network time units of 1/975,000 s; more than 0."
    })
}

/// A tag role's id: 4 (DEFAULT TAG) or a custom role (5 and up).
fn tag_role_id(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "integer", "minimum": 4, "maximum": u32::MAX,
        "description": "A tag role: 4 (DEFAULT TAG) or a custom role (5 and up)."
    })
}

/// `calculate_maximum_tags_parameterized_body`: the inputs of the maximum-tag
/// calculation, given directly. Periods are in network time units
/// (1/975,000 s); sizes in bytes.
#[request_body(check = check_parameterized)]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(extend(
    "if" = {"required": ["number_of_seeders"], "properties": {"number_of_seeders": {"minimum": 1}}},
    "then" = {"properties": {"seeder_period": {"minimum": 4375}}}
))]
pub struct CalculateMaximumTagsParameterizedBody {
    /// How many seeders transmit timing packets.
    pub number_of_seeders: u32,
    /// The seeders' tick period: at least 4,375 when there are seeders.
    pub seeder_period: NetworkTime,
    /// The tags' beacon period; more than 0.
    #[schemars(schema_with = "positive_period")]
    pub tag_period: NetworkTime,
    /// The shortest beacon period a tag may use (the `max_tag_period`
    /// setting); more than 0, and `tag_period` may not be shorter. The
    /// network schedules in cycles of this length (see docs/max-tags.md).
    #[schemars(schema_with = "positive_period")]
    pub maximum_tag_period: NetworkTime,
    /// Accelerometer report period: 0 (off) or at least 975.
    pub accelerometer_period: Option<SensorPeriod>,
    /// Gyroscope report period: 0 (off) or at least 975.
    pub gyroscope_period: Option<SensorPeriod>,
    /// Magnetometer report period: 0 (off) or at least 975.
    pub magnetometer_period: Option<SensorPeriod>,
    /// Quaternion report period: 0 (off) or at least 975.
    pub quaternion_period: Option<SensorPeriod>,
    /// Pressure report period: 0 (off) or at least 975.
    pub pressure_period: Option<SensorPeriod>,
    /// Temperature report period: 0 (off) or at least 975.
    pub temperature_period: Option<SensorPeriod>,
    /// Bytes of framing and header in each of a tag's frames: at most 1,022;
    /// 12 (an ISO/IEC 24730-62 blink) when not given.
    #[schemars(range(max = 1022))]
    pub payload_overhead_size: Option<u32>,
    /// User data period: 0 (off) or at least 975.
    pub user_data_period: Option<SensorPeriod>,
    /// Bytes of user data sent each user data period: at most 1,023; none
    /// when not given.
    #[schemars(range(max = 1023))]
    pub user_data_size: Option<u32>,
    /// The name of the RF setting; `default` when not given.
    pub settings: Option<ItemName>,
}

pub use crate::max_tags::constants::MAX_FRAME_BYTES;

/// The calculator's rules of single values, with the body's field paths
/// under `path`. The RF setting is resolved later (it names a setting of a
/// configuration), and the rules between values (a tag period below
/// `maximum_tag_period`) are the calculation's: they conflict, they are not
/// malformed.
fn check_parameterized(
    body: &CalculateMaximumTagsParameterizedBody,
    path: &str,
    problems: &mut Problems,
) {
    let inputs = MaxTagsInputs::from_body_with(
        body,
        crate::rf::RfSetting::default_setting(),
        crate::network_mode::NetworkMode::default(),
    );
    check_field_rules(&inputs, &|field| join(path, field), problems);
}

/// `calculate_maximum_tags_body`: calculate from a role of a configuration.
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct CalculateMaximumTagsBody {
    /// The tag role to calculate for.
    #[schemars(schema_with = "tag_role_id")]
    pub role_id: RoleId,
}
