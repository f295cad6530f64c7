//! System settings, by class, id and key. The configuration's own settings
//! are in class `system`, id 0; there the catalogue
//! ([`netcfg_model::default_settings`]) gives every known key a rule and a
//! default, and every catalogue key always has a value.
//!
//! The network mode is the `network_mode` setting of class `system`: the
//! configuration's network mode and that setting are one stored value, so
//! they cannot disagree.

use netcfg_model::{
    NetworkMode, Problems, SettingKey, SettingScope, SettingValue, SystemSetting,
    body::SettingsBody, default_setting, default_settings,
};
use rusqlite::{Connection, OptionalExtension, params};

use super::{Net, rf};
use crate::{
    error::{ConflictKind, Missing, StoreError},
    sql::{get, get_json},
};

/// The system setting that names the RF setting the network runs with (the
/// RF setting "in use"); `default` when absent.
pub const ACTIVE_RF_SETTING_KEY: &str = "rf_setting";

/// How [`Net::write_settings`] treats keys that exist or do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingWrite {
    /// Every key must be new (`POST`): an existing key is a conflict.
    Create,
    /// Every key must exist (`PATCH`): a missing key is not found.
    Update,
    /// Create or change each key.
    Upsert,
}

/// What deleting a setting did.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingDeletion {
    /// The setting is gone.
    Deleted,
    /// A catalogue setting of class `system` was reset to its default.
    Reset(SystemSetting),
}

fn read_setting(row: &rusqlite::Row<'_>) -> rusqlite::Result<SystemSetting> {
    Ok(SystemSetting {
        setting_class: get::<SettingKey, String>(row, 0)?,
        setting_id: row.get(1)?,
        setting_key: get::<SettingKey, String>(row, 2)?,
        value: get_json(row, 3)?,
    })
}

const COLUMNS: &str = "setting_class, setting_id, setting_key, value";

/// The settings of `scope`, or of every scope, sorted.
pub(super) fn list(
    conn: &Connection,
    scope: Option<&SettingScope>,
) -> Result<Vec<SystemSetting>, StoreError> {
    let rows = match scope {
        Some(scope) => conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM settings WHERE setting_class = ?1 AND setting_id = ?2
                 ORDER BY setting_key"
            ))?
            .query_map(params![scope.class.as_str(), scope.id], read_setting)?
            .collect::<rusqlite::Result<_>>()?,
        None => conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM settings ORDER BY setting_class, setting_id, setting_key"
            ))?
            .query_map([], read_setting)?
            .collect::<rusqlite::Result<_>>()?,
    };
    Ok(rows)
}

fn find(
    conn: &Connection,
    scope: &SettingScope,
    key: &str,
) -> Result<Option<SystemSetting>, StoreError> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM settings WHERE setting_class = ?1 AND setting_id = ?2 AND setting_key = ?3"
    ))?;
    Ok(statement
        .query_row(params![scope.class.as_str(), scope.id, key], read_setting)
        .optional()?)
}

fn put(
    conn: &Connection,
    scope: &SettingScope,
    key: &SettingKey,
    value: &SettingValue,
) -> Result<SystemSetting, StoreError> {
    let text = serde_json::to_string(value)
        .map_err(|error| StoreError::invalid(key.as_str(), error.to_string()))?;
    conn.prepare_cached(&format!(
        "INSERT INTO settings ({COLUMNS}) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (setting_class, setting_id, setting_key) DO UPDATE SET value = excluded.value"
    ))?
    .execute(params![scope.class.as_str(), scope.id, key.as_str(), text])?;
    Ok(SystemSetting {
        setting_key: key.clone(),
        value: value.clone(),
        setting_class: scope.class.clone(),
        setting_id: scope.id,
    })
}

/// Records why `value` does not suit `key` in `scope`, if it does not.
fn check_value(
    conn: &Connection,
    scope: &SettingScope,
    key: &SettingKey,
    value: &SettingValue,
    problems: &mut Problems,
) -> Result<(), StoreError> {
    if !scope.is_system() {
        return Ok(());
    }
    if let Some(known) = default_setting(key) {
        known.check(value, key, problems);
    }
    if key.as_str() == ACTIVE_RF_SETTING_KEY {
        match value {
            SettingValue::Text(name) if rf::find(conn, name)?.is_some() => {}
            _ => problems.push(
                key.as_str(),
                "`rf_setting` takes the name of an RF setting of this configuration",
            ),
        }
    }
    Ok(())
}

/// Gives every catalogue setting of class `system` its default value.
pub(super) fn reset_catalogue(conn: &Connection) -> Result<(), StoreError> {
    let scope = SettingScope::system();
    for setting in default_settings() {
        put(conn, &scope, &setting.setting_key, &setting.default_value)?;
    }
    Ok(())
}

/// The network mode: the `network_mode` system setting.
pub(super) fn network_mode(conn: &Connection) -> Result<NetworkMode, StoreError> {
    match find(conn, &SettingScope::system(), "network_mode")? {
        Some(SystemSetting {
            value: SettingValue::Text(text),
            ..
        }) => text
            .parse()
            .map_err(|error: netcfg_model::UnknownNetworkMode| {
                StoreError::io_message("reading the network mode", error.to_string())
            }),
        Some(_) => Err(StoreError::io_message(
            "reading the network mode",
            "the network_mode setting is not text",
        )),
        None => Ok(NetworkMode::default()),
    }
}

