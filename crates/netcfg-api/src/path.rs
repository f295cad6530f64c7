//! Typed path parameters: one type per route shape, extracted once before
//! the handler runs, so a handler never looks a parameter up by name.
//!
//! Each type lists its parameters (name and schema); the table checks, when
//! it is built, that every path of a route has exactly the parameters of its
//! handler's type, and the OpenAPI document describes each parameter from
//! its type. A malformed value is a 400 (`invalid_parameter`) that lists
//! every bad parameter by name.

use std::{fmt::Display, str::FromStr};

use actix_web::HttpRequest;
use netcfg_model::{
    ConfigName, DeviceKey, ItemName, KeyName, LogFileName, PairType, PositionLimitKey,
    RecordingName, RoleId, SerialNumber, SettingKey, SettingScope, UserName, body::InterfaceRef,
};
use serde_json::{Value, json};

use crate::reply::{ApiError, FieldProblem};

/// A value a path segment holds: parsed with `FromStr`, described by a
/// JSON schema.
pub trait PathValue: FromStr<Err: Display> {
    /// The schema of the parameter in the OpenAPI document.
    fn schema() -> Value;
}

/// One parameter of a path type.
#[derive(Debug, Clone, Copy)]
pub struct PathParameter {
    /// Its name in the path pattern (`{net_name}`).
    pub name: &'static str,
    /// Its schema.
    pub schema: fn() -> Value,
}

/// The parameters of a route's paths, as one value.
pub trait PathParams: Sized + 'static {
    /// The sets of parameters a path of the route may have: one for most
    /// types; several for a type that accepts alternatives (`/settings` and
    /// `/settings/{setting_class}/{setting_id}`).
    fn shapes() -> Vec<&'static [PathParameter]>;

    /// Reads the parameters of a matched request: every malformed one is a
    /// problem of one 400.
    fn extract(request: &HttpRequest) -> Result<Self, ApiError>;
}

/// Parses one parameter, recording a problem when it is malformed.
fn parse<T: PathValue>(
    request: &HttpRequest,
    name: &'static str,
    problems: &mut Vec<FieldProblem>,
) -> Option<T> {
    // The table checked that the path has this parameter; an absent one
    // reads as empty, which no parameter type accepts.
    let text = request.match_info().get(name).unwrap_or("");
    match text.parse::<T>() {
        Ok(value) => Some(value),
        Err(error) => {
            problems.push(FieldProblem {
                field: name.to_owned(),
                problem: error.to_string(),
            });
            None
        }
    }
}

macro_rules! path_types {
    ($(
        $(#[$doc:meta])*
        $name:ident { $($field:ident: $type:ty),* $(,)? }
    )+) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub(crate) struct $name {
            $(pub(crate) $field: $type,)*
        }

        impl $name {
            /// Its parameters, in path order.
            pub(crate) const PARAMETERS: &'static [PathParameter] = &[$(PathParameter {
                name: stringify!($field),
                schema: <$type as PathValue>::schema,
            },)*];
        }

        impl PathParams for $name {
            fn shapes() -> Vec<&'static [PathParameter]> {
                vec![Self::PARAMETERS]
            }

            #[allow(unused_variables, unused_mut)]
            fn extract(request: &HttpRequest) -> Result<Self, ApiError> {
                let mut problems = Vec::new();
                $(let $field = parse::<$type>(request, stringify!($field), &mut problems);)*
                match ($($field,)*) {
                    ($(Some($field),)*) => Ok(Self { $($field,)* }),
                    #[allow(unreachable_patterns)]
                    _ => Err(ApiError::parameters(problems)),
                }
            }
        }
    )+};
}

/// Routes whose paths have no parameter.
#[derive(Debug, Clone, Copy)]
pub struct NoPath;

impl PathParams for NoPath {
    fn shapes() -> Vec<&'static [PathParameter]> {
        vec![&[]]
    }
    fn extract(_: &HttpRequest) -> Result<Self, ApiError> {
        Ok(Self)
    }
}

