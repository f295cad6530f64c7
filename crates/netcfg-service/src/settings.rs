//! System settings, by class and id. A running network cannot take a change
//! of its network mode or RF setting: those writes are refused while it
//! runs.

use netcfg_model::{
    ConfigName, SYSTEM_CLASS, SettingKey, SettingScope, SystemSetting, body::SettingsBody,
    default_setting,
};
use netcfg_store::{SettingDeletion, SettingWrite};

use crate::{Service, ServiceError, Write};

/// Keys a running network cannot take a change of.
const RUNNING_KEYS: [&str; 2] = ["network_mode", "rf_setting"];

impl Service {
    /// A conflict when the body changes what a running network cannot take.
    fn check_running(
        &self,
        name: &ConfigName,
        scope: &SettingScope,
        body: &SettingsBody,
    ) -> Result<(), ServiceError> {
        let touches = scope.class.as_str() == SYSTEM_CLASS
            && body
                .settings
                .iter()
                .any(|(key, _)| RUNNING_KEYS.contains(&key.as_str()));
        if touches {
            self.require_stopped(name, "network mode or RF setting")?;
        }
        Ok(())
    }

    /// Creates (`SettingWrite::Create`), updates or upserts the body's
    /// settings of `scope`: the settings written.
    pub async fn write_settings(
        &self,
        name: &ConfigName,
        scope: SettingScope,
        body: SettingsBody,
        mode: SettingWrite,
        write: Write,
    ) -> Result<Vec<SystemSetting>, ServiceError> {
        self.check_running(name, &scope, &body)?;
        self.change(name, write, move |net| {
            net.write_settings(scope, body, mode)
        })
        .await
    }

    /// Replaces the settings of `scope` with the body's: the system keys it
    /// leaves out go back to their defaults, which a running network cannot
    /// take for its network mode or RF setting either. The check of what is
    /// stored and the replacement are one change.
    pub async fn replace_settings(
        &self,
        name: &ConfigName,
        scope: SettingScope,
        body: SettingsBody,
        write: Write,
    ) -> Result<Vec<SystemSetting>, ServiceError> {
        self.check_running(name, &scope, &body)?;
        let guard_omitted = scope.class.as_str() == SYSTEM_CLASS && self.is_running(name);
        let outcome = self
            .change(name, write, move |net| {
                if guard_omitted {
                    let current = net.settings(Some(SettingScope::system()))?;
                    for key in RUNNING_KEYS {
                        let default = default_setting(key).map(|setting| setting.default_value);
                        let value = current
                            .iter()
                            .find(|setting| setting.setting_key.as_str() == key)
                            .map(|setting| setting.value.clone());
                        if value.is_some() && value != default {
                            return Ok(Err(key));
                        }
                    }
                }
                net.replace_settings(scope, body).map(Ok)
            })
            .await?;
        outcome.map_err(|key| {
            ServiceError::Running(format!(
                "setting {key}: the configuration is running and PUT would reset it to its default; \
                 stop the configuration first"
            ))
        })
    }

    /// One setting.
    pub async fn setting(
        &self,
        name: &ConfigName,
        scope: SettingScope,
        key: SettingKey,
    ) -> Result<SystemSetting, ServiceError> {
        self.read(name, move |net| net.setting(scope, key)).await
    }

    /// The settings of `scope`, or every setting.
    pub async fn settings(
        &self,
        name: &ConfigName,
        scope: Option<SettingScope>,
    ) -> Result<Vec<SystemSetting>, ServiceError> {
        self.read(name, move |net| net.settings(scope)).await
    }

    /// Deletes a setting; a known system setting is reset to its default.
    pub async fn delete_setting(
        &self,
        name: &ConfigName,
        scope: SettingScope,
        key: SettingKey,
        write: Write,
    ) -> Result<SettingDeletion, ServiceError> {
        if scope.class.as_str() == SYSTEM_CLASS && RUNNING_KEYS.contains(&key.as_str()) {
            self.require_stopped(name, "network mode or RF setting")?;
        }
        self.change(name, write, move |net| net.delete_setting(scope, key))
            .await
    }
}
