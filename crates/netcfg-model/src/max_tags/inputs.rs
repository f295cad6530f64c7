//! The inputs of the calculation, and how a request body or a
//! configuration's role becomes them.

use super::constants::DEFAULT_PAYLOAD_OVERHEAD_BYTES;
use super::rules::{check_rules, configuration_path};
use crate::{
    body::CalculateMaximumTagsParameterizedBody,
    device::Interface,
    network_mode::NetworkMode,
    rf::RfSetting,
    role::{Role, RoleId},
    time::{NetworkTime, SensorPeriod},
    validation::{Problems, Validate},
};

/// Everything the maximum-tag calculation depends on, resolved: the fields
/// of `calculate_maximum_tags_parameterized_body` with their defaults
/// applied, the RF setting itself, the network mode, and the downlink window
/// the tags keep. Periods are in network time units (1/975,000 s), sizes in
/// bytes.
///
/// Build it with [`MaxTagsInputs::from_body`] or [`MaxTagsInputs::from_role`],
/// or field by field; [`calculate`](super::calculate) checks every rule.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct MaxTagsInputs {
    /// How many seeders transmit timing packets.
    pub number_of_seeders: u32,
    /// The seeders' tick period: at least 4,375 when there are seeders.
    pub seeder_period: NetworkTime,
    /// The tags' beacon period: more than 0, and not shorter than
    /// `maximum_tag_period`.
    pub tag_period: NetworkTime,
    /// The shortest beacon period a tag may use (the `max_tag_period`
    /// setting); more than 0. The network schedules in cycles of this length.
    pub maximum_tag_period: NetworkTime,
    /// Accelerometer report period (0: off).
    pub accelerometer_period: SensorPeriod,
    /// Gyroscope report period (0: off).
    pub gyroscope_period: SensorPeriod,
    /// Magnetometer report period (0: off).
    pub magnetometer_period: SensorPeriod,
    /// Quaternion report period (0: off).
    pub quaternion_period: SensorPeriod,
    /// Pressure report period (0: off).
    pub pressure_period: SensorPeriod,
    /// Temperature report period (0: off).
    pub temperature_period: SensorPeriod,
    /// Bytes of framing and header in each of a tag's frames; at most 1,022.
    pub payload_overhead_size: u32,
    /// User data period (0: off).
    pub user_data_period: SensorPeriod,
    /// Bytes of user data sent each user data period; at most 1,023.
    pub user_data_size: u32,
    /// The receive window a tag keeps open after each beacon for downlink
    /// commands (its role's `window_duration`); 0 for none. Shorter than the
    /// tag period.
    pub window_duration: NetworkTime,
    /// The RF setting the network runs.
    pub rf_setting: RfSetting,
    /// How the network locates tags.
    pub network_mode: NetworkMode,
}

/// A configuration's seeders: how many interfaces have the SEEDER role, and
/// the SEEDER role's `network_period`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seeders {
    /// Interfaces with role SEEDER.
    pub count: u32,
    /// The SEEDER role's tick period.
    pub period: NetworkTime,
}

impl Seeders {
    /// The seeders of a configuration: the interfaces among `interfaces`
    /// whose role is SEEDER, ticking at `seeder_role`'s network period.
    pub fn count_in<'a>(
        interfaces: impl IntoIterator<Item = &'a Interface>,
        seeder_role: &Role,
    ) -> Self {
        let count = interfaces
            .into_iter()
            .filter(|interface| interface.role_id == RoleId::SEEDER)
            .count();
        Self {
            count: u32::try_from(count).unwrap_or(u32::MAX),
            period: seeder_role.network_period,
        }
    }
}

