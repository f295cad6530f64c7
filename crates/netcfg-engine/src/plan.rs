//! What a start needs: the plain value the engine runs a configuration from.

use std::{collections::HashSet, path::PathBuf, time::Duration};

use netcfg_model::{
    ConfigName, DataStream, Device, Instance, ItemName, NetworkMode, RfSetting, Role, SerialNumber,
    SettingValue, SurveyReport, SystemSetting, Zone, builtin_roles, default_streams,
};

/// Everything the engine needs to run one configuration. The caller builds
/// it from the saved state; the engine never reads configuration files.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkPlan {
    /// The configuration's name.
    pub configuration: ConfigName,
    /// Which engine instance runs it.
    pub instance: Instance,
    /// Its operating mode.
    pub network_mode: NetworkMode,
    /// The RF setting in use.
    pub rf: RfSetting,
    /// Every role (built-in and custom).
    pub roles: Vec<Role>,
    /// Its devices; disabled ones are not pushed to the network.
    pub devices: Vec<Device>,
    /// Its data streams (Config, Anchor and User are used by name).
    pub streams: Vec<DataStream>,
    /// Its system settings.
    pub settings: Vec<SystemSetting>,
    /// Its zones.
    pub zones: Vec<Zone>,
    /// The directory this start's log file goes into (created if missing).
    pub log_directory: PathBuf,
    /// For a `replay:` instance, the recording the caller found for it.
    pub replay: Option<ReplayPlan>,
    /// The last survey kept for the configuration (decisions §20): its bad
    /// verdicts show in the anchors' health from the start, as they did
    /// after the survey. Not compared for a restart.
    pub survey: Option<SurveyReport>,
}

/// What a replay needs: where its recording is, as the caller found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayPlan {
    /// What the instance names.
    pub source: netcfg_model::ReplaySource,
    /// The recording's capture file.
    pub path: PathBuf,
    /// The recording's length, milliseconds (0 when unknown).
    pub duration_ms: u64,
}

impl NetworkPlan {
    /// A plan with the defaults of a new configuration and no devices.
    pub fn new(configuration: ConfigName, instance: Instance, log_directory: PathBuf) -> Self {
        Self {
            configuration,
            instance,
            network_mode: NetworkMode::default(),
            rf: RfSetting::default_setting(),
            roles: builtin_roles(),
            devices: Vec::new(),
            streams: default_streams(),
            settings: Vec::new(),
            zones: Vec::new(),
            log_directory,
            replay: None,
            survey: None,
        }
    }

    /// The serial numbers of every device the plan holds, enabled or not.
    pub fn serial_numbers(&self) -> HashSet<SerialNumber> {
        self.devices
            .iter()
            .map(|device| device.serial_number)
            .collect()
    }

    /// The enabled device with `serial_number`, if the plan has it.
    pub fn enabled_device(&self, serial_number: SerialNumber) -> Option<&Device> {
        self.devices
            .iter()
            .find(|device| device.serial_number == serial_number && !device.disabled)
    }

    /// The devices pushed to the network: the enabled ones.
    pub fn enabled_devices(&self) -> impl Iterator<Item = &Device> {
        self.devices.iter().filter(|device| !device.disabled)
    }

    /// The integer value of the setting `key`, if it is set to an integer.
    pub fn integer_setting(&self, key: &str) -> Option<i64> {
        self.settings
            .iter()
            .find(|setting| setting.setting_key.as_str() == key)
            .and_then(|setting| match setting.value {
                SettingValue::Integer(value) => Some(value),
                _ => None,
            })
    }

    /// How often the Anchor stream reports device health: the
    /// `anchor_health_report_period` setting (seconds, 5 when unset).
    pub fn anchor_health_period(&self) -> Duration {
        let seconds = self
            .integer_setting("anchor_health_report_period")
            .and_then(|value| u64::try_from(value).ok())
            .filter(|value| (1..=3_600).contains(value))
            .unwrap_or(5);
        Duration::from_secs(seconds)
    }

