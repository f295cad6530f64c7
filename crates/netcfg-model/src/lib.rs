//! The resources of the netcfg API, their validation, the units and defaults
//! of the ultra-wideband location system they describe, and the maximum-tag
//! calculator.
//!
//! This crate is pure: it does no I/O and nothing async, so any program can
//! embed it (the server, its tests, a planning tool, a script's helper).
//!
//! - Resources: [`Configuration`], [`Device`], [`Interface`], [`DevicePair`],
//!   [`DataStream`], [`Role`], [`RfSetting`], [`PositionLimit`],
//!   [`SystemSetting`], [`DefaultSetting`], [`Notification`],
//!   [`NetworkMode`], [`GroupImage`], [`MagnetometerCalibration`],
//!   [`CachedDevice`], [`DeviceAction`], [`ConfigurationAction`].
//! - Request bodies, with the seed's field names: the [`body`] module. Read
//!   them with [`FromJson::from_json`] (or serde) to get every problem at once.
//! - Domain types that stop mistakes: [`SerialNumber`], [`NetworkTime`],
//!   [`SensorPeriod`], [`RoleId`], [`ConfigName`], the RF enums.
//! - Locating tags: the [`locate`] module solves a beacon's measurements
//!   into a position with its 95% error, predicts coverage and checks a
//!   survey of the anchors.
//! - Georeference: the [`georeference`] module fits a site's local metres to
//!   WGS84 longitude and latitude from ground control points (omlox's
//!   `:geojson` forms, decisions §19).
//! - Built-in data: [`builtin_roles`], [`default_streams`],
//!   [`RfSetting::default_setting`], [`default_settings`], [`NetworkMode::ALL`].
//!
//! ```
//! use netcfg_model::{FromJson, body::RolePostBody};
//! let body = serde_json::json!({"name": "", "network_period": -1, "colour": "red"});
//! let problems = RolePostBody::from_json(&body).unwrap_err();
//! assert_eq!(problems.as_slice().len(), 3);
//! ```

mod alert_rule;
mod alerts;
pub mod body;
mod cache;
mod configuration;
mod device;
mod device_action;
pub mod event;
pub mod geofence;
pub mod georeference;
mod history;
mod host;
mod int_enum;
mod json;
mod level;
pub mod locate;
pub mod max_tags;
mod misc;
mod names;
mod network_mode;
mod notification;
mod output;
mod pair;
pub mod pcap;
pub mod people;
mod position_limit;
mod recording;
mod rf;
mod role;
mod schedule;
mod schema;
mod serial;
mod setting;
mod sim_parameters;
mod site_check;
mod stream;
pub mod sync;
pub mod time;
mod validation;
mod zone;

pub use alert_rule::{
    AlertCondition, AlertRule, Hold, HoldChange, HoldSeconds, MAX_FOR_S, MAX_POSITIONS_PER_SECOND,
    Threshold, TooLong, UnknownAlertCondition,
};
pub use alerts::{AlertBook, AlertEvent, DeviceFacts, Facts, Firing};
pub use cache::{
    CachedDevice, Connectivity, DeviceAttributes, DeviceStatus, FirmwareImage, FirmwareImageType,
    Position, Synchronisation,
};
pub use configuration::{Configuration, ConfigurationAction, Instance, InstanceError, RunState};
pub use device::{
    Device, DeviceId, DeviceIdError, DeviceKey, DeviceKeyError, Interface, UnconfiguredDevice,
};
pub use device_action::{
    ActionOutcome, DeviceAction, DeviceActionName, DeviceActionReply, LedColor, LedMode,
    LedTimeout, LedTimeoutError,
};
pub use history::{ChangeRecord, HistoryEntry};
pub use host::{HostNetworkInterface, PackageState, PackageStatus};
pub use int_enum::NotAllowed;
pub use json::FromJson;
pub use level::Level;
pub use misc::{GroupImage, MagnetometerCalibration};
pub use names::{
    ConfigName, ConfigNameError, ItemName, ItemNameError, KeyName, KeyNameError, LogFileName,
    LogFileNameError, MAX_NAME_LENGTH, RecordingName, RecordingNameError, SettingKey,
    SettingKeyError, UserName, UserNameError,
};
pub use network_mode::{NetworkMode, NetworkModeInfo, UnknownNetworkMode};
pub use notification::Notification;
pub use output::{
    BatchMs, BatchOutOfRange, DEFAULT_TOPIC_PREFIX, MAX_BATCH_MS, MAX_CREDENTIAL_LENGTH,
    MAX_OUTPUTS, MAX_RATE_HZ, Output, OutputEventKind, OutputPlan, OutputScheme, OutputSecrets,
    OutputStatus, OutputUrl, OutputUrlError, Qos, QosError, RateHz, RateOutOfRange, TopicPrefix,
    TopicPrefixError,
};
pub use pair::{DevicePair, PairType, UnknownPairType};
pub use position_limit::{PositionLimit, PositionLimitKey};
pub use recording::{
    MAX_RECORDING_S, MAX_REPLAY_SPEED, MIN_REPLAY_SPEED, Recording, RecordingEnd, ReplayControl,
    ReplaySource, ReplaySpeed, ReplaySpeedError, ReplayState,
};
pub use rf::{
    BitRate, Channel, PreambleCode, PreambleCodeError, PreambleLength, Prf, RfSetting,
    suitable_preamble_codes,
};
pub use role::{
    DEFAULT_SEEDER_PERIOD, DEFAULT_TAG_PERIOD, LedBrightness, MIN_SEEDER_PERIOD, Role, RoleId,
    builtin_roles,
};
pub use schedule::{
    BadCron, CronExpr, Due, LATE_RUN_GRACE_MS, MAX_CRON_LENGTH, Missed, RunOutcome, Schedule,
    ScheduleAction, ScheduleLedger, ScheduleRun, ScheduleStatus, TimeZoneName, UnknownScheduleWord,
    utc_text,
};
pub use serial::{SerialNumber, SerialNumberError};
pub use setting::{
    DefaultSetting, SYSTEM_CLASS, SYSTEM_CLASS_ID, SettingRule, SettingScope, SettingType,
    SettingValue, SystemSetting, default_setting, default_settings,
};
pub use sim_parameters::{SIM_PARAMETER_NAMES, SimParameters, SurveyError};
pub use site_check::{
    AnchorSurvey, MeasuredRange, PointMm, SurveyPair, SurveyReport, TagAccuracy, TagPosition,
};
pub use stream::{DEFAULT_STREAM_GROUP, DataStream, DefaultStream, default_streams};
pub use time::{NetworkTime, SensorPeriod, SensorPeriodError};
pub use validation::{Problem, Problems, Validate};
pub use zone::{
    DEFAULT_HYSTERESIS_MM, DwellMs, DwellOutOfRange, HysteresisMm, HysteresisOutOfRange,
    MAX_DWELL_MS, MAX_HYSTERESIS_MM, MAX_ZONE_FILTER, Zone, ZoneOccupant, ZonePolygon,
};
