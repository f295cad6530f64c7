//! Request bodies: one type for each body of the seed's body table, with the
//! seed's field names.
//!
//! Every body implements [`FromJson`](crate::FromJson) (and `Deserialize`
//! through it), so reading one reports every problem at once: missing
//! required fields, fields of the wrong type, values out of range, unknown
//! fields, and the rules that join several fields. PATCH bodies that must hold
//! at least one field say so when they hold none, and `apply` their fields to
//! the resource they change.

mod alert_rule;
mod calculate;
mod device;
mod misc;
mod net;
mod output;
mod pair;
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
pub use net::{ActionBody, NetworkBody};
pub use output::{OutputPatchBody, OutputPostBody};
pub use pair::{DevicePairsBody, PairBody};
pub use position_limit::{PositionLimitsPatchBody, PositionLimitsPostBody};
pub use recording::{RecordingPostBody, ReplayPatchBody};
pub use rf::{RfSettingsPatchBody, RfSettingsPostBody};
pub use role::{RolePatchBody, RolePostBody};
pub use schedule::{SchedulePatchBody, SchedulePostBody};
pub use setting::SettingsBody;
pub use stream::DataStreamBody;
pub use v5_0::{EngineCommand, EngineCommandBody, InterfaceRef, PairedInterfaceBody};
pub use zone::{ZonePatchBody, ZonePostBody};

/// Declares the `FromJson` and `Deserialize` of a body struct whose fields
/// are all read the same way: `required` or `optional` leaves.
///
/// `check` names a function that adds the rules joining several fields
/// (called only when every field was read); `none` uses none.
macro_rules! plain_body {
    ($body:ident { $($kind:ident $field:ident),+ $(,)? } at_least_one: $at_least_one:literal, check: $check:expr) => {
        impl $crate::json::FromJson for $body {
            fn from_json_at(
                value: &serde_json::Value,
                path: &str,
                problems: &mut $crate::validation::Problems,
            ) -> Option<Self> {
                let mut fields = $crate::json::Fields::open(value, path, problems)?;
                $( let $field = $crate::body::plain_body!(@read $kind fields $field problems); )+
                if $at_least_one && fields.present_count() == 0 {
                    let names: &[&str] = &[$(stringify!($field)),+];
                    problems.push(path, format!("at least one field must be given: {}", names.join(", ")));
                }
                let clean = fields.finish(problems);
                let body = Self { $( $field: $crate::body::plain_body!(@unwrap $kind $field) ),+ };
                let check: fn(&Self, &str, &mut $crate::validation::Problems) = $check;
                let mut found = $crate::validation::Problems::new();
                check(&body, path, &mut found);
                let clean = clean && found.is_empty();
                problems.extend(found);
                clean.then_some(body)
            }
        }
        $crate::json::deserialize_via_from_json!($body);
    };
    (@read required $fields:ident $field:ident $problems:ident) => { $fields.required(stringify!($field), $problems) };
    (@read optional $fields:ident $field:ident $problems:ident) => { $fields.optional(stringify!($field), $problems) };
    (@unwrap required $field:ident) => { $field? };
    (@unwrap optional $field:ident) => { $field };
}
pub(crate) use plain_body;

/// The rule check of a body that has no rule joining fields.
pub(crate) fn no_check<T>(_: &T, _: &str, _: &mut crate::validation::Problems) {}