path_types! {
    /// `/nets/{net_name}/...`, `/cache-manager/{net_name}`.
    NetPath { net_name: ConfigName }
    /// One device: `.../devices/{device_key}`, `/cache-manager/{net_name}/{device_key}`.
    DevicePath { net_name: ConfigName, device_key: DeviceKey }
    /// One interface of a device.
    InterfacePath { net_name: ConfigName, device_key: DeviceKey, interface_identifier: u8 }
    /// A role of one interface (5.0).
    InterfaceRolePath { net_name: ConfigName, device_key: DeviceKey, interface_identifier: u8, role_id: u32 }
    /// The pairs of one interface of one type (5.0).
    PairedInterfacesPath { net_name: ConfigName, device_key: DeviceKey, interface_identifier: u8, _type: PairType }
    /// One pair of one interface (5.0).
    PairedInterfacePath { net_name: ConfigName, device_key: DeviceKey, interface_identifier: u8, _type: PairType, interface: InterfaceRef }
    /// The pairs of one device, by serial number.
    DevicePairsPath { net_name: ConfigName, serial_number: SerialNumber }
    /// An item by numeric id: a data stream, a position limit (5.1).
    IdPath { net_name: ConfigName, id: u32 }
    /// An item by name: an RF setting, a position limit (5.0).
    NamePath { net_name: ConfigName, name: ItemName }
    /// One alert rule: `.../alert_rules/{rule_name}`.
    AlertRulePath { net_name: ConfigName, rule_name: ItemName }
    /// One schedule: `.../schedules/{schedule_name}`.
    SchedulePath { net_name: ConfigName, schedule_name: ItemName }
    /// One zone: `.../zones/{zone_name}`.
    ZonePath { net_name: ConfigName, zone_name: ItemName }
    /// One recording: `.../recordings/{recording_name}`.
    RecordingPath { net_name: ConfigName, recording_name: RecordingName }
    /// One output: `.../outputs/{output_name}`.
    OutputPath { net_name: ConfigName, output_name: ItemName }
    /// A role.
    RolePath { net_name: ConfigName, role_id: u32 }
    /// A notification.
    NotificationPath { net_name: ConfigName, identifier: u64 }
    /// A change of the configuration's history.
    HistoryPath { net_name: ConfigName, id: u64 }
    /// A log file.
    LogFilePath { net_name: ConfigName, log_file_name: LogFileName }
    /// A setting of the configuration's own scope.
    SettingPath { net_name: ConfigName, key: SettingKey }
    /// The settings of one scope.
    ScopePath { net_name: ConfigName, setting_class: SettingKey, setting_id: u32 }
    /// A setting of one scope.
    ScopedSettingPath { net_name: ConfigName, setting_class: SettingKey, setting_id: u32, key: SettingKey }
    /// A default setting of the catalogue.
    DefaultSettingPath { key: SettingKey }
    /// A user: `/users/{user_name}`.
    UserPath { user_name: UserName }
    /// One of a user's API keys.
    ApiKeyPath { user_name: UserName, key_name: KeyName }
}

/// Settings of the configuration's own scope (`/settings`), or of a named
/// one (`/settings/{setting_class}/{setting_id}`): the two paths of one row.
#[derive(Debug, Clone)]
pub(crate) enum SettingsScopePath {
    /// `/settings`.
    Own(NetPath),
    /// `/settings/{setting_class}/{setting_id}`.
    Scoped(ScopePath),
}

impl PathParams for SettingsScopePath {
    fn shapes() -> Vec<&'static [PathParameter]> {
        vec![NetPath::PARAMETERS, ScopePath::PARAMETERS]
    }
    fn extract(request: &HttpRequest) -> Result<Self, ApiError> {
        if request.match_info().get("setting_class").is_some() {
            ScopePath::extract(request).map(Self::Scoped)
        } else {
            NetPath::extract(request).map(Self::Own)
        }
    }
}

/// One setting of the configuration's own scope (`/settings/{key}`), or of
/// a named one: the two paths of one row.
#[derive(Debug, Clone)]
pub(crate) enum SettingKeyPath {
    /// `/settings/{key}`.
    Own(SettingPath),
    /// `/settings/{setting_class}/{setting_id}/{key}`.
    Scoped(ScopedSettingPath),
}

impl PathParams for SettingKeyPath {
    fn shapes() -> Vec<&'static [PathParameter]> {
        vec![SettingPath::PARAMETERS, ScopedSettingPath::PARAMETERS]
    }
    fn extract(request: &HttpRequest) -> Result<Self, ApiError> {
        if request.match_info().get("setting_class").is_some() {
            ScopedSettingPath::extract(request).map(Self::Scoped)
        } else {
            SettingPath::extract(request).map(Self::Own)
        }
    }
}

impl SettingsScopePath {
    /// The configuration.
    pub(crate) fn net_name(&self) -> &ConfigName {
        match self {
            Self::Own(path) => &path.net_name,
            Self::Scoped(path) => &path.net_name,
        }
    }