/// The name of the RF setting in use.
pub(super) fn active_rf_setting_name(conn: &Connection) -> Result<String, StoreError> {
    match find(conn, &SettingScope::system(), ACTIVE_RF_SETTING_KEY)? {
        Some(SystemSetting {
            value: SettingValue::Text(name),
            ..
        }) => Ok(name),
        _ => Ok(netcfg_model::RfSetting::DEFAULT_NAME.to_owned()),
    }
}

fn network_mode_key() -> SettingKey {
    "network_mode"
        .parse()
        .unwrap_or_else(|_| unreachable!("`network_mode` is a valid setting key"))
}

impl Net {
    /// One setting.
    pub fn setting(
        &self,
        scope: SettingScope,
        key: SettingKey,
    ) -> Result<SystemSetting, StoreError> {
        self.db.read(move |conn| {
            find(conn, &scope, &key)?
                .ok_or_else(|| StoreError::not_found(Missing::Setting, scope.describe(&key)))
        })
    }

    /// The settings of one scope, or of every scope (`None`), sorted.
    pub fn settings(&self, scope: Option<SettingScope>) -> Result<Vec<SystemSetting>, StoreError> {
        self.db.read(move |conn| list(conn, scope.as_ref()))
    }

    /// Writes the body's settings, all or nothing: every value is checked
    /// (catalogue rules and `rf_setting` in class `system`) and every key
    /// against `mode` before anything is written. Returns the written settings
    /// in the body's order.
    pub fn write_settings(
        &self,
        scope: SettingScope,
        body: SettingsBody,
        mode: SettingWrite,
    ) -> Result<Vec<SystemSetting>, StoreError> {
        self.db.write(move |conn| {
            let mut problems = Problems::new();
            let mut missing = Vec::new();
            let mut taken = Vec::new();
            for (key, value) in &body.settings {
                check_value(conn, &scope, key, value, &mut problems)?;
                let exists = find(conn, &scope, key)?.is_some();
                match mode {
                    SettingWrite::Create if exists => taken.push(key.to_string()),
                    SettingWrite::Update if !exists => missing.push(key.to_string()),
                    _ => {}
                }
            }
            if !problems.is_empty() {
                return Err(StoreError::Invalid(problems));
            }
            if !missing.is_empty() {
                return Err(StoreError::not_found(
                    Missing::Setting,
                    scope.describe(&missing.join(", ")),
                ));
            }
            if !taken.is_empty() {
                return Err(StoreError::conflict(
                    ConflictKind::Taken,
                    scope.describe(&taken.join(", ")),
                    "the setting exists already",
                ));
            }
            body.settings
                .iter()
                .map(|(key, value)| put(conn, &scope, key, value))
                .collect()
        })
    }

    /// Replaces every setting of the scope by the body's (`PUT`). In class
    /// `system`, catalogue keys the body leaves out return to their defaults.
    /// Returns the scope's settings afterwards.
    pub fn replace_settings(
        &self,
        scope: SettingScope,
        body: SettingsBody,
    ) -> Result<Vec<SystemSetting>, StoreError> {
        self.db.write(move |conn| {
            conn.execute(
                "DELETE FROM settings WHERE setting_class = ?1 AND setting_id = ?2",
                params![scope.class.as_str(), scope.id],
            )?;
            if scope.is_system() {
                reset_catalogue(conn)?;
            }
            let mut problems = Problems::new();
            for (key, value) in &body.settings {
                check_value(conn, &scope, key, value, &mut problems)?;
            }
            if !problems.is_empty() {
                return Err(StoreError::Invalid(problems));
            }
            for (key, value) in &body.settings {
                put(conn, &scope, key, value)?;
            }
            list(conn, Some(&scope))
        })
    }

    /// Deletes a setting. A catalogue setting of class `system` is reset to
    /// its default instead (so `network_mode` always has a value).
    pub fn delete_setting(
        &self,
        scope: SettingScope,
        key: SettingKey,
    ) -> Result<SettingDeletion, StoreError> {
        self.db.write(move |conn| {
            if find(conn, &scope, &key)?.is_none() {
                return Err(StoreError::not_found(Missing::Setting, scope.describe(&key)));
            }
            if scope.is_system()
                && let Some(known) = default_setting(&key)
            {
                return Ok(SettingDeletion::Reset(put(
                    conn,
                    &scope,
                    &key,
                    &known.default_value,
                )?));
            }
            conn.execute(
                "DELETE FROM settings WHERE setting_class = ?1 AND setting_id = ?2 AND setting_key = ?3",
                params![scope.class.as_str(), scope.id, key.as_str()],
            )?;
            Ok(SettingDeletion::Deleted)
        })
    }

    /// The network mode.
    pub fn network_mode(&self) -> Result<NetworkMode, StoreError> {
        self.db.read(network_mode)
    }

    /// Changes the network mode (the same stored value as the `network_mode`
    /// setting).
    pub fn set_network_mode(&self, mode: NetworkMode) -> Result<NetworkMode, StoreError> {
        self.db.write(move |conn| {
            put(
                conn,
                &SettingScope::system(),
                &network_mode_key(),
                &SettingValue::Text(mode.as_str().to_owned()),
            )?;
            Ok(mode)
        })
    }
}
