use netcfg_model_derive::request_body;

use crate::{
    locate::Tracking,
    names::ItemName,
    role::{LedBrightness, Role, RoleId, check_max_speed, check_window},
    time::{NetworkTime, SensorPeriod},
    validation::Problems,
};

/// `role_post_body`: creates a custom (tag) role.
#[request_body(check = check_post)]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct RolePostBody {
    /// Unique name within the configuration.
    pub name: ItemName,
    /// The beacon period of the role's tags.
    pub network_period: NetworkTime,
    /// Downlink window after each beacon; 0 (the default) for none.
    pub window_duration: Option<NetworkTime>,
    /// Devices planned for the role.
    pub device_count: Option<u32>,
    /// Accelerometer report period: 0 or at least 975.
    pub accelerometer_period: Option<SensorPeriod>,
    /// Gyroscope report period: 0 or at least 975.
    pub gyroscope_period: Option<SensorPeriod>,
    /// Quaternion report period: 0 or at least 975.
    pub quaternion_period: Option<SensorPeriod>,
    /// Magnetometer report period: 0 or at least 975.
    pub magnetometer_period: Option<SensorPeriod>,
    /// Pressure report period: 0 or at least 975.
    pub pressure_period: Option<SensorPeriod>,
    /// Temperature report period: 0 or at least 975.
    pub temperature_period: Option<SensorPeriod>,
    /// LED brightness: Off, Very Dim, Dim or Bright (the default).
    pub led_brightness: Option<LedBrightness>,
    /// How its tags are tracked: off, light, default (the default) or strong.
    pub tracking: Option<Tracking>,
    /// The fastest its tags move, mm/s: 100 to 100,000 (3,000 unless set).
    pub max_speed_mm_s: Option<u32>,
}

/// `role_patch_body`: changes a role; at least one field.
#[request_body(at_least_one, check = check_patch)]
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct RolePatchBody {
    /// New name.
    pub name: Option<ItemName>,
    /// New network period.
    pub network_period: Option<NetworkTime>,
    /// New downlink window.
    pub window_duration: Option<NetworkTime>,
    /// New planned device count.
    pub device_count: Option<u32>,
    /// New accelerometer period.
    pub accelerometer_period: Option<SensorPeriod>,
    /// New gyroscope period.
    pub gyroscope_period: Option<SensorPeriod>,
    /// New quaternion period.
    pub quaternion_period: Option<SensorPeriod>,
    /// New magnetometer period.
    pub magnetometer_period: Option<SensorPeriod>,
    /// New pressure period.
    pub pressure_period: Option<SensorPeriod>,
    /// New temperature period.
    pub temperature_period: Option<SensorPeriod>,
    /// New LED brightness.
    pub led_brightness: Option<LedBrightness>,
    /// New tracking (tag roles only; taken by a running network at once).
    pub tracking: Option<Tracking>,
    /// New speed limit, mm/s (tag roles only; taken at once).
    pub max_speed_mm_s: Option<u32>,
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
            tracking: body.tracking,
            max_speed_mm_s: body.max_speed_mm_s,
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
        if self.tracking.is_some() {
            role.tracking = self.tracking;
        }
        if self.max_speed_mm_s.is_some() {
            role.max_speed_mm_s = self.max_speed_mm_s;
        }
    }
}

fn check_post(body: &RolePostBody, path: &str, problems: &mut Problems) {
    check_window(
        body.window_duration,
        Some(body.network_period),
        path,
        problems,
    );
    check_max_speed(body.max_speed_mm_s, path, problems);
}

fn check_patch(body: &RolePatchBody, path: &str, problems: &mut Problems) {
    check_window(body.window_duration, body.network_period, path, problems);
    check_max_speed(body.max_speed_mm_s, path, problems);
}