    /// What it takes for a network that runs this plan to run `newer`
    /// (the plan the saved state gives now): the devices whose name alone
    /// changed, which a running network takes at once, and whether anything
    /// else its devices were told changed (devices, interfaces, roles,
    /// streams, RF, settings, mode), which waits for a restart or reload.
    /// Zones are taken live and not compared; nor are the instance and the
    /// log directory, which a running configuration cannot change.
    pub fn change_to(&self, newer: &NetworkPlan) -> PlanChange {
        let unnamed = |plan: &NetworkPlan| -> Vec<Device> {
            plan.devices
                .iter()
                .map(|device| Device {
                    name: None,
                    ..device.clone()
                })
                .collect()
        };
        // Tracking is the engine's own, taken at once (decisions §18).
        let untracked = |plan: &NetworkPlan| -> Vec<Role> {
            plan.roles
                .iter()
                .map(|role| Role {
                    tracking: None,
                    max_speed_mm_s: None,
                    ..role.clone()
                })
                .collect()
        };
        let tracking_of = |plan: &NetworkPlan| -> Vec<_> {
            plan.roles
                .iter()
                .map(|role| (role.id, role.tracking, role.max_speed_mm_s))
                .collect()
        };
        let retracked = (tracking_of(self) != tracking_of(newer)).then(|| newer.roles.clone());
        let needs_restart = self.network_mode != newer.network_mode
            || self.rf != newer.rf
            || untracked(self) != untracked(newer)
            || self.streams != newer.streams
            || self.settings != newer.settings
            || unnamed(self) != unnamed(newer);
        let renamed = newer
            .devices
            .iter()
            .filter(|device| {
                self.devices.iter().any(|running| {
                    running.serial_number == device.serial_number && running.name != device.name
                })
            })
            .map(|device| (device.serial_number, device.name.clone()))
            .collect();
        PlanChange {
            needs_restart,
            renamed,
            retracked,
        }
    }
}

/// What separates a running plan from the saved state's ([`NetworkPlan::change_to`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlanChange {
    /// A change waits that the network takes only at a restart or reload.
    pub needs_restart: bool,
    /// Devices whose name changed, with the new name: taken live.
    pub renamed: Vec<(SerialNumber, Option<ItemName>)>,
    /// The roles, when their tracking changed: taken live.
    pub retracked: Option<Vec<Role>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor(id: u32, serial: &str, name: Option<&str>, x: i32) -> Device {
        serde_json::from_value(serde_json::json!({
            "id": id, "serial_number": serial, "name": name, "disabled": false,
            "interfaces": [{"identifier": 0, "role_id": 2, "x": x, "y": 0, "z": 2500}]
        }))
        .expect("a device")
    }

    fn plan(devices: Vec<Device>) -> NetworkPlan {
        let mut plan = NetworkPlan::new(
            "site".parse().expect("a name"),
            Instance::ServerDefault,
            PathBuf::from("logs"),
        );
        plan.devices = devices;
        plan
    }

    #[test]
    fn a_name_alone_is_taken_live_and_named() {
        let running = plan(vec![anchor(1, "01:04:0001", None, 0)]);
        let renamed = plan(vec![anchor(1, "01:04:0001", Some("north wall"), 0)]);
        let change = running.change_to(&renamed);
        assert!(!change.needs_restart);
        assert_eq!(
            change.renamed,
            [(
                "01:04:0001".parse().expect("a serial"),
                Some("north wall".parse().expect("a name"))
            )]
        );
        assert_eq!(running.change_to(&running), PlanChange::default());
    }

    #[test]
    fn what_the_devices_were_told_waits_for_a_restart() {
        let running = plan(vec![anchor(1, "01:04:0001", None, 0)]);
        let added = plan(vec![
            anchor(1, "01:04:0001", None, 0),
            anchor(2, "01:04:0002", None, 8000),
        ]);
        assert!(running.change_to(&added).needs_restart);
        let moved = plan(vec![anchor(1, "01:04:0001", None, 500)]);
        assert!(running.change_to(&moved).needs_restart);
        let mut slower = running.clone();
        slower.roles[0].name = "RENAMED".parse().expect("a name");
        assert!(running.change_to(&slower).needs_restart);
        // A name and a move together: the move waits, the name is taken.
        let both = plan(vec![anchor(1, "01:04:0001", Some("north wall"), 500)]);
        let change = running.change_to(&both);
        assert!(change.needs_restart);
        assert_eq!(change.renamed.len(), 1);
    }
}
