//! System settings (by key, or by class and id) and the catalogue of known
//! settings with their defaults.

use netcfg_model::{SettingKey, body::SettingsBody, default_setting, default_settings};
use netcfg_store::{SettingDeletion, SettingScope, SettingWrite};

use super::{count, net, net_name, require_stopped};
use crate::{
    context::Ctx,
    reply::{ApiError, Reply},
    wire::OneOrMany,
};

/// The scope the path names: `/settings/{setting_class}/{setting_id}`, or
/// the configuration's own (`system`, 0) for `/settings`.
fn scope(context: &Ctx) -> Result<Option<SettingScope>, ApiError> {
    if context
        .request()
        .match_info()
        .get("setting_class")
        .is_none()
    {
        return Ok(None);
    }
    Ok(Some(SettingScope {
        class: context.param("setting_class")?,
        id: context.param("setting_id")?,
    }))
}

/// Keys a running network cannot take a change of.
const RUNNING_KEYS: [&str; 2] = ["network_mode", "rf_setting"];

/// A 409 when the body changes what a running network cannot take.
fn check_running(context: &Ctx, scope: &SettingScope, body: &SettingsBody) -> Result<(), ApiError> {
    let touches = scope.class.as_str() == netcfg_model::SYSTEM_CLASS
        && body
            .settings
            .iter()
            .any(|(key, _)| RUNNING_KEYS.contains(&key.as_str()));
    if touches {
        require_stopped(context, &net_name(context)?, "network mode or RF setting")?;
    }
    Ok(())
}

async fn write(
    context: Ctx,
    mode: SettingWrite,
) -> Result<(Vec<netcfg_model::SystemSetting>, usize), ApiError> {
    let scope = scope(&context)?.unwrap_or_else(SettingScope::system);
    let body: SettingsBody = context.body()?;
    check_running(&context, &scope, &body)?;
    let given = body.settings.len();
    let settings = net(&context, move |net| net.write_settings(scope, body, mode)).await?;
    Ok((settings, given))
}

pub(crate) async fn create(context: Ctx) -> Result<Reply, ApiError> {
    let (mut settings, given) = write(context, SettingWrite::Create).await?;
    let message = format!("{} created", count(given, "setting"));
    if settings.len() == 1 {
        Reply::ok(message).with("setting", &OneOrMany::One(settings.remove(0)))
    } else {
        Reply::ok(message).with("setting", &OneOrMany::Many(settings))
    }
}

pub(crate) async fn patch(context: Ctx) -> Result<Reply, ApiError> {
    let (settings, given) = write(context, SettingWrite::Update).await?;
    Reply::ok(format!("{} updated", count(given, "setting"))).with("settings", &settings)
}

pub(crate) async fn put(context: Ctx) -> Result<Reply, ApiError> {
    let scope = scope(&context)?.unwrap_or_else(SettingScope::system);
    let body: SettingsBody = context.body()?;
    check_running(&context, &scope, &body)?;
    // PUT resets the system keys the body leaves out to their defaults: a
    // running network cannot take that for network_mode or rf_setting either.
    let guard_omitted = scope.class.as_str() == netcfg_model::SYSTEM_CLASS
        && super::is_running(&context, &net_name(&context)?);
    let settings = net(&context, move |net| {
        if guard_omitted {
            let current = net.settings(Some(SettingScope::system()))?;
            for key in RUNNING_KEYS {
                let default = default_setting(key).map(|setting| setting.default_value);
                let value = current
                    .iter()
                    .find(|setting| setting.setting_key.as_str() == key)
                    .map(|setting| setting.value.clone());
                if value.is_some() && value != default {
                    return Err(netcfg_store::StoreError::Conflict {
                        what: format!("setting {key}"),
                        why: "the configuration is running and PUT would reset it to its default; \
                              stop the configuration first"
                            .to_owned(),
                    });
                }
            }
        }
        net.replace_settings(scope, body)
    })
    .await?;
    Reply::ok(format!(
        "Settings replaced; {} now",
        count(settings.len(), "setting")
    ))
    .with("settings", &settings)
}

pub(crate) async fn get(context: Ctx) -> Result<Reply, ApiError> {
    let scope = scope(&context)?.unwrap_or_else(SettingScope::system);
    let key: SettingKey = context.param("key")?;
    let setting = net(&context, move |net| net.setting(scope, key)).await?;
    Reply::ok(format!("Setting {}", setting.setting_key)).with("setting", &setting)
}

pub(crate) async fn list(context: Ctx) -> Result<Reply, ApiError> {
    let scope = scope(&context)?;
    let settings = net(&context, move |net| net.settings(scope)).await?;
    Reply::ok(count(settings.len(), "setting")).with("settings", &settings)
}

pub(crate) async fn delete(context: Ctx) -> Result<Reply, ApiError> {
    let scope = scope(&context)?.unwrap_or_else(SettingScope::system);
    let key: SettingKey = context.param("key")?;
    if scope.class.as_str() == netcfg_model::SYSTEM_CLASS && RUNNING_KEYS.contains(&key.as_str()) {
        require_stopped(&context, &net_name(&context)?, "network mode or RF setting")?;
    }
    let message = match net(&context, move |net| net.delete_setting(scope, key)).await? {
        SettingDeletion::Deleted => "Setting deleted".to_owned(),
        SettingDeletion::Reset(setting) => format!(
            "Setting {} is a known setting: reset to its default",
            setting.setting_key
        ),
    };
    Ok(Reply::ok(message))
}

pub(crate) async fn get_default(context: Ctx) -> Result<Reply, ApiError> {
    let key: SettingKey = context.param("key")?;
    let setting = default_setting(&key)
        .ok_or_else(|| ApiError::not_found(format!("{key} is not a known setting")))?;
    Reply::ok(format!("Known setting {key}")).with("default_setting", &setting)
}

pub(crate) async fn list_defaults(_context: Ctx) -> Result<Reply, ApiError> {
    let settings = default_settings();
    Reply::ok(count(settings.len(), "known setting")).with("default_settings", &settings)
}
