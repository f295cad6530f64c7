//! System settings (by key, or by class and id) and the catalogue of known
//! settings with their defaults.

use netcfg_model::{body::SettingsBody, default_setting, default_settings};
use netcfg_store::{SettingDeletion, SettingScope, SettingWrite};

use super::{change, count, is_running, net, require_stopped};
use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::{DefaultSettingPath, NoPath, SettingKeyPath, SettingsScopePath},
    reply::{ApiError, Reply},
    wire::OneOrMany,
};

/// Keys a running network cannot take a change of.
const RUNNING_KEYS: [&str; 2] = ["network_mode", "rf_setting"];

/// A 409 when the body changes what a running network cannot take.
fn check_running(
    context: &Ctx,
    name: &netcfg_model::ConfigName,
    scope: &SettingScope,
    body: &SettingsBody,
) -> Result<(), ApiError> {
    let touches = scope.class.as_str() == netcfg_model::SYSTEM_CLASS
        && body
            .settings
            .iter()
            .any(|(key, _)| RUNNING_KEYS.contains(&key.as_str()));
    if touches {
        require_stopped(context, name, "network mode or RF setting")?;
    }
    Ok(())
}

async fn write(
    context: Ctx,
    path: SettingsScopePath,
    mode: SettingWrite,
) -> Result<(Vec<netcfg_model::SystemSetting>, usize), ApiError> {
    let scope = path.scope();
    let body: SettingsBody = context.body()?;
    check_running(&context, path.net_name(), &scope, &body)?;
    let given = body.settings.len();
    let settings = change(&context, path.net_name(), move |net| {
        net.write_settings(scope, body, mode)
    })
    .await?;
    Ok((settings, given))
}

pub(crate) async fn create(context: Ctx, path: SettingsScopePath) -> Result<Reply, ApiError> {
    let (mut settings, given) = write(context, path, SettingWrite::Create).await?;
    let message = format!("{} created", count(given, "setting"));
    if settings.len() == 1 {
        Reply::ok(message).with(&OneOrMany::One(settings.remove(0)))
    } else {
        Reply::ok(message).with(&OneOrMany::Many(settings))
    }
}

pub(crate) async fn patch(context: Ctx, path: SettingsScopePath) -> Result<Reply, ApiError> {
    let (settings, given) = write(context, path, SettingWrite::Update).await?;
    Reply::ok(format!("{} updated", count(given, "setting"))).with(&settings)
}

pub(crate) async fn put(context: Ctx, path: SettingsScopePath) -> Result<Reply, ApiError> {
    let scope = path.scope();
    let body: SettingsBody = context.body()?;
    check_running(&context, path.net_name(), &scope, &body)?;
    // PUT resets the system keys the body leaves out to their defaults: a
    // running network cannot take that for network_mode or rf_setting either.
    let guard_omitted =
        scope.class.as_str() == netcfg_model::SYSTEM_CLASS && is_running(&context, path.net_name());
    // One change: the check of what is stored and the replacement commit
    // together (and an If-Match is compared first).
    let outcome = change(&context, path.net_name(), move |net| {
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
    let settings = outcome.map_err(|key| {
        ApiError::new(
            ErrorCode::ConfigurationRunning,
            format!(
                "setting {key}: the configuration is running and PUT would reset it to its default; \
                 stop the configuration first"
            ),
        )
    })?;
    Reply::ok(format!(
        "Settings replaced; {} now",
        count(settings.len(), "setting")
    ))
    .with(&settings)
}

pub(crate) async fn get(context: Ctx, path: SettingKeyPath) -> Result<Reply, ApiError> {
    let (scope, key) = path.setting();
    let setting = net(&context, path.net_name(), move |net| {
        net.setting(scope, key)
    })
    .await?;
    Reply::ok(format!("Setting {}", setting.setting_key)).with(&setting)
}

pub(crate) async fn list(context: Ctx, path: SettingsScopePath) -> Result<Reply, ApiError> {
    let scope = path.named_scope();
    let settings = net(&context, path.net_name(), move |net| net.settings(scope)).await?;
    Reply::ok(count(settings.len(), "setting")).with(&settings)
}

pub(crate) async fn delete(context: Ctx, path: SettingKeyPath) -> Result<Reply, ApiError> {
    let (scope, key) = path.setting();
    if scope.class.as_str() == netcfg_model::SYSTEM_CLASS && RUNNING_KEYS.contains(&key.as_str()) {
        require_stopped(&context, path.net_name(), "network mode or RF setting")?;
    }
    let deletion = change(&context, path.net_name(), move |net| {
        net.delete_setting(scope, key)
    })
    .await?;
    let message = match deletion {
        SettingDeletion::Deleted => "Setting deleted".to_owned(),
        SettingDeletion::Reset(setting) => format!(
            "Setting {} is a known setting: reset to its default",
            setting.setting_key
        ),
    };
    Ok(Reply::ok(message))
}

pub(crate) async fn get_default(
    _context: Ctx,
    path: DefaultSettingPath,
) -> Result<Reply, ApiError> {
    let key = path.key;
    let setting = default_setting(&key).ok_or_else(|| {
        ApiError::new(
            ErrorCode::SettingNotFound,
            format!("{key} is not a known setting"),
        )
    })?;
    Reply::ok(format!("Known setting {key}")).with(&setting)
}

pub(crate) async fn list_defaults(_context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let settings = default_settings();
    Reply::ok(count(settings.len(), "known setting")).with(&settings)
}