    /// The scope the path names; `None` for `/settings` (every scope, when
    /// listing).
    pub(crate) fn named_scope(&self) -> Option<SettingScope> {
        match self {
            Self::Own(_) => None,
            Self::Scoped(path) => Some(SettingScope {
                class: path.setting_class.clone(),
                id: path.setting_id,
            }),
        }
    }

    /// The scope written to: the named one, or the configuration's own.
    pub(crate) fn scope(&self) -> SettingScope {
        self.named_scope().unwrap_or_else(SettingScope::system)
    }
}

impl SettingKeyPath {
    /// The configuration.
    pub(crate) fn net_name(&self) -> &ConfigName {
        match self {
            Self::Own(path) => &path.net_name,
            Self::Scoped(path) => &path.net_name,
        }
    }

    /// The setting's scope and key.
    pub(crate) fn setting(&self) -> (SettingScope, SettingKey) {
        match self {
            Self::Own(path) => (SettingScope::system(), path.key.clone()),
            Self::Scoped(path) => (
                SettingScope {
                    class: path.setting_class.clone(),
                    id: path.setting_id,
                },
                path.key.clone(),
            ),
        }
    }
}

impl InterfaceRolePath {
    /// The role the path names.
    pub(crate) fn role(&self) -> RoleId {
        RoleId(self.role_id)
    }
}

impl RolePath {
    /// The role the path names.
    pub(crate) fn role(&self) -> RoleId {
        RoleId(self.role_id)
    }
}

/// A path that names one position limit: by id (5.1) or by name (5.0).
pub(crate) trait LimitPath: PathParams {
    /// The configuration.
    fn net_name(&self) -> &ConfigName;
    /// The limit.
    fn limit(&self) -> PositionLimitKey;
}

impl LimitPath for IdPath {
    fn net_name(&self) -> &ConfigName {
        &self.net_name
    }
    fn limit(&self) -> PositionLimitKey {
        PositionLimitKey::Id(self.id)
    }
}

impl LimitPath for NamePath {
    fn net_name(&self) -> &ConfigName {
        &self.net_name
    }
    fn limit(&self) -> PositionLimitKey {
        PositionLimitKey::Name(self.name.clone())
    }
}

const SERIAL_PATTERN: &str = "[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8}";

impl PathValue for ConfigName {
    fn schema() -> Value {
        json!({"type": "string", "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$"})
    }
}

impl PathValue for UserName {
    fn schema() -> Value {
        json!({"type": "string", "pattern": "^[a-z0-9][a-z0-9._-]{0,63}$"})
    }
}

impl PathValue for KeyName {
    fn schema() -> Value {
        json!({"type": "string", "pattern": "^[a-z0-9][a-z0-9._-]{0,63}$"})
    }
}

impl PathValue for RecordingName {
    fn schema() -> Value {
        json!({"type": "string", "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$"})
    }
}

impl PathValue for DeviceKey {
    fn schema() -> Value {
        json!({
            "type": "string",
            "description": "A serial number (XX:XX:XXXX) or an integer device id.",
            "pattern": format!("^({SERIAL_PATTERN}|[1-9][0-9]{{0,6}})$")
        })
    }
}

impl PathValue for SerialNumber {
    fn schema() -> Value {
        json!({"type": "string", "pattern": format!("^({SERIAL_PATTERN})$")})
    }
}

impl PathValue for u8 {
    fn schema() -> Value {
        json!({"type": "integer", "minimum": 0, "maximum": u8::MAX})
    }
}

impl PathValue for u32 {
    fn schema() -> Value {
        json!({"type": "integer", "minimum": 0, "maximum": u32::MAX})
    }
}

impl PathValue for u64 {
    fn schema() -> Value {
        json!({"type": "integer", "minimum": 0, "maximum": u64::MAX})
    }
}

impl PathValue for SettingKey {
    fn schema() -> Value {
        json!({"type": "string", "pattern": "^[A-Za-z0-9._-]{1,64}$"})
    }
}

impl PathValue for LogFileName {
    fn schema() -> Value {
        json!({"type": "string", "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$"})
    }
}

impl PathValue for PairType {
    fn schema() -> Value {
        json!({"type": "string", "enum": ["twr", "blacklist"]})
    }
}

impl PathValue for InterfaceRef {
    fn schema() -> Value {
        json!({
            "type": "string",
            "description": "<serial_number>-<interface_identifier>",
            "pattern": format!("^({SERIAL_PATTERN})-(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$")
        })
    }
}

impl PathValue for ItemName {
    fn schema() -> Value {
        json!({
            "type": "string", "minLength": 1, "maxLength": 64,
            "pattern": "^[^\\s\\x00-\\x1f\\x7f-\\x9f]([^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f])?$"
        })
    }
}
