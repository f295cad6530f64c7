use super::plain_body;
use crate::{
    names::ItemName,
    role::{LedBrightness, Role, RoleId, check_window},
    time::{NetworkTime, SensorPeriod},
    validation::Problems,
};

/// `role_post_body`: creates a custom (tag) role.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RolePostBody {
    /// Unique name within the configuration.
    pub name: ItemName,
    /// The beacon period of the role's tags.
    pub network_period: NetworkTime,
    /// Downlink window after each beacon; 0 (the default) for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "NetworkTime")]
    pub window_duration: Option<NetworkTime>,
    /// Devices planned for the role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub device_count: Option<u32>,
    /// Accelerometer report period: 0 or at least 975.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SensorPeriod")]
    pub accelerometer_period: Option<SensorPeriod>,
    /// Gyroscope report period: 0 or at least 975.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SensorPeriod")]
    pub gyroscope_period: Option<SensorPeriod>,
    /// Quaternion report period: 0 or at least 975.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SensorPeriod")]
    pub quaternion_period: Option<SensorPeriod>,
    /// Magnetometer report period: 0 or at least 975.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SensorPeriod")]
    pub magnetometer_period: Option<SensorPeriod>,
    /// Pressure report period: 0 or at least 975.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SensorPeriod")]
    pub pressure_period: Option<SensorPeriod>,
    /// Temperature report period: 0 or at least 975.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SensorPeriod")]
    pub temperature_period: Option<SensorPeriod>,
    /// LED brightness: Off, Very Dim, Dim or Bright (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LedBrightness")]
    pub led_brightness: Option<LedBrightness>,
}

/// `role_patch_body`: changes a role; at least one field.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("minProperties" = 1))]
pub struct RolePatchBody {
    /// New name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ItemName")]
    pub name: Option<ItemName>,
    /// New network period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "NetworkTime")]
    pub network_period: Option<NetworkTime>,
    /// New downlink window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "NetworkTime")]
    pub window_duration: Option<NetworkTime>,
    /// New planned device count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub device_count: Option<u32>,
    /// New accelerometer period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SensorPeriod")]
    pub accelerometer_period: Option<SensorPeriod>,
    /// New gyroscope period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SensorPeriod")]
    pub gyroscope_period: Option<SensorPeriod>,
    /// New quaternion period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SensorPeriod")]
    pub quaternion_period: Option<SensorPeriod>,
    /// New magnetometer period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SensorPeriod")]
    pub magnetometer_period: Option<SensorPeriod>,
    /// New pressure period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SensorPeriod")]
    pub pressure_period: Option<SensorPeriod>,
    /// New temperature period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SensorPeriod")]
    pub temperature_period: Option<SensorPeriod>,
    /// New LED brightness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LedBrightness")]
    pub led_brightness: Option<LedBrightness>,
}

impl RolePostBody {
    /// The role this body creates, with id `id`. Check the result with
    /// [`Validate`](crate::Validate): its rules depend on the id.
    pub fn into_role(self, id: RoleId) -> Role {
        let mut role = Role::new(id, self.name.clone(), self.network_period);
        RolePatchBody::from(self).apply(&mut role);
        role
    }
}

impl From<RolePostBody> for RolePatchBody {
    fn from(body: RolePostBody) -> Self {
        Self {
            name: Some(body.name),
            network_period: Some(body.network_period),
            window_duration: body.window_duration,
            device_count: body.device_count,
            accelerometer_period: body.accelerometer_period,
            gyroscope_period: body.gyroscope_period,
            quaternion_period: body.quaternion_period,
            magnetometer_period: body.magnetometer_period,
            pressure_period: body.pressure_period,
            temperature_period: body.temperature_period,
            led_brightness: body.led_brightness,
        }
    }
}

impl RolePatchBody {
    /// Writes the given fields into `role`. Validate the role afterwards: a
    /// change can break a rule that joins it with fields not given here.
    pub fn apply(&self, role: &mut Role) {
        fn set<T: Clone>(target: &mut T, value: &Option<T>) {
            if let Some(value) = value {
                *target = value.clone();
            }
        }
        set(&mut role.name, &self.name);
        set(&mut role.network_period, &self.network_period);
        set(&mut role.window_duration, &self.window_duration);
        set(&mut role.device_count, &self.device_count);
        set(&mut role.accelerometer_period, &self.accelerometer_period);
        set(&mut role.gyroscope_period, &self.gyroscope_period);
        set(&mut role.quaternion_period, &self.quaternion_period);
        set(&mut role.magnetometer_period, &self.magnetometer_period);
        set(&mut role.pressure_period, &self.pressure_period);
        set(&mut role.temperature_period, &self.temperature_period);
        set(&mut role.led_brightness, &self.led_brightness);
    }
}

fn check_post(body: &RolePostBody, path: &str, problems: &mut Problems) {
    check_window(
        body.window_duration,
        Some(body.network_period),
        path,
        problems,
    );
}

fn check_patch(body: &RolePatchBody, path: &str, problems: &mut Problems) {
    check_window(body.window_duration, body.network_period, path, problems);
}

plain_body!(RolePostBody {
    required name, required network_period, optional window_duration, optional device_count,
    optional accelerometer_period, optional gyroscope_period, optional quaternion_period,
    optional magnetometer_period, optional pressure_period, optional temperature_period,
    optional led_brightness,
} at_least_one: false, check: check_post);

plain_body!(RolePatchBody {
    optional name, optional network_period, optional window_duration, optional device_count,
    optional accelerometer_period, optional gyroscope_period, optional quaternion_period,
    optional magnetometer_period, optional pressure_period, optional temperature_period,
    optional led_brightness,
} at_least_one: true, check: check_patch);
