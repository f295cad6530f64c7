//! RF settings, by name. `default` always exists. The RF setting "in use" is
//! the one the configuration's network runs with: the one the system setting
//! [`ACTIVE_RF_SETTING_KEY`](super::ACTIVE_RF_SETTING_KEY) names, or
//! `default` when that setting is absent. It cannot be deleted.

use netcfg_model::{
    ItemName, RfSetting, Validate,
    body::{RfSettingsPatchBody, RfSettingsPostBody},
};
use rusqlite::{Connection, params};

use super::{Net, settings};
use crate::{
    error::{ConflictKind, Missing, StoreError},
    sql::{self, get},
};

const COLUMNS: &str = "name, bit_rate, channel, preamble_code, preamble_length, prf";

fn read_setting(row: &rusqlite::Row<'_>) -> rusqlite::Result<RfSetting> {
    Ok(RfSetting {
        name: get::<ItemName, String>(row, 0)?,
        bit_rate: get::<_, u32>(row, 1)?,
        channel: get::<_, u32>(row, 2)?,
        preamble_code: get::<_, u32>(row, 3)?,
        preamble_length: get::<_, u32>(row, 4)?,
        prf: get::<_, u32>(row, 5)?,
    })
}

/// The RF setting `name`, if it exists.
pub(super) fn find(conn: &Connection, name: &str) -> Result<Option<RfSetting>, StoreError> {
    sql::find_named(conn, "rf_settings", COLUMNS, name, read_setting)
}

fn require(conn: &Connection, name: &str) -> Result<RfSetting, StoreError> {
    find(conn, name)?
        .ok_or_else(|| StoreError::not_found(Missing::RfSetting, format!("RF setting {name}")))
}

/// Every RF setting, by name.
pub(super) fn list(conn: &Connection) -> Result<Vec<RfSetting>, StoreError> {
    sql::list_by_name(conn, "rf_settings", COLUMNS, read_setting)
}

/// Writes an RF setting (insert, or update the one with that name).
pub(super) fn insert(conn: &Connection, setting: &RfSetting) -> Result<(), StoreError> {
    conn.prepare_cached(&format!(
        "INSERT INTO rf_settings ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (name) DO UPDATE SET bit_rate = excluded.bit_rate, channel = excluded.channel,
            preamble_code = excluded.preamble_code, preamble_length = excluded.preamble_length,
            prf = excluded.prf"
    ))?
    .execute(params![
        setting.name.as_str(),
        setting.bit_rate.value(),
        setting.channel.value(),
        setting.preamble_code.value(),
        setting.preamble_length.value(),
        setting.prf.value(),
    ])?;
    Ok(())
}

impl Net {
    /// Creates an RF setting; a name already used is a conflict.
    pub fn create_rf_setting(&self, body: RfSettingsPostBody) -> Result<RfSetting, StoreError> {
        self.db.write(move |conn| {
            let setting = body.into_setting();
            setting.validate().map_err(StoreError::Invalid)?;
            if find(conn, &setting.name)?.is_some() {
                return Err(StoreError::conflict(
                    ConflictKind::Taken,
                    format!("RF setting {}", setting.name),
                    "an RF setting with this name exists",
                ));
            }
            insert(conn, &setting)?;
            Ok(setting)
        })
    }

    /// One RF setting.
    pub fn rf_setting(&self, name: &str) -> Result<RfSetting, StoreError> {
        let name = name.to_owned();
        self.db.read(move |conn| require(conn, &name))
    }

    /// Every RF setting, by name.
    pub fn rf_settings(&self) -> Result<Vec<RfSetting>, StoreError> {
        self.db.read(list)
    }

    /// The RF setting in use: the one the network runs with.
    pub fn active_rf_setting(&self) -> Result<RfSetting, StoreError> {
        self.db.read(|conn| {
            let name = settings::active_rf_setting_name(conn)?;
            require(conn, &name)
        })
    }

    /// Changes an RF setting; the preamble code must still suit the channel
    /// and PRF afterwards.
    pub fn patch_rf_setting(
        &self,
        name: &str,
        body: RfSettingsPatchBody,
    ) -> Result<RfSetting, StoreError> {
        let name = name.to_owned();
        self.db.write(move |conn| {
            let mut setting = require(conn, &name)?;
            body.apply(&mut setting);
            setting.validate().map_err(StoreError::Invalid)?;
            insert(conn, &setting)?;
            Ok(setting)
        })
    }

    /// Deletes an RF setting: not `default`, not the one in use.
    pub fn delete_rf_setting(&self, name: &str) -> Result<(), StoreError> {
        let name = name.to_owned();
        self.db.write(move |conn| {
            require(conn, &name)?;
            if name == RfSetting::DEFAULT_NAME {
                return Err(StoreError::conflict(
                    ConflictKind::BuiltIn,
                    format!("RF setting {name}"),
                    "the default RF setting cannot be deleted",
                ));
            }
            if settings::active_rf_setting_name(conn)? == name {
                return Err(StoreError::conflict(
                    ConflictKind::InUse,
                    format!("RF setting {name}"),
                    "it is in use: the system setting rf_setting names it",
                ));
            }
            conn.execute("DELETE FROM rf_settings WHERE name = ?1", [&name])?;
            Ok(())
        })
    }
}
