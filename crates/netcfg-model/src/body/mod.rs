//! Request bodies: one type for each body of the seed's body table, with the
//! seed's field names.
//!
//! Every body implements [`FromJson`](crate::FromJson) (and `Deserialize`
//! through it), so reading one reports every problem at once: missing
//! required fields, fields of the wrong type, values out of range, unknown
//! fields, and the rules that join several fields. PATCH bodies that must hold
//! at least one field say so when they hold none, and `apply` their fields to
//! the resource they change.
//!
//! A body is its struct: `#[request_body]` (crate `netcfg-model-derive`)
//! reads each field as its type says (`T` required, `Option<T>` optional,
//! `Option<Option<T>>` cleared by `null`) and gives the `Option` fields
//! their serde and schema attributes, so a new field is one line. Bodies
//! whose shape depends on a value (`ActionBody`, `SettingsBody`,
//! `MultiDeviceCommandBody`, `DevicesPatchBody`) read themselves.

mod alert_rule;
mod calculate;
mod device;
mod misc;
mod net;
mod output;
mod pair;
mod people;
mod position_limit;
mod recording;
mod rf;
mod role;
mod schedule;
mod setting;
mod stream;
mod v5_0;
mod zone;

pub use alert_rule::{AlertRulePatchBody, AlertRulePostBody};
pub use calculate::{
    CalculateMaximumTagsBody, CalculateMaximumTagsParameterizedBody, MAX_FRAME_BYTES,
};
pub use device::{
    DeviceBody, DeviceSelection, DevicesPatchBody, MultiDeviceCommandBody,
    MultipleDeviceDeleteBody, MultipleDevicePatchBody,
};
pub use misc::{
    GroupImagePatchBody, MagnetometerCalibrationBody, NotificationPatchBody, OperatingModePatchBody,
};
pub use net::{ActionBody, ActionBodyV5_0, NetworkBody};
pub use output::{OutputPatchBody, OutputPostBody};
pub use pair::{DevicePairsBody, PairBody};
pub use people::{ApiKeyPostBody, OidcCallbackBody, SessionPostBody, UserPatchBody, UserPostBody};
pub use position_limit::{PositionLimitsPatchBody, PositionLimitsPostBody};
pub use recording::{RecordingPostBody, ReplayPatchBody};
pub use rf::{RfSettingsPatchBody, RfSettingsPostBody};
pub use role::{RolePatchBody, RolePostBody};
pub use schedule::{SchedulePatchBody, SchedulePostBody};
pub use setting::SettingsBody;
pub use stream::DataStreamBody;
pub use v5_0::{EngineCommand, EngineCommandBody, InterfaceRef, PairedInterfaceBody};
pub use zone::{ZonePatchBody, ZonePostBody};

#[cfg(test)]
mod tests;