impl MaxTagsInputs {
    /// The inputs of a `calculate_maximum_tags_parameterized_body`.
    ///
    /// `settings` names one of `rf_settings`; absent, it is the setting
    /// named `default` there, or [`RfSetting::default_setting`] when the
    /// slice has none. Absent optional fields are off (sensors, user data),
    /// or [`DEFAULT_PAYLOAD_OVERHEAD_BYTES`] for the overhead; the tags keep
    /// no downlink window.
    ///
    /// # Errors
    /// Every problem at once: an unknown RF setting name (path `settings`)
    /// and every broken rule of the fields (the paths of the body's fields).
    pub fn from_body(
        body: &CalculateMaximumTagsParameterizedBody,
        rf_settings: &[RfSetting],
        network_mode: NetworkMode,
    ) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let wanted = body
            .settings
            .as_ref()
            .map_or(RfSetting::DEFAULT_NAME, |name| name.as_str());
        let found = rf_settings.iter().find(|setting| setting.name == *wanted);
        let rf_setting = match (found, &body.settings) {
            (Some(setting), _) => setting.clone(),
            (None, None) => RfSetting::default_setting(),
            (None, Some(name)) => {
                let known: Vec<&str> = rf_settings.iter().map(|s| s.name.as_str()).collect();
                problems.push(
                    "settings",
                    format!(
                        "no RF setting is named `{name}`; the settings are: {}",
                        known.join(", ")
                    ),
                );
                RfSetting::default_setting()
            }
        };
        let inputs = Self::from_body_with(body, rf_setting, network_mode);
        check_rules(&inputs, &|field| field.to_owned(), &mut problems);
        inputs.rf_setting.validate_at("settings", &mut problems);
        problems.into_result(inputs)
    }

    /// The inputs of a body with its RF setting already resolved; no check.
    pub(crate) fn from_body_with(
        body: &CalculateMaximumTagsParameterizedBody,
        rf_setting: RfSetting,
        network_mode: NetworkMode,
    ) -> Self {
        let off = |period: Option<SensorPeriod>| period.unwrap_or(SensorPeriod::OFF);
        Self {
            number_of_seeders: body.number_of_seeders,
            seeder_period: body.seeder_period,
            tag_period: body.tag_period,
            maximum_tag_period: body.maximum_tag_period,
            accelerometer_period: off(body.accelerometer_period),
            gyroscope_period: off(body.gyroscope_period),
            magnetometer_period: off(body.magnetometer_period),
            quaternion_period: off(body.quaternion_period),
            pressure_period: off(body.pressure_period),
            temperature_period: off(body.temperature_period),
            payload_overhead_size: body
                .payload_overhead_size
                .unwrap_or(DEFAULT_PAYLOAD_OVERHEAD_BYTES),
            user_data_period: off(body.user_data_period),
            user_data_size: body.user_data_size.unwrap_or(0),
            window_duration: NetworkTime::ZERO,
            rf_setting,
            network_mode,
        }
    }

    /// The inputs for a tag role of a configuration (`calculate_maximum_tags_body`).
    ///
    /// The tag period, sensor periods and downlink window are the role's;
    /// `max_tag_period` is the configuration's setting of that name; the
    /// beacon has the default overhead and no user data.
    ///
    /// # Errors
    /// A role that is not a tag role (path `role_id`); otherwise every broken
    /// rule, at paths that name where the value came from:
    /// `role.network_period`, `role.window_duration`, `role.<sensor>_period`,
    /// `seeders.network_period`, `max_tag_period`, `settings`.
    pub fn from_role(
        role: &Role,
        rf_setting: &RfSetting,
        seeders: Seeders,
        max_tag_period: NetworkTime,
        network_mode: NetworkMode,
    ) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        if !role.id.is_tag_role() {
            problems.push(
                "role_id",
                format!(
                    "role {} ({}) is not a tag role: use the DEFAULT TAG role ({}) or a custom role (from {})",
                    role.id,
                    role.name,
                    RoleId::DEFAULT_TAG,
                    RoleId::FIRST_CUSTOM
                ),
            );
            return Err(problems);
        }
        let inputs = Self {
            number_of_seeders: seeders.count,
            seeder_period: seeders.period,
            tag_period: role.network_period,
            maximum_tag_period: max_tag_period,
            accelerometer_period: role.accelerometer_period,
            gyroscope_period: role.gyroscope_period,
            magnetometer_period: role.magnetometer_period,
            quaternion_period: role.quaternion_period,
            pressure_period: role.pressure_period,
            temperature_period: role.temperature_period,
            payload_overhead_size: DEFAULT_PAYLOAD_OVERHEAD_BYTES,
            user_data_period: SensorPeriod::OFF,
            user_data_size: 0,
            window_duration: role.window_duration,
            rf_setting: rf_setting.clone(),
            network_mode,
        };
        check_rules(&inputs, &configuration_path, &mut problems);
        inputs.rf_setting.validate_at("settings", &mut problems);
        problems.into_result(inputs)
    }

    /// The sensor periods with their field names.
    pub fn sensor_periods(&self) -> [(&'static str, SensorPeriod); 6] {
        [
            ("accelerometer_period", self.accelerometer_period),
            ("gyroscope_period", self.gyroscope_period),
            ("magnetometer_period", self.magnetometer_period),
            ("quaternion_period", self.quaternion_period),
            ("pressure_period", self.pressure_period),
            ("temperature_period", self.temperature_period),
        ]
    }
}
