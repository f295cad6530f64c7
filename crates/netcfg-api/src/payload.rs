//! Payload keys: each key of the envelope is a type that names its key and
//! the type of its value, so a key and its value's type are one
//! declaration, checked by the compiler. A row declares
//! `Payload::of::<keys::Devices>()`; a handler answers
//! `Reply::with::<keys::Devices>(&devices)`, which takes a `Vec<Device>`
//! and nothing else; the renderer sends a reply only under the key its row
//! declares for the status (the same type), in every build.

use std::any::TypeId;

use schemars::JsonSchema;
use serde::Serialize;

/// A key of the envelope and the type of the value it carries.
pub trait PayloadKey: 'static {
    /// The key, as the API's table of payload keys gives it.
    const KEY: &'static str;
    /// What the key carries.
    type Value: Serialize + JsonSchema;
}

/// The identity of a key type, for the renderer's check that a reply's
/// key is the one its row declares.
pub(crate) fn key_id<K: PayloadKey>() -> TypeId {
    TypeId::of::<K>()
}

/// Declares key types: `Name = "key": Type;`.
macro_rules! payload_keys {
    ($($(#[$doc:meta])* $name:ident = $key:literal: $value:ty;)*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy)]
            pub struct $name;

            impl $crate::payload::PayloadKey for $name {
                const KEY: &'static str = $key;
                type Value = $value;
            }
        )*
    };
}

/// The API's payload keys (`docs/api.md`, the seed's table of keys).
pub mod keys {
    use netcfg_model as m;

    use crate::wire as w;

    payload_keys! {
        /// Who the request is (decisions §17).
        Session = "session": m::people::SessionInfo;
        /// Single sign-on's provider, and where to sign in (decisions §17).
        Oidc = "oidc": m::people::OidcInfo;
        /// One user.
        User = "user": m::people::User;
        /// Every user.
        Users = "users": Vec<m::people::User>;
        /// A new API key, with its secret (shown once).
        NewApiKey = "api_key": m::people::NewApiKey;
        /// A user's API keys.
        ApiKeys = "api_keys": Vec<m::people::ApiKey>;
        /// A page of the audit trail.
        Audit = "audit": m::people::AuditPage;
        /// One alert rule.
        AlertRule = "alert_rule": m::AlertRule;
        /// Every alert rule.
        AlertRules = "alert_rules": Vec<m::AlertRule>;
        /// The alert rules that fire now.
        Alerts = "alerts": Vec<m::Firing>;
        /// One schedule, with its next run and its last.
        Schedule = "schedule": m::ScheduleStatus;
        /// Every schedule.
        Schedules = "schedules": Vec<m::ScheduleStatus>;
        /// One zone.
        Zone = "zone": m::Zone;
        /// Every zone.
        Zones = "zones": Vec<m::Zone>;
        /// The tags inside a zone now.
        Occupancy = "occupancy": Vec<m::ZoneOccupant>;
        /// One output (never its credentials).
        Output = "output": m::Output;
        /// Every output.
        Outputs = "outputs": Vec<m::Output>;
        /// How an output fares.
        OutputStatus = "status": m::OutputStatus;
        /// One recording.
        Recording = "recording": m::Recording;
        /// Every recording.
        Recordings = "recordings": Vec<m::Recording>;
        /// Where a replay stands.
        Replay = "replay": m::ReplayState;
        /// The tags' accuracy.
        Accuracy = "accuracy": Vec<m::TagAccuracy>;
        /// The last position of each located tag.
        Positions = "positions": Vec<m::TagPosition>;
        /// The predicted error over a grid.
        Coverage = "coverage": m::locate::Coverage;
        /// A survey of the anchors.
        Survey = "survey": m::SurveyReport;
        /// What the network last reported about each device.
        CachedDevices = "cached_devices": Vec<m::CachedDevice>;
        /// One configuration.
        Configuration = "configuration": m::Configuration;
        /// Every configuration.
        Configurations = "configurations": Vec<m::Configuration>;
        /// What an action on a configuration did.
        ConfigurationActionStatus = "status": w::ConfigurationStatus;
        /// What an engine command did (5.0).
        EngineStatus = "status": w::EngineCommandStatus;
        /// What a device command did.
        CommandStatus = "status": w::DeviceCommandStatus;
        /// A count (unread notifications).
        Count = "count": u64;
        /// One known setting with its default.
        DefaultSetting = "default_setting": m::DefaultSetting;
        /// Every known setting with its default.
        DefaultSettings = "default_settings": Vec<m::DefaultSetting>;
        /// One device.
        Device = "device": m::Device;
        /// One device, or several (a PATCH of the device list in 5.1).
        DeviceOrDevices = "device": w::OneOrMany<m::Device>;
        /// Every device.
        Devices = "devices": Vec<m::Device>;
        /// Each device's outcome of a PATCH of the device list (5.0).
        DeviceStatuses = "device_statuses": w::DeviceStatuses;
        /// The group image.
        GroupImages = "group_images": m::GroupImage;
        /// A page of the change history.
        History = "history": Vec<m::HistoryEntry>;
        /// One interface.
        Interface = "interface": m::Interface;
        /// Every interface of a device.
        Interfaces = "interfaces": Vec<m::Interface>;
        /// The latest log lines.
        LogMessages = "log_messages": Vec<String>;
        /// The log files.
        Logs = "logs": Vec<m::LogFileName>;
        /// A magnetometer calibration.
        MagnetometerCalibration = "magnetometer_calibration": m::MagnetometerCalibration;
        /// The maximum-tag calculation.
        MaximumTags = "maximum_tags_calculation": m::max_tags::MaxTagsResult;
        /// The maximum-tag calculation's key on a failure (5.0): null.
        MaximumTagsOrNull = "maximum_tags_calculation": Option<m::max_tags::MaxTagsResult>;
        /// The host's network interfaces.
        NetworkInterfaces = "network_interfaces": Vec<m::HostNetworkInterface>;
        /// The network mode set.
        NetworkMode = "network_mode": w::NetworkModeStatus;
        /// Every network mode.
        NetworkModes = "network_modes": Vec<m::NetworkModeInfo>;
        /// One notification.
        Notification = "notification": m::Notification;
        /// Every notification (5.0's key for the list).
        NotificationList = "notification": Vec<m::Notification>;
        /// Every notification.
        Notifications = "notifications": Vec<m::Notification>;
        /// The packages and their state.
        Packages = "packages": Vec<m::PackageStatus>;
        /// Device pairs.
        Pairs = "pairs": Vec<m::DevicePair>;
        /// A pairing of two interfaces (5.0).
        PairedInterface = "paired_interface": w::PairedInterface;
        /// One position limit.
        PositionLimit = "position_limit": m::PositionLimit;
        /// Every position limit.
        PositionLimits = "position_limits": Vec<m::PositionLimit>;
        /// One RF setting.
        RfSetting = "rf_setting": m::RfSetting;
        /// Every RF setting.
        RfSettings = "rf_settings": Vec<m::RfSetting>;
        /// One role.
        Role = "role": m::Role;
        /// Roles.
        Roles = "roles": Vec<m::Role>;
        /// One setting.
        Setting = "setting": m::SystemSetting;
        /// One setting, or several (a POST of settings).
        SettingOrSettings = "setting": w::OneOrMany<m::SystemSetting>;
        /// Settings.
        Settings = "settings": Vec<m::SystemSetting>;
        /// One data stream.
        Stream = "stream": m::DataStream;
        /// Every data stream.
        Streams = "streams": Vec<m::DataStream>;
        /// Devices heard that are not configured.
        UnconfiguredDevices = "unconfigured_devices": Vec<m::UnconfiguredDevice>;
    }
}
